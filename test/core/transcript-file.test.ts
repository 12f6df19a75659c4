import { describe, expect, test } from "bun:test";
import { isTranscriptEntry, type JsonObject, lineProblem } from "../../src/core/jsonl.ts";
import { notTranscriptReason, ownFileKind } from "../../src/core/transcript-file.ts";

describe("what replay and import take for a transcript (src/core/transcript-file.ts)", () => {
  const kinds: [JsonObject | undefined, string | null][] = [
    [
      { record: "header", schema: "throughline.export.v1", exported_at: "x" },
      "it is a throughline export: import it with --from-export",
    ],
    [{ schema: "throughline.replay.v1", sessions: [] }, "it is a throughline report (throughline.replay.v1)"],
    [
      { ts: "2026-03-01T09:00:00.000Z", seq: 1, type: "edit", summary: "Edit a.ts", detail: {} },
      "it is a throughline session index",
    ],
    [{ type: "user", uuid: "u1", sessionId: "s", message: { role: "user", content: "hi" } }, null],
    [{ type: "summary", summary: "A title", leafUuid: "u-1" }, null],
    [undefined, null],
  ];
  for (const [first, kind] of kinds)
    test(`${JSON.stringify(first)} → ${kind}`, () => expect(ownFileKind(first)).toBe(kind));

  const problems: [string, string][] = [
    ["   ", "blank"],
    ["hello", "not JSON"],
    ['{"type":"user",', "cut short or malformed JSON"],
    ["[1,2]", "a JSON value, not an object"],
    ["42", "a JSON value, not an object"],
    ["\u0000\u0001garbage", "binary or not UTF-8"],
    [`${"[".repeat(300)}${"]".repeat(300)}`, "a JSON value, not an object"],
    [`{"a":${"[".repeat(300)}${"]".repeat(300)}}`, "nested deeper than 256 levels"],
  ];
  for (const [line, why] of problems)
    test(`lineProblem ${JSON.stringify(line.slice(0, 20))}`, () => expect(lineProblem(line)).toBe(why));

  test("a transcript entry has a type and one of an entry's fields", () => {
    expect(isTranscriptEntry({ type: "user", message: { content: "x" } })).toBe(true);
    expect(isTranscriptEntry({ type: "custom-title", customTitle: "t", sessionId: "s" })).toBe(true);
    expect(isTranscriptEntry({ type: "edit", summary: "x" })).toBe(false);
    expect(isTranscriptEntry({ uuid: "u1" })).toBe(false);
  });

  test("why a file is no transcript", () => {
    expect(notTranscriptReason({ bytes: 0, lines: 0, first: null })).toBe("it is empty");
    expect(notTranscriptReason({ bytes: 9, lines: 0, first: null })).toBe("it holds no complete line");
    expect(notTranscriptReason({ bytes: 9, lines: 1, first: { line: 1, reason: null } })).toBe(
      "its one line is not a transcript entry; line 1: a JSON object, not a Claude Code entry",
    );
    expect(notTranscriptReason({ bytes: 99, lines: 4, first: { line: 2, reason: "not JSON" } })).toBe(
      "none of its 4 lines is a transcript entry; line 2: not JSON",
    );
  });
});
