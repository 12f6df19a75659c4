import { describe, expect, test } from "bun:test";
import {
  candidateWindows,
  formatClock,
  formatRange,
  parseIsoInstant,
  parseWhen,
  type TimeWindow,
} from "../../src/core/clock.ts";

const iso = (s: string) => Date.parse(s);
const show = (w: TimeWindow) => [new Date(w.from).toISOString(), new Date(w.to).toISOString()];

// Clock times are UTC whatever TZ says (see src/core/clock.ts).
describe("parseWhen", () => {
  const ok: [string, unknown][] = [
    ["14:32", { kind: "clock", from: { h: 14, m: 32, s: 0, ms: 0, width: 60_000 } }],
    ["9:05:07", { kind: "clock", from: { h: 9, m: 5, s: 7, ms: 0, width: 1000 } }],
    ["09:05:07.250", { kind: "clock", from: { h: 9, m: 5, s: 7, ms: 250, width: 1 } }],
  ];
  for (const [input, want] of ok)
    test(input, () => expect(parseWhen(input)).toMatchObject(want as Record<string, unknown>));

  test("clock range with a hyphen, an en dash, or ..", () => {
    for (const input of ["14:00-14:30", "14:00–14:30", "14:00 .. 14:30", " 14:00 - 14:30 "]) {
      const spec = parseWhen(input);
      expect(spec.kind).toBe("clock");
      if (spec.kind === "clock")
        expect([spec.from.h, spec.from.m, spec.to.h, spec.to.m]).toEqual([14, 0, 14, 30]);
    }
  });

  test("ISO instants keep their precision", () => {
    expect(parseWhen("2026-03-01T09:00:00.123Z")).toEqual({
      kind: "absolute",
      from: iso("2026-03-01T09:00:00.123Z"),
      to: iso("2026-03-01T09:00:00.123Z"),
    });
    expect(parseWhen("2026-03-01T09:00:00Z")).toEqual({
      kind: "absolute",
      from: iso("2026-03-01T09:00:00Z"),
      to: iso("2026-03-01T09:00:00.999Z"),
    });
    expect(parseWhen("2026-03-01T09:00:00+02:00")).toMatchObject({ from: iso("2026-03-01T07:00:00Z") });
  });

  test("ISO ranges, split on the right hyphen", () => {
    expect(parseWhen("2026-03-01T09:00Z-2026-03-01T10:00Z")).toEqual({
      kind: "absolute",
      from: iso("2026-03-01T09:00:00Z"),
      to: iso("2026-03-01T10:00:59.999Z"),
    });
    // A negative offset is not a range.
    expect(parseWhen("2026-03-01T09:00:00-05:00")).toMatchObject({ from: iso("2026-03-01T14:00:00Z") });
  });

  test("local dates and date-times", () => {
    expect(parseWhen("2026-03-01")).toEqual({
      kind: "absolute",
      from: iso("2026-03-01T00:00:00Z"),
      to: iso("2026-03-01T23:59:59.999Z"),
    });
    expect(parseWhen("2026-03-01 23:59")).toMatchObject({ from: iso("2026-03-01T23:59:00Z") });
  });

  for (const bad of [
    "",
    "25:00",
    "14:60",
    "noon",
    "14",
    "14:00-",
    "2026-03-01T09:00Z-14:00",
    "10:00Z-09:00Z",
  ])
    test(`rejects ${JSON.stringify(bad)}`, () => expect(() => parseWhen(bad)).toThrow());
});

describe("candidateWindows", () => {
  // A session that ran from 22:00 on Mar 1 to 01:30 on Mar 2.
  const span = { from: iso("2026-03-01T22:00:00Z"), to: iso("2026-03-02T01:30:00Z") };
  const all = (input: string) => [...candidateWindows(parseWhen(input), span)].map(show);

  test("a clock time after midnight lands on the second day", () => {
    expect(all("00:15")).toEqual([["2026-03-02T00:15:00.000Z", "2026-03-02T00:15:59.999Z"]]);
  });

  test("a clock time before midnight lands on the first day (the newest date is tried first)", () => {
    expect(all("23:10:05")).toEqual([["2026-03-01T23:10:05.000Z", "2026-03-01T23:10:05.999Z"]]);
  });

  test("a time both days have: newest first", () => {
    const wide = { from: iso("2026-03-01T00:30:00Z"), to: iso("2026-03-02T01:30:00Z") };
    expect([...candidateWindows(parseWhen("01:00"), wide)].map(show)).toEqual([
      ["2026-03-02T01:00:00.000Z", "2026-03-02T01:00:59.999Z"],
      ["2026-03-01T01:00:00.000Z", "2026-03-01T01:00:59.999Z"],
    ]);
  });

  test("a range across midnight spans both days", () => {
    expect(all("23:50-00:10")).toEqual([["2026-03-01T23:50:00.000Z", "2026-03-02T00:10:59.999Z"]]);
  });

  test("a range across midnight reaches the day before the oldest turn", () => {
    const after = { from: iso("2026-03-02T00:05:00Z"), to: iso("2026-03-02T00:06:00Z") };
    expect([...candidateWindows(parseWhen("23:55-00:07"), after)].map(show)).toEqual([
      ["2026-03-01T23:55:00.000Z", "2026-03-02T00:07:59.999Z"],
    ]);
  });

  test("windows outside the span are not tried", () => {
    expect(all("12:00")).toEqual([]);
  });

  test("absolute times are used as they are", () => {
    expect(all("2026-02-01T00:00:00.000Z")).toEqual([
      ["2026-02-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"],
    ]);
  });
});

describe("formatting", () => {
  test("clock and ranges", () => {
    expect(formatClock(iso("2026-03-01T09:05:07.999Z"))).toBe("09:05:07");
    expect(formatRange(iso("2026-03-01T09:00:00Z"), iso("2026-03-01T09:12:00Z"))).toBe("09:00:00–09:12:00");
    expect(formatRange(iso("2026-03-01T23:00:00Z"), iso("2026-03-02T00:12:00Z"))).toBe(
      "2026-03-01 23:00:00 – 2026-03-02 00:12:00",
    );
  });

  test("--before accepts only ISO with a zone", () => {
    expect(parseIsoInstant("2026-03-01T09:00:00.123Z")).toBe(iso("2026-03-01T09:00:00.123Z"));
    expect(parseIsoInstant("2026-03-01T09:00:00")).toBeNull();
    expect(parseIsoInstant("yesterday")).toBeNull();
  });
});
