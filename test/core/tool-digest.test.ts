import { describe, expect, test } from "bun:test";
import {
  type DigestForm,
  FULL_FORM,
  newNames,
  PUSH_FORM,
  projectPath,
  type ToolUse,
  toolDigest,
  toolLine,
} from "../../src/core/tool-digest.ts";

const use = (tool: string, extra: Partial<ToolUse> = {}): ToolUse => ({
  tool,
  path: null,
  command: null,
  pattern: null,
  url: null,
  query: null,
  description: null,
  added: null,
  removed: null,
  isError: false,
  output: null,
  ...extra,
});

describe("tool digest (docs/contract.md#the-push)", () => {
  test("files under one verb, in first-use order, relative to the project; commands with their outcome", () => {
    const digest = toolDigest(
      [
        use("Read", { path: "/p/src/a.ts" }),
        use("Read", { path: "/p/src/b.ts" }),
        use("Read", { path: "/p/src/a.ts" }),
        use("Edit", { path: "/p/src/a.ts", removed: "let count = 0", added: "let lineCount = MAX_LINES" }),
        use("Bash", { command: "bun test", isError: true, output: "Exit code 1\nerror: 2 failed" }),
        use("Grep", { pattern: "parseArgs", path: "/p/src" }),
        use("TodoWrite", { added: "plan" }),
        use("WebFetch", { url: "https://example.com/doc" }),
        use("Write", { path: "/elsewhere/notes.md", added: "see parser_v2.ts and keepLast" }),
      ],
      "/p",
    );
    expect(digest).toBe(
      'read src/a.ts, src/b.ts; edited src/a.ts (lineCount, MAX_LINES); ran `bun test` (failed: exit 1: error: 2 failed); grep "parseArgs" in src; fetched https://example.com/doc; created /elsewhere/notes.md (parser_v2.ts, keepLast)',
    );
  });

  test("an edit names only what it added; plain words and numbers are not names", () => {
    expect(newNames("const fooBar = oldName + other_thing + 12345 + word", "oldName")).toEqual([
      "fooBar",
      "other_thing",
    ]);
    expect(newNames(null, "x")).toEqual([]);
    expect(newNames("a b c", null)).toEqual([]);
  });

  test("long lines are cut to the budget; a turn without tools has no line", () => {
    const many = Array.from({ length: 50 }, (_, i) =>
      use("Bash", { command: `echo ${i} ${"x".repeat(50)}` }),
    );
    const line = toolLine(many, null, 300);
    expect(line.length).toBeLessThanOrEqual(300);
    expect(line.startsWith("tools: ran `echo 0")).toBe(true);
    expect(line.endsWith(" …")).toBe(true);
    expect(toolLine([], null, 300)).toBe("");
    expect(toolLine([use("TodoWrite")], null, 300)).toBe("");
  });

  test("a long command keeps its head within the entry cut", () => {
    const cmd = `python3 ${"a/".repeat(200)}run.py`;
    const digest = toolDigest([use("Bash", { command: cmd })], null, { ...PUSH_FORM, entryCut: 100 });
    expect(digest.length).toBeLessThanOrEqual("ran ``".length + 100);
  });

  test("projectPath: only paths under the project are shortened", () => {
    expect(projectPath("/p/src/a.ts", "/p")).toBe("src/a.ts");
    expect(projectPath("/pq/a.ts", "/p")).toBe("/pq/a.ts");
    expect(projectPath("/a.ts", "/")).toBe("/a.ts");
    expect(projectPath("/p/a.ts", null)).toBe("/p/a.ts");
  });
});

describe("the full form of `recall --l2` (docs/contract.md#pulls-read-only)", () => {
  const uses = [
    use("Read", { path: "/p/src/a.ts", output: "export function parseArgs(argv) { return MAX_ARGS }" }),
    use("Write", { path: "/p/README.md", added: "Run `bun run bench` after `make deps`; see bench_main.ts" }),
  ];

  test("names what a read returned, keeps backquoted spans and absolute paths", () => {
    expect(toolDigest(uses, "/p", FULL_FORM)).toBe(
      "read /p/src/a.ts (parseArgs, MAX_ARGS); created /p/README.md (bun run bench, make deps, bench_main.ts)",
    );
  });

  test("the push's short form names neither, and shows paths relative to the project", () => {
    expect(toolDigest(uses, "/p", PUSH_FORM)).toBe("read src/a.ts; created README.md (bench_main.ts)");
    // A name inside backquotes is still a name there.
    expect(newNames("call `parse_rows` then `bun test`", null)).toEqual(["parse_rows"]);
    expect(newNames("call `parse_rows` then `bun test`", null, 12, true)).toEqual(["parse_rows", "bun test"]);
  });

  test("per-file caps hold in each form", () => {
    const many = Array.from({ length: 300 }, (_, i) => `name_${i}`).join(" ");
    const names = (form: DigestForm) =>
      (/\((.*)\)/.exec(toolDigest([use("Write", { path: "/p/x.ts", added: many })], "/p", form))?.[1] ?? "")
        .split(", ")
        .filter(Boolean).length;
    expect(names(PUSH_FORM)).toBe(PUSH_FORM.namesPerFile);
    expect(names(FULL_FORM)).toBe(FULL_FORM.namesPerFile);
  });
});
