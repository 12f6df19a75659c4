/** Which test runner a command runs, and how the run went (test_run events). Pure. */

import type { ToolResult } from "../model.ts";
import { programName } from "../shell.ts";
import { failed } from "./common.ts";

const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
const DIRECT_RUNNERS = new Set([
  "jest",
  "vitest",
  "mocha",
  "ava",
  "pytest",
  "py.test",
  "rspec",
  "phpunit",
  "pest",
  "ctest",
  "tox",
  "nox",
  "karma",
  "jasmine",
  "nextest",
  "busted",
  "prove",
]);
/** `<tool> test` runners. */
const TEST_SUBCOMMAND = new Set([
  "go",
  "cargo",
  "mix",
  "dotnet",
  "mvn",
  "mvnw",
  "gradle",
  "gradlew",
  "deno",
  "swift",
  "flutter",
  "dart",
  "zig",
  "rails",
  "rake",
  "lein",
  "sbt",
  "stack",
  "cabal",
  "bazel",
  "meson",
]);
/** Launchers whose first argument is the real program: `npx jest`, `uv run pytest`. */
const LAUNCHERS: Record<string, number> = { npx: 1, bunx: 1, pnpx: 1 };

/** The test runner a simple command runs, as a short name (`bun test`, `pytest`, …); null when none. */
export function testRunner(words: readonly string[]): string | null {
  let w = [...words];
  for (let guard = 0; guard < 4; guard++) {
    const p = programName(w[0] ?? "");
    if (LAUNCHERS[p]) w = w.slice(1).filter((x, i) => i > 0 || !x.startsWith("-"));
    else if (
      (p === "uv" || p === "poetry" || p === "pipenv" || p === "hatch" || p === "pdm") &&
      w[1] === "run"
    )
      w = w.slice(2);
    else if (p === "bundle" && w[1] === "exec") w = w.slice(2);
    else if ((p === "pnpm" || p === "yarn") && (w[1] === "exec" || w[1] === "dlx")) w = w.slice(2);
    else if (/^python[\d.]*$/.test(p) || p === "py") {
      const m = w.indexOf("-m");
      if (m < 0) return null;
      const mod = w[m + 1] ?? "";
      if (mod === "pytest" || mod === "unittest" || mod === "nose2" || mod === "tox")
        return `python -m ${mod}`;
      return null;
    } else break;
    while (w[0]?.startsWith("-")) w = w.slice(1);
  }
  const p = programName(w[0] ?? "");
  const args = w.slice(1).filter((a) => !a.startsWith("-"));
  if (PACKAGE_MANAGERS.has(p)) {
    const first = args[0] ?? "";
    if (first === "test" || first === "t") return `${p} test`;
    if (first === "run" && /^test(?:[:\-_].*)?$/.test(args[1] ?? "")) return `${p} run ${args[1]}`;
    if (p === "yarn" && /^test[:\-_]/.test(first)) return `yarn ${first}`;
    return null;
  }
  if (DIRECT_RUNNERS.has(p)) return p;
  if (p === "playwright" && args[0] === "test") return "playwright test";
  if (p === "cypress" && args[0] === "run") return "cypress run";
  if (p === "make" && (args.includes("test") || args.includes("check") || args.includes("tests")))
    return `make ${args.find((a) => a === "test" || a === "check" || a === "tests")}`;
  if (TEST_SUBCOMMAND.has(p)) {
    const sub = args[0] ?? "";
    if (sub === "test" || (p === "zig" && sub === "build" && args[1] === "test")) return `${p} test`;
    if (p === "cargo" && sub === "nextest") return "cargo nextest";
  }
  return null;
}

export interface TestOutcome {
  outcome: "pass" | "fail" | "unknown";
  passed: number | null;
  failed: number | null;
}

function lastNumber(text: string, re: RegExp): number | null {
  let n: number | null = null;
  for (const m of text.matchAll(re)) n = Number(m[1]);
  return n;
}

/** Pass/fail of a test run from its exit status and the summary lines runners print. */
export function testOutcome(r: ToolResult): TestOutcome {
  const text = r.text.length > 20_000 ? r.text.slice(-20_000) : r.text;
  const failedN =
    lastNumber(text, /\b(\d+) (?:failed|failures?|failing|fail|errors?)\b/gi) ??
    lastNumber(text, /\b(?:Failures|Failed|failed):\s*(\d+)/g);
  let passed =
    lastNumber(text, /\b(\d+) (?:passed|passing|pass|successful|succeeded)\b/gi) ??
    lastNumber(text, /\bPassed:\s*(\d+)/g);
  const total = lastNumber(text, /\b(\d+) (?:tests?|examples?|specs?)\b/gi);
  if (passed === null && total !== null && failedN !== null) passed = Math.max(0, total - failedN);
  if (/^(?:Command running in background|Command was manually backgrounded)/.test(r.text))
    return { outcome: "unknown", passed: null, failed: null };
  const fail =
    failed(r) ||
    (failedN !== null && failedN > 0) ||
    /^FAIL\b|test result: FAILED|^FAILED\b|FAILURES!|Tests failed|✗ \d+ tests? failed/m.test(text);
  if (fail) return { outcome: "fail", passed, failed: failedN };
  const ok =
    (passed !== null && passed > 0) ||
    (failedN === 0 && total !== null) ||
    /^ok\s|test result: ok\.|^OK \(|^OK$|All tests passed|Passed!/m.test(text);
  return { outcome: ok ? "pass" : "unknown", passed, failed: failedN };
}
