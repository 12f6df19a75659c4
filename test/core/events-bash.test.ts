import { describe, expect, test } from "bun:test";
import { testRunner } from "../../src/core/events.ts";
import { heredocBody, parseShell, simpleCommands } from "../../src/core/shell.ts";
import { bash, type Case, extractCases } from "../helpers/events.ts";

const cases: Case[] = [
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
];

extractCases(cases);

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
});
