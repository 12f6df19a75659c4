/**
 * README's "Quick start", run as written from this checkout with a user's PATH, and every command
 * the demo then prints, copied exactly as printed (issue 45, item 1): each exits 0 with the
 * sample session's data, not an "empty" or "no session" answer. A quick-start line this test
 * does not know fails it: none is skipped silently.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, runShell, tempDir } from "../harness/db.ts";

const SAMPLE_ID = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13";

/** The command lines of the section's `sh` block, comments removed. */
function quickStartLines(): string[] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const at = readme.indexOf("\n## Quick start\n");
  if (at < 0) throw new Error("README: no 'Quick start' section");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  if (!block) throw new Error("README: no sh block under 'Quick start'");
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#\s.*$/, "").trim())
    .filter(Boolean);
}

/**
 * The setup the demo line starts with is what this checkout already is (bun runs this test, its
 * packages are installed); running it here would reach the network and rewrite the shared
 * node_modules. `bun test` is this suite.
 */
const SETUP = "npm install -g bun && bun install && ";
const KNOWN = [`${SETUP}bun run demo`, "bun test"];

/** What the demo tells a user to run: its example lines, and the push's commands with the prefix it names. */
function printedCommands(out: string): string[] {
  const prefix = /Try the commands above with (THROUGHLINE_DB=\S+) in front of them/.exec(out)?.[1];
  const examples = out
    .split("\n")
    .filter((l) => /^ {2}THROUGHLINE_DB=/.test(l))
    .map((l) => l.trim());
  // The commands the push bakes in, between backticks; a placeholder (`<words>`) is not a command.
  const baked = [...out.matchAll(/`([^`\n]*src\/cli\.ts [^`\n]*)`/g)]
    .map((m) => m[1]!)
    .filter((c) => !c.includes("<"));
  return [...examples, ...(prefix ? baked.map((c) => `${prefix} ${c}`) : [])];
}

describe("README quick start", () => {
  test("the section's lines are the ones this test runs", () => {
    expect(quickStartLines()).toEqual(KNOWN);
  });

  test("45.1 every command the demo prints runs as printed", () => {
    using tmp = tempDir("tl-quickstart-");
    // The demo's scratch database goes under TMPDIR: here, a directory this test removes.
    const env = { TMPDIR: tmp.path };
    const demo = runShell(quickStartLines()[0]!.slice(SETUP.length), { env, cwd: REPO });
    expect(demo.stderr).not.toContain("error");
    expect(demo.exitCode).toBe(0);
    expect(demo.stdout).toContain("Replayed the sample session: 4 turns");
    const commands = printedCommands(demo.stdout);
    for (const command of commands) {
      const r = runShell(command, { env, cwd: REPO });
      const out = r.stdout + r.stderr;
      expect({ command, exitCode: r.exitCode, stderr: r.stderr }).toEqual({
        command,
        exitCode: 0,
        stderr: "",
      });
      expect(out).toContain(SAMPLE_ID);
      expect(out).toMatch(/todo/i); // the sample's subject: the todo API
      expect(out).not.toMatch(/is empty|no session|nothing recorded|run install/i);
    }
    // Three examples, and the push's `detail` of the latest turn and its `recall --l2`.
    expect(commands.length).toBeGreaterThanOrEqual(5);
  }, 60_000);
});
