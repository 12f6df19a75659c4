import { describe, expect, test } from "bun:test";
import { parseLine, splitLines } from "../../src/core/jsonl.ts";

const enc = (s: string) => new TextEncoder().encode(s);

describe("splitLines", () => {
  test("an unterminated last line is not consumed", () => {
    const r = splitLines(enc('{"a":1}\n{"b":2}\n{"c":'), 100);
    expect(r.lines.map((l) => l.text)).toEqual(['{"a":1}', '{"b":2}']);
    expect(r.consumedTo).toBe(100 + 16);
    expect(r.lines[1]!.start).toBe(108);
  });
  test("splits on \\n bytes only, never on U+2028 inside strings", () => {
    const r = splitLines(enc('{"t":"a\u2028b\u2029c"}\n'), 0);
    expect(r.lines).toHaveLength(1);
    expect(parseLine(r.lines[0]!.text)).toEqual({ t: "a\u2028b\u2029c" });
  });
  test("byte offsets count multi-byte characters", () => {
    const r = splitLines(enc('{"t":"日本"}\n{"u":1}\n'), 0);
    expect(r.lines[1]!.start).toBe(enc('{"t":"日本"}\n').length);
  });
  test("parseLine rejects non-objects", () => {
    expect(parseLine("not json")).toBeNull();
    expect(parseLine("[1,2]")).toBeNull();
    expect(parseLine('{"ok":true')).toBeNull();
  });
});
