/**
 * Where the terms meet (core/snippet.ts meetingPlace), held to a plain statement of the rule on
 * generated places: for each place in order, the window of places within MEET_SPAN after it; the
 * first window holding the most distinct terms; its terms in the order they first occur there,
 * and its end the furthest end of a place in it (a term's length counted up to 200 characters).
 */
import { describe, expect, test } from "bun:test";
import { meetCount, meetingPlace } from "../../src/core/snippet.ts";

const MEET_SPAN = 240;
const WINDOW_TERM_MAX = 200;

function oracle(
  found: { at: number; len: number }[][],
): { from: number; to: number; terms: number[] } | null {
  const all = found
    .flatMap((occ, k) => occ.map((o) => ({ ...o, k })))
    .sort((a, b) => a.at - b.at || a.k - b.k || a.len - b.len);
  let best: { from: number; to: number; terms: number[] } | null = null;
  for (let i = 0; i < all.length; i++) {
    const terms: number[] = [];
    let to = all[i]!.at;
    for (let j = i; j < all.length && all[j]!.at - all[i]!.at <= MEET_SPAN; j++) {
      if (!terms.includes(all[j]!.k)) terms.push(all[j]!.k);
      to = Math.max(to, all[j]!.at + Math.min(all[j]!.len, WINDOW_TERM_MAX));
    }
    if (!best || terms.length > best.terms.length) best = { from: all[i]!.at, to, terms };
  }
  return best;
}

/** A small deterministic generator (no Math.random: a failure replays). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("meetingPlace", () => {
  test("matches the rule on 500 generated sets of places, ties and long terms included", () => {
    const r = rng(44);
    for (let n = 0; n < 500; n++) {
      const terms = 1 + Math.floor(r() * 6);
      const width = [300, 1000, 4096, 32768][n % 4]!;
      const found = Array.from({ length: terms }, () => {
        const count = Math.floor(r() * 8);
        const occ = Array.from({ length: count }, () => ({
          // coarse places make ties of place (and of place and term) common
          at: Math.floor(r() * (width / 10)) * 10,
          len: r() < 0.1 ? 200 + Math.floor(r() * 200) : 1 + Math.floor(r() * 20),
        }));
        return occ.sort((a, b) => a.at - b.at);
      });
      expect(meetingPlace(found)).toEqual(oracle(found));
    }
  });

  test("none found: null; the first of equal windows wins", () => {
    expect(meetingPlace([[], []])).toBeNull();
    const found = [
      [
        { at: 0, len: 3 },
        { at: 1000, len: 3 },
      ],
      [
        { at: 100, len: 4 },
        { at: 1100, len: 4 },
      ],
    ];
    expect(meetingPlace(found)).toEqual({ from: 0, to: 104, terms: [0, 1] });
  });

  test("meetCount: the terms that meet within a line of one another", () => {
    const text = `deploy failed early. ${"filler ".repeat(60)} the canary rollout of the deploy stalled`;
    const terms = ["canary", "deploy", "stalled"];
    expect(meetCount(text, terms)).toBe(3);
    expect(meetCount(`canary ${"x".repeat(400)} stalled`, ["canary", "stalled"])).toBe(1);
    expect(meetCount("nothing here", ["canary"])).toBe(0);
  });
});
