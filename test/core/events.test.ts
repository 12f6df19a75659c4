import { describe, expect, test } from "bun:test";
import {
  extractEvents,
  redactEvent,
  SUMMARY_MAX,
  shortPath,
  testRunner,
  toolCallFromPostToolUse,
} from "../../src/core/events.ts";
import type { Json, JsonObject } from "../../src/core/jsonl.ts";
import type { ToolCall } from "../../src/core/model.ts";
import { heredocBody, parseShell, simpleCommands } from "../../src/core/shell.ts";
import { flatLine } from "../../src/core/text.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

/** A tool call with a result: `text` is the tool_result text, `s` the structured toolUseResult. */
function call(name: string, input: JsonObject, r?: { text?: string; error?: boolean; s?: Json }): ToolCall {
  return {
    id: "toolu_1",
    name,
    input,
    ts: T0,
    ...(r
      ? { result: { text: r.text ?? "", isError: r.error === true, structured: r.s, ts: T0 + 1000 } }
      : {}),
  };
}

const bash = (command: string, text = "", error = false) => call("Bash", { command }, { text, error });

type Case = [name: string, call: ToolCall, types: string[], summary?: RegExp];

const cases: Case[] = [
  // files
  [
    "Edit with a patch",
    call(
      "Edit",
      { file_path: "/p/src/a.ts", old_string: "a", new_string: "b" },
      { text: "ok", s: { filePath: "/p/src/a.ts", structuredPatch: [{ lines: ["-a", "+b", "+c"] }] } },
    ),
    ["file_edit"],
    /^Edited \/p\/src\/a\.ts \(\+2 −1\)$/,
  ],
  [
    "Edit without structured result counts lines of the strings",
    call("Edit", { file_path: "/p/a.ts", old_string: "x", new_string: "y\nz" }, { text: "updated" }),
    ["file_edit"],
    /\(\+2 −1\)/,
  ],
  [
    "MultiEdit",
    call(
      "MultiEdit",
      {
        file_path: "/p/b.ts",
        edits: [
          { old_string: "a", new_string: "b" },
          { old_string: "c", new_string: "d" },
        ],
      },
      { text: "ok" },
    ),
    ["file_edit"],
    /2 edits/,
  ],
  [
    "NotebookEdit",
    call("NotebookEdit", { notebook_path: "/p/n.ipynb", new_source: "x", cell_id: "c1" }, { text: "ok" }),
    ["file_edit"],
    /notebook \/p\/n\.ipynb \(replace cell c1\)/,
  ],
  [
    "Write that created (structured type)",
    call("Write", { file_path: "/p/new.ts", content: "a\nb\n" }, { text: "whatever", s: { type: "create" } }),
    ["file_create"],
    /^Created \/p\/new\.ts \(2 lines\)$/,
  ],
  [
    "Write that replaced (structured type)",
    call("Write", { file_path: "/p/old.ts", content: "a" }, { text: "whatever", s: { type: "update" } }),
    ["file_edit"],
    /^Rewrote \/p\/old\.ts/,
  ],
  [
    "Write with originalFile null is a create",
    call(
      "Write",
      { file_path: "/p/x.ts", content: "a" },
      { text: "", s: { filePath: "/p/x.ts", originalFile: null } },
    ),
    ["file_create"],
  ],
  [
    "Write with an originalFile is an update",
    call(
      "Write",
      { file_path: "/p/x.ts", content: "a" },
      { text: "", s: { filePath: "/p/x.ts", originalFile: "old" } },
    ),
    ["file_edit"],
  ],
  [
    "Write known only from its result text",
    call("Write", { file_path: "/p/y.ts", content: "a" }, { text: "File created successfully at: /p/y.ts" }),
    ["file_create"],
  ],
  [
    "Edit that failed",
    call("Edit", { file_path: "/p/a.ts" }, { text: "String to replace not found", error: true }),
    ["error"],
    /^Edit failed: \/p\/a\.ts — String to replace not found$/,
  ],
  ["Edit without a result yet", call("Edit", { file_path: "/p/a.ts" }), []],
  ["Read", call("Read", { file_path: "/p/a.ts" }, { text: "content" }), []],
  [
    "Read that failed",
    call("Read", { file_path: "/p/a.ts" }, { text: "File does not exist.", error: true }),
    ["error"],
  ],

  // git
  [
    "git commit -m with git's output",
    bash('git add -A && git commit -m "fix: the parser"', "[main 1a2b3c4] fix: the parser\n 1 file changed"),
    ["git_commit"],
    /^Committed 1a2b3c4 on main: fix: the parser$/,
  ],
  [
    "git commit with a heredoc message",
    bash(
      'git commit -m "$(cat <<\'EOF\'\nfeat: add search\n\nIt\'s "ranked" by bm25.\nEOF\n)"',
      "[feature/x abc1234] feat: add search",
    ),
    ["git_commit"],
    /Committed abc1234 on feature\/x: feat: add search/,
  ],
  ["git commit -am", bash('git commit -am "wip"'), ["git_commit"], /Committed: wip/],
  [
    "git -C dir commit",
    bash('git -C /repo commit -m "x"', "[main (root-commit) 0123abc] x"),
    ["git_commit"],
    /0123abc/,
  ],
  ["git commit -F file", bash("git commit -F msg.txt"), ["git_commit"], /message from msg\.txt/],
  ["git commit --amend --no-edit", bash("git commit --amend --no-edit"), ["git_commit"], /^Amended/],
  ["git commit inside bash -c", bash("bash -c 'git commit -m \"nested\"'"), ["git_commit"], /nested/],
  [
    "failed git commit is an error only",
    bash('git commit -m "x"', "Exit code 1\nnothing to commit", true),
    ["error"],
    /^Bash failed \(exit 1\): git commit -m "x" — nothing to commit$/,
  ],
  ["echo of the words git commit", bash('echo "git commit -m x"'), []],
  ["git commit-tree is not a commit", bash("git commit-tree abc"), []],
  [
    "git checkout -b",
    bash("git checkout -b feat/search"),
    ["git_checkout"],
    /^Created and switched to feat\/search$/,
  ],
  ["git switch", bash("git switch main"), ["git_checkout"], /^Switched to main$/],
  ["git switch -c", bash("git switch -c topic"), ["git_checkout"], /Created and switched to topic/],
  ["git checkout -- file restores a file", bash("git checkout -- src/a.ts"), []],
  ["git checkout of a file path", bash("git checkout src/a.ts"), []],

  // tests
  [
    "bun test passing",
    bash("bun test", " 12 pass\n 0 fail\nRan 12 tests"),
    ["test_run"],
    /^Tests passed: bun test \(12 passed, 0 failed\)/,
  ],
  [
    "pytest failing",
    bash("python -m pytest tests/ -v", "Exit code 1\n===== 4 failed, 31 passed in 0.39s =====", true),
    ["test_run", "error"],
    /^Tests failed: python -m pytest \(31 passed, 4 failed\)/,
  ],
  ["pytest directly", bash("pytest -q", "3 passed in 0.1s"), ["test_run"], /Tests passed: pytest/],
  ["go test ok", bash("go test ./...", "ok  \texample.com/x\t0.01s"), ["test_run"], /Tests passed: go test/],
  [
    "go test FAIL",
    bash("go test ./...", "--- FAIL: TestX\nFAIL\texample.com/x", true),
    ["test_run", "error"],
    /Tests failed/,
  ],
  [
    "cargo test",
    bash("cargo test", "test result: ok. 5 passed; 0 failed; 0 ignored"),
    ["test_run"],
    /Tests passed: cargo test \(5 passed, 0 failed\)/,
  ],
  [
    "npm test",
    bash("npm test", "Tests: 1 failed, 5 passed, 6 total", true),
    ["test_run", "error"],
    /Tests failed: npm test/,
  ],
  [
    "npm run test:unit",
    bash("npm run test:unit", "Tests:  6 passed, 6 total"),
    ["test_run"],
    /npm run test:unit/,
  ],
  ["pnpm test", bash("pnpm test"), ["test_run"], /^Tests ran: pnpm test/],
  ["yarn test", bash("yarn test", "5 passing (20ms)"), ["test_run"], /Tests passed: yarn test/],
  [
    "npx vitest run",
    bash("npx vitest run", " Test Files  2 passed (2)\n      Tests  9 passed (9)"),
    ["test_run"],
    /Tests passed: vitest/,
  ],
  [
    "npx jest",
    bash("npx jest src", "Tests:       2 failed, 8 passed, 10 total"),
    ["test_run"],
    /Tests failed: jest/,
  ],
  ["mocha", bash("mocha", "  3 passing\n  1 failing"), ["test_run"], /Tests failed: mocha/],
  [
    "bundle exec rspec",
    bash("bundle exec rspec", "5 examples, 0 failures"),
    ["test_run"],
    /Tests passed: rspec/,
  ],
  [
    "phpunit",
    bash("vendor/bin/phpunit", "OK (5 tests, 10 assertions)"),
    ["test_run"],
    /Tests passed: phpunit/,
  ],
  [
    "mix test piped through tail hides the exit code",
    bash("mix test 2>&1 | tail -5", "14 doctests, 297 tests, 11 failures"),
    ["test_run"],
    /Tests failed: mix test/,
  ],
  [
    "dotnet test",
    bash("dotnet test", "Passed!  - Failed:     0, Passed:    12, Skipped: 0"),
    ["test_run"],
    /Tests passed: dotnet test/,
  ],
  ["deno test", bash("deno test", "ok | 4 passed | 0 failed"), ["test_run"], /Tests passed: deno test/],
  ["make test", bash("make test"), ["test_run"], /make test/],
  [
    "a test run sent to the background has no outcome",
    bash("mix test", "Command running in background with ID: b1. Output is being written to: /tmp/b1.output"),
    ["test_run"],
    /^Tests ran: mix test/,
  ],
  ["test -f is not a test runner", bash('test -f a && echo "yes"', "yes"), []],
  ["cd then a runner", bash("cd /repo && TZ=UTC bun test test/a.test.ts", " 1 pass\n 0 fail"), ["test_run"]],

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

  // decisions
  [
    "ExitPlanMode approved",
    call(
      "ExitPlanMode",
      { plan: "# Plan: Add search\n\n1. index" },
      { text: "User has approved your plan.", s: { plan: "x" } },
    ),
    ["decision", "phase_change"],
    /^Plan approved: Add search$/,
  ],
  [
    "ExitPlanMode rejected",
    call("ExitPlanMode", { plan: "# P" }, { text: "User chose to stay in plan mode", error: true }),
    ["error"],
  ],
  [
    "AskUserQuestion with structured answers",
    call(
      "AskUserQuestion",
      { questions: [{ question: "Which DB?" }, { question: "Tabs?" }] },
      { text: "", s: { answers: { "Which DB?": "SQLite", "Tabs?": "Spaces" } } },
    ),
    ["decision", "decision"],
    /^Answered: Which DB\? → SQLite$/,
  ],
  [
    "AskUserQuestion from the result text",
    call(
      "AskUserQuestion",
      { questions: [{ question: "Which DB?" }] },
      { text: 'User has answered your questions: "Which DB?"="SQLite". You can now continue.' },
    ),
    ["decision"],
    /Which DB\? → SQLite/,
  ],

  // phases
  [
    "TodoWrite transitions",
    call(
      "TodoWrite",
      {},
      {
        s: {
          oldTodos: [
            { content: "Parse", status: "in_progress", id: "1" },
            { content: "Index", status: "pending", id: "2" },
          ],
          newTodos: [
            { content: "Parse", status: "completed", id: "1" },
            { content: "Index", status: "in_progress", id: "2" },
          ],
        },
      },
    ),
    ["phase_change", "phase_change"],
    /^Completed: Parse$/,
  ],
  [
    "first TodoWrite plans the tasks",
    call(
      "TodoWrite",
      {},
      {
        s: {
          oldTodos: [],
          newTodos: [
            { content: "A", status: "pending" },
            { content: "B", status: "pending" },
          ],
        },
      },
    ),
    ["phase_change"],
    /^Planned 2 tasks: A; B$/,
  ],
  [
    "TodoWrite without the old list",
    call(
      "TodoWrite",
      { todos: [{ content: "A", status: "in_progress" }] },
      { text: "Todos have been modified" },
    ),
    ["phase_change"],
    /^Working on: A$/,
  ],
  [
    "TodoWrite with no change",
    call(
      "TodoWrite",
      {},
      {
        s: {
          oldTodos: [{ content: "A", status: "pending" }],
          newTodos: [{ content: "A", status: "pending" }],
        },
      },
    ),
    [],
  ],
  [
    "EnterPlanMode",
    call("EnterPlanMode", {}, { text: "Entered plan mode." }),
    ["phase_change"],
    /Entered plan mode/,
  ],
  [
    "TaskUpdate",
    call("TaskUpdate", { taskId: "3", status: "completed" }, { text: "ok" }),
    ["phase_change"],
    /^Completed: task 3$/,
  ],

  // skills and agents
  [
    "Skill",
    call("Skill", { skill: "pdf", args: "x.pdf" }, { text: "Launching skill: pdf" }),
    ["skill_start"],
    /^Skill started: pdf x\.pdf$/,
  ],
  [
    "Skill that failed",
    call("Skill", { skill: "commit" }, { text: "Unknown skill: commit", error: true }),
    ["error"],
  ],
  [
    "Task that finished",
    call(
      "Task",
      { description: "Explore", subagent_type: "Explore", prompt: "p" },
      { text: "done", s: { status: "completed", totalDurationMs: 42_000, totalToolUseCount: 7 } },
    ),
    ["skill_start", "skill_end"],
    /^Task started \(Explore\): Explore$/,
  ],
  ["Task still running", call("Task", { description: "Explore", prompt: "p" }), ["skill_start"]],
  [
    "Task launched in the background",
    call("Task", { description: "bg", prompt: "p" }, { text: "launched", s: { status: "async_launched" } }),
    ["skill_start"],
  ],
  [
    "Agent that failed",
    call("Agent", { description: "x", prompt: "p" }, { text: "InputValidationError", error: true }),
    ["skill_start", "skill_end", "error"],
  ],
];

describe("extractEvents", () => {
  for (const [name, c, types, summary] of cases) {
    test(name, () => {
      const events = extractEvents(c);
      expect(events.map((e) => e.type)).toEqual(types as never);
      for (const e of events) {
        expect(e.summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
        expect(e.summary).not.toMatch(/\n/);
        expect(e.toolUseId).toBe("toolu_1");
      }
      if (summary) expect(events[0]!.summary).toMatch(summary);
    });
  }

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

  test("testRunner", () =>
    _(
      (cmd: string) => {
        const words = simpleCommands(cmd)[0] ?? [];
        return testRunner(words);
      },
      [
        ["bun test", "bun test"],
        ["bun run test", "bun run test"],
        ["npm t", "npm test"],
        ["npx --yes jest", "jest"],
        ["uv run pytest", "pytest"],
        ["poetry run pytest -x", "pytest"],
        ["python3 -m unittest", "python -m unittest"],
        ["./gradlew test", "gradlew test"],
        ["cargo nextest run", "cargo nextest"],
        ["zig build test", "zig test"],
        ["bun run build", null],
        ["npm install", null],
        ["python script.py", null],
        ["go build", null],
      ],
    ));

  test("parseShell splits commands and keeps quoted words whole", () => {
    expect(parseShell('cd "/a b" && git commit -m "x; y" | tee log; echo done 2>&1')).toEqual([
      ["cd", "/a b"],
      ["git", "commit", "-m", "x; y"],
      ["tee", "log"],
      ["echo", "done", "2>&1"],
    ]);
    expect(parseShell("cat > f <<'EOF'\ngit commit -m nope\nEOF\nls")).toEqual([["cat", ">", "f"], ["ls"]]);
    expect(parseShell("# comment\nls")).toEqual([["ls"]]);
  });

  test("heredocBody", () =>
    _(heredocBody, [
      ["$(cat <<'EOF'\nline 1\nline 2\nEOF\n)", "line 1\nline 2"],
      ['$(cat <<"END"\nx\n  END\n)', "x"],
      ["no heredoc", null],
    ]));

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

describe("toolCallFromPostToolUse", () => {
  test("Bash: stdout and stderr are the result text", () => {
    const c = toolCallFromPostToolUse(
      {
        tool_name: "Bash",
        tool_input: { command: "bun test" },
        tool_response: { stdout: " 3 pass\n 0 fail", stderr: "", interrupted: false },
        tool_use_id: "toolu_9",
      },
      T0,
    );
    expect(c).toMatchObject({
      id: "toolu_9",
      name: "Bash",
      result: { text: " 3 pass\n 0 fail", isError: false, ts: T0 },
    });
    expect(extractEvents(c!).map((e) => e.type)).toEqual(["test_run"]);
  });

  test("Write: the response's type decides create or update", () => {
    const c = toolCallFromPostToolUse(
      {
        tool_name: "Write",
        tool_input: { file_path: "/p/a", content: "x" },
        tool_response: { type: "create", filePath: "/p/a" },
      },
      T0,
    );
    expect(extractEvents(c!).map((e) => e.type)).toEqual(["file_create"]);
  });

  test("PostToolUseFailure payloads are errors", () => {
    const c = toolCallFromPostToolUse(
      {
        hook_event_name: "PostToolUseFailure",
        tool_name: "Bash",
        tool_input: { command: "false" },
        error: "Exit code 1",
      },
      T0,
    );
    expect(extractEvents(c!).map((e) => e.type)).toEqual(["error"]);
  });

  test("a Task's start is placed before its end by the reported duration", () => {
    const c = toolCallFromPostToolUse(
      {
        tool_name: "Task",
        tool_input: { description: "d", prompt: "p" },
        tool_response: {
          status: "completed",
          totalDurationMs: 5000,
          content: [{ type: "text", text: "done" }],
        },
      },
      T0,
    );
    expect(extractEvents(c!).map((e) => [e.type, e.ts])).toEqual([
      ["skill_start", T0 - 5000],
      ["skill_end", T0],
    ]);
  });

  test("no tool name: null", () => {
    expect(toolCallFromPostToolUse({}, T0)).toBeNull();
  });
});
