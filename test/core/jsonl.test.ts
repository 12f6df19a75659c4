import { describe, expect, test } from "bun:test";
import { prng } from "../../harness/pull.ts";
import {
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  parseLine,
  splitLines,
  valueDeeperThan,
} from "../../src/core/jsonl.ts";

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

/** Depth of a parsed value: what nestedDeeperThan must agree with. */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === "object") return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

describe("nestedDeeperThan", () => {
  // Strings full of what a depth scan must not count: brackets, escaped quotes, backslash runs.
  const STRINGS = ["{[", "]}", '\\"{', "\\", 'a \\" b', "\n{{", "日本語 {🎉}", ""];
  function value(rnd: () => number, depth: number): unknown {
    const r = rnd();
    if (depth <= 0 || r < 0.3)
      return STRINGS[Math.floor(rnd() * STRINGS.length)]!.repeat(1 + Math.floor(rnd() * 3));
    const n = 1 + Math.floor(rnd() * 3);
    const items = Array.from({ length: n }, () => value(rnd, depth - 1 - Math.floor(rnd() * 2)));
    return r < 0.65 ? items : Object.fromEntries(items.map((x, i) => [`k${i}{"`, x]));
  }

  test("agrees with the parsed depth on generated JSON whose strings hold brackets and escapes", () => {
    const rnd = prng(5);
    let deeper = 0;
    for (let n = 0; n < 400; n++) {
      const text = JSON.stringify({ v: value(rnd, 3 + Math.floor(rnd() * 12)), pad: "x".repeat(30) });
      const depth = depthOf(JSON.parse(text));
      for (const max of [2, 4, 8]) {
        expect([text, max, nestedDeeperThan(text, max)]).toEqual([text, max, depth > max]);
        expect([text, max, valueDeeperThan(JSON.parse(text), max)]).toEqual([text, max, depth > max]);
        if (depth > max) deeper++;
      }
    }
    expect(deeper).toBeGreaterThan(100); // both answers were exercised
  });
});

describe("parseLine and nesting", () => {
  const nested = (depth: number, pad = 0) =>
    `{"a":${"[".repeat(depth - 1)}"${"x".repeat(pad)}"${"]".repeat(depth - 1)}}`;
  test("a line nested past MAX_JSON_DEPTH is skipped, one at it is kept, as the text scan says", () => {
    for (const depth of [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 40_000]) {
      const text = nested(depth, 600);
      expect({ depth, skipped: parseLine(text) === null }).toEqual({
        depth,
        skipped: nestedDeeperThan(text),
      });
    }
    expect(parseLine(nested(MAX_JSON_DEPTH))).not.toBeNull();
    expect(parseLine(nested(MAX_JSON_DEPTH + 1))).toBeNull();
    expect(parseLine(nested(40_000))).toBeNull();
  });
});
