import { describe, expect, test } from "bun:test";
import { extractEvents, toolCallFromPostToolUse } from "../../src/core/events.ts";
import { T0 } from "../helpers/events.ts";

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
