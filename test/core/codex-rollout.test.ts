import { describe, expect, test } from "bun:test";
import {
  hostOfPath,
  parseToolOutput,
  rolloutSessionId,
  shellCommandOf,
  translateRecord,
} from "../../src/core/codex-rollout.ts";
import { patchFiles } from "../../src/core/events/patch.ts";

const ROLLOUT =
  "/h/.codex/sessions/2026/12/06/rollout-2026-12-06T04-00-52-01a24983-01b7-7c02-9ea4-f425fb3a0e6e.jsonl";

describe("codex rollout translation", () => {
  test("a rollout's name gives its session id and host; a Claude Code transcript's does not", () => {
    expect(rolloutSessionId(ROLLOUT)).toBe("01a24983-01b7-7c02-9ea4-f425fb3a0e6e");
    expect(hostOfPath(ROLLOUT)).toBe("codex");
    expect(rolloutSessionId("/h/.claude/projects/-p/01a24983-01b7-7c02-9ea4-f425fb3a0e6e.jsonl")).toBeNull();
    expect(hostOfPath("/h/.claude/projects/-p/x.jsonl")).toBe("claude");
  });

  test.each([
    ["Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nhi\n", "hi\n", 0],
    ["Chunk ID: 1\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nls: no\n", "ls: no\n", 2],
    ["Exit code: 1\nWall time: 0 seconds\nOutput:\npatch failed\n", "patch failed\n", 1],
    ["plain output", "plain output", null],
  ])("tool output %# keeps the output and its exit code", (raw, text, exitCode) => {
    expect(parseToolOutput(raw)).toEqual({ text, exitCode });
  });

  test.each([
    ["exec_command", { cmd: "npm test" }, "npm test"],
    ["shell_command", { command: "git status" }, "git status"],
    ["shell", { command: ["bash", "-lc", "make all"] }, "make all"],
    ["shell", { command: ["ls", "-la"] }, "ls -la"],
    ["view_image", { path: "a.png" }, null],
  ])("%s %j ran %j", (name, args, cmd) => {
    expect(shellCommandOf(name, args)).toBe(cmd);
  });

  test("developer messages, the environment block and harness-marked user text translate to nothing", () => {
    const msg = (role: string, text: string, provenance?: string) => ({
      type: "response_item",
      payload: {
        type: "message",
        role,
        content: [{ type: "input_text", text }],
        ...(provenance
          ? {
              internal_chat_message_metadata_passthrough: {
                content_item_metadata: [{ provenance: { type: provenance } }],
              },
            }
          : {}),
      },
    });
    expect(translateRecord(msg("developer", "the push"))).toEqual([]);
    expect(translateRecord(msg("user", "<environment_context>\n<cwd>/p</cwd>"))).toEqual([]);
    expect(translateRecord(msg("user", "AGENTS.md says", "harness"))).toEqual([]);
    expect(translateRecord(msg("user", "fix the bug", "user"))).toHaveLength(1);
    // A line of any other file is no rollout record: passed on untouched.
    expect(translateRecord({ type: "user", message: { content: "x" } })).toBeNull();
  });

  test("an apply_patch names each file it adds, updates, moves or deletes, with its line counts", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: a.txt",
      "+one",
      "+two",
      "*** Update File: src/b.ts",
      "*** Move to: src/c.ts",
      "@@",
      "-old",
      "+new",
      "*** Delete File: d.md",
      "*** End Patch",
    ].join("\n");
    expect(patchFiles(patch)).toEqual([
      { op: "add", path: "a.txt", movedTo: null, added: 2, removed: 0 },
      { op: "update", path: "src/b.ts", movedTo: "src/c.ts", added: 1, removed: 1 },
      { op: "delete", path: "d.md", movedTo: null, added: 0, removed: 0 },
    ]);
  });
});
