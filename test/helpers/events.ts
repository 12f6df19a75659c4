import { describe, expect, test } from "bun:test";
import { extractEvents, SUMMARY_MAX } from "../../src/core/events.ts";
import type { Json, JsonObject } from "../../src/core/jsonl.ts";
import type { ToolCall } from "../../src/core/model.ts";

export const T0 = Date.parse("2026-03-01T10:00:00.000Z");

/** A tool call with a result: `text` is the tool_result text, `s` the structured toolUseResult. */
export function call(
  name: string,
  input: JsonObject,
  r?: { text?: string; error?: boolean; s?: Json },
): ToolCall {
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

export const bash = (command: string, text = "", error = false) => call("Bash", { command }, { text, error });

/** A call, the event types it yields, and what the first summary must match. */
export type Case = [name: string, call: ToolCall, types: string[], summary?: RegExp];

/** One test per case, under `extractEvents` as in every core/events*.test.ts file. */
export function extractCases(cases: readonly Case[]): void {
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
  });
}
