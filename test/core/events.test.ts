import { describe, expect, test } from "bun:test";
import { extractEvents, redactEvent, SUMMARY_MAX, shortPath } from "../../src/core/events.ts";
import { flatLine } from "../../src/core/text.ts";
import { bash, type Case, call, extractCases, T0 } from "../helpers/events.ts";

const cases: Case[] = [
  // errors
  ["Bash non-zero exit without the error flag", bash("false", "Exit code 3\nboom"), ["error"], /exit 3/],
  [
    "Bash that failed",
    bash("ls nope", "ls: cannot access 'nope'", true),
    ["error"],
    /^Bash failed: ls nope — ls: cannot access 'nope'$/,
  ],
  ["Bash success", bash("ls", "a\nb"), []],
  [
    "an MCP tool that failed",
    call("mcp__x__y", {}, { text: "boom", error: true }),
    ["error"],
    /^mcp__x__y failed — boom$/,
  ],
  [
    "a tool rejected by the user",
    call("Write", { file_path: "/p/a" }, { text: "The user doesn't want to proceed", error: true }),
    ["error"],
  ],
];

extractCases(cases);

describe("extractEvents", () => {
  test("details carry the structured facts", () => {
    const [commit] = extractEvents(
      bash("git commit -m \"$(cat <<'EOF'\nfeat: x\n\nbody line\nEOF\n)\"", "[main deadbee] feat: x"),
    );
    expect(commit!.detail).toMatchObject({
      message: "feat: x\n\nbody line",
      hash: "deadbee",
      branch: "main",
    });
    const [run] = extractEvents(bash("pytest", "2 failed, 3 passed", true));
    expect(run!.detail).toMatchObject({ runner: "pytest", outcome: "fail", passed: 3, failed: 2 });
    const [edit] = extractEvents(
      call("Edit", { file_path: "/p/a.ts", old_string: "a", new_string: "b" }, { text: "" }),
    );
    expect(edit!.detail).toMatchObject({ path: "/p/a.ts", tool: "Edit" });
    const [err] = extractEvents(bash("make", "Exit code 2\nmake: *** [all] Error 1", true));
    expect(err!.detail).toMatchObject({ tool: "Bash", exit_code: 2, command: "make" });
  });

  test("event times: the result's time, a Task's start at its call", () => {
    const events = extractEvents(
      call("Task", { description: "d", prompt: "p" }, { text: "ok", s: { status: "completed" } }),
    );
    expect(events.map((e) => e.ts)).toEqual([T0, T0 + 1000]);
  });

  test("summaries stay one line of at most 120 characters", () => {
    const long = "x".repeat(500);
    for (const c of [
      call("Edit", { file_path: `/p/${long}/a.ts` }, { text: "" }),
      bash(`git commit -m "${long}\nsecond line"`),
      bash(long, `${long}\n${long}`, true),
      call("AskUserQuestion", {}, { s: { answers: { [long]: long } } }),
    ]) {
      for (const e of extractEvents(c)) {
        expect(e.summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
        expect(e.summary).not.toContain("\n");
      }
    }
  });

  test("redaction reaches the summary and every string of the detail", () => {
    const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const [e] = extractEvents(bash(`git commit -m "token ${secret}"`)).map(redactEvent);
    expect(JSON.stringify(e)).not.toContain(secret);
    expect(e!.summary).toContain("[REDACTED:github_token]");
  });
});

describe("helpers", () => {
  const _ = <A, R>(f: (a: A) => R, rows: [A, R][]) => {
    for (const [a, r] of rows) expect(f(a)).toEqual(r);
  };

  test("shortPath keeps the file name", () => {
    expect(shortPath("/a/b.ts")).toBe("/a/b.ts");
    const p = `/home/user/${"deep/".repeat(20)}file.ts`;
    expect(shortPath(p).endsWith("/file.ts")).toBe(true);
    expect(shortPath(p).startsWith("…/")).toBe(true);
    expect(shortPath(p).length).toBeLessThanOrEqual(60);
    expect(shortPath(`/${"x".repeat(100)}.ts`).length).toBeLessThanOrEqual(60);
  });

  test("oneLine", () =>
    _(
      (s: string) => flatLine(s, 10, "…"),
      [
        ["a\n b", "a b"],
        ["0123456789abc", "012345678…"],
      ],
    ));
});
