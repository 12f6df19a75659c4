/**
 * The ranking of `search` (core/search.ts rankCandidates, rankTurns) is written for a cold
 * process: one pass per candidate and term, no call per form, bit counts by arithmetic
 * (docs/search.md, "Speed"). Here it is held to a plain statement of the same rules: every
 * form's places through formAt, FTS5's BM25 formula term by term, strength through a loop per bit. On
 * generated candidates (forms at and inside words, camelCase, several forms sharing places,
 * synonyms, heads cut short, non-ASCII) both give the same rows, scores, bits and order.
 */
import { describe, expect, test } from "bun:test";
import { foldCase } from "../../src/core/fts-terms.ts";
import { formAt, type QueryTerm } from "../../src/core/query.ts";
import {
  bitCount,
  COVERAGE_TERMS,
  type Ranked,
  rankCandidates,
  rankTurns,
  type SearchCandidate,
  type SearchKind,
  strength,
} from "../../src/core/search.ts";

function loopCount(bits: number): number {
  let n = 0;
  for (let b = bits; b !== 0; b &= b - 1) n++;
  return n;
}

const plainStrength = (r: { terms: number; own: number; exact: number }) =>
  loopCount(r.terms) + loopCount(r.own & r.terms) + loopCount(r.exact & r.terms);

/** FTS5's bm25 (k1 1.2, b 0.75) from term frequencies `tf[term][doc]`; lower is better. */
function plainBm25(docs: readonly { length: number }[], tf: readonly (readonly number[])[]): number[] {
  const n = docs.length;
  const avg = docs.reduce((a, d) => a + d.length, 0) / n || 1;
  const idf = tf.map((col) => {
    const df = col.filter((c) => c > 0).length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  return docs.map((d, i) => {
    let s = 0;
    tf.forEach((col, k) => {
      const f = col[i]!;
      if (f > 0) s += (idf[k]! * (f * 2.2)) / (f + 1.2 * (0.25 + (0.75 * d.length) / avg));
    });
    return -s;
  });
}

/** The rows' ranking as docs/search.md "Ranking" states it, one helper per rule. */
function plainRank(lists: readonly (readonly SearchCandidate[])[], terms: readonly QueryTerm[]): Ranked[] {
  const all: Ranked[] = [];
  for (const list of lists) {
    const scans = list.map((c) => {
      const folded = foldCase(c.head);
      const counts: number[] = [];
      let held = 0;
      let own = 0;
      let exact = 0;
      terms.forEach((t, i) => {
        const bit = i < COVERAGE_TERMS ? 1 << i : 0;
        const places = new Set<number>();
        for (const f of t.forms)
          for (let at = formAt(c.head, folded, f); at >= 0; at = formAt(c.head, folded, f, at + f.s.length)) {
            if (places.has(at)) continue;
            places.add(at);
            if (!f.synonym || t.forms.every((g) => g.synonym)) own |= bit;
          }
        counts.push(places.size);
        if (places.size > 0) held |= bit;
        if (t.exact ? formAt(c.head, folded, t.exact) >= 0 : places.size > 0) exact |= bit;
      });
      return { counts, held, own, exact };
    });
    const scores = plainBm25(
      list,
      terms.map((_, k) => scans.map((s) => s.counts[k]!)),
    );
    list.forEach((c, i) => {
      const whole = c.head.length >= c.length;
      const s = scans[i]!;
      all.push({
        kind: c.kind,
        id: c.id,
        score: scores[i]!,
        ts: c.ts,
        label: c.label,
        turn: c.turn,
        terms: whole ? s.held : s.held | (c.terms ?? 0),
        own: s.own | (whole ? 0 : (c.own ?? 0)),
        exact: s.exact,
      });
    });
  }
  return all.sort(
    (a, b) => plainStrength(b) - plainStrength(a) || a.score - b.score || b.ts - a.ts || b.id - a.id,
  );
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "migration",
  "migrate",
  "Migrations",
  "test",
  "latest",
  "runTests",
  "token",
  "refreshAccessToken",
  "lint",
  "eslint",
  "biome",
  "cache",
  "caching",
  "Straße",
  "STRASSE",
  "ΣΊΣΥΦΟΣ",
  "日本語",
  "x",
  "the",
  "a-b_c",
];

const TERMS: QueryTerm[] = [
  { text: "migrations", forms: [{ s: "migrat", start: false }], exact: { s: "migrations", start: true } },
  { text: "test", forms: [{ s: "test", start: true }], exact: { s: "test", start: true } },
  {
    text: "linter",
    forms: [
      { s: "lint", start: true },
      { s: "eslint", start: false, synonym: true },
      { s: "biome", start: false, synonym: true },
    ],
    exact: { s: "linter", start: true },
  },
  { text: "refreshAccessToken", forms: [{ s: "refreshaccesstoken", start: false }], whole: true },
  {
    text: "cach",
    forms: [
      { s: "cach", start: true },
      { s: "cache", start: true },
    ],
  },
  { text: "straße", forms: [{ s: "straße", start: false }] },
  { text: "σίσυφος", forms: [{ s: "σίσυφος", start: false, synonym: true }] },
];

function candidates(next: () => number, kind: SearchKind, n: number, base: number): SearchCandidate[] {
  const out: SearchCandidate[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from(
      { length: 1 + Math.floor(next() * 12) },
      () => WORDS[Math.floor(next() * WORDS.length)]!,
    );
    const text = words.join(next() < 0.5 ? " " : "");
    const cut = next() < 0.2 ? Math.floor(text.length / 2) : text.length;
    out.push({
      kind,
      id: base + i,
      head: text.slice(0, cut),
      length: text.length + (cut < text.length ? 0 : Math.floor(next() * 3)),
      ts: Math.floor(next() * 4),
      label: kind,
      turn: next() < 0.1 ? null : `s:${Math.floor(next() * 8)}`,
      terms: Math.floor(next() * 128),
      own: Math.floor(next() * 128),
    });
  }
  return out;
}

describe("ranking written for a cold process", () => {
  test("bit counts by arithmetic equal a loop per bit", () => {
    const next = rng(7);
    for (let i = 0; i < 20_000; i++) {
      const v = Math.floor(next() * 2 ** 32) | 0;
      expect(bitCount(v)).toBe(loopCount(v));
      const r = { terms: v, own: Math.floor(next() * 2 ** 30), exact: Math.floor(next() * 2 ** 30) };
      expect(strength(r)).toBe(plainStrength(r));
    }
  });

  test("rows and turns rank as the plain statement of the rules does", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = rng(seed);
      const terms = TERMS.filter(() => next() < 0.6);
      if (terms.length === 0) terms.push(TERMS[0]!);
      const lists = (["l2", "l3", "events"] as const).map((k, i) =>
        candidates(next, k, Math.floor(next() * 40), i * 1000),
      );
      const fast = rankCandidates(lists, terms);
      const plain = plainRank(lists, terms);
      expect(fast).toEqual(plain);
      const turns = rankTurns(fast, terms.length);
      expect(
        turns.map((t) => [t.best.id, t.members.map((m) => m.id), t.terms, t.own, t.exact, t.spread]),
      ).toEqual(plainTurns(plain, terms.length));
    }
  });
});

/** rankTurns as docs/search.md states it: a turn's rows, its terms, spread by idf × log(1 + rows). */
function plainTurns(ranked: readonly Ranked[], termCount: number) {
  const n = Math.min(termCount, COVERAGE_TERMS);
  const turns: { best: Ranked; members: Ranked[]; terms: number; own: number; exact: number; w: number[] }[] =
    [];
  const byTurn = new Map<string, (typeof turns)[number]>();
  for (const r of ranked) {
    let t = r.turn === null ? undefined : byTurn.get(r.turn);
    if (!t) {
      t = { best: r, members: [], terms: 0, own: 0, exact: 0, w: new Array(n).fill(0) };
      turns.push(t);
      if (r.turn !== null) byTurn.set(r.turn, t);
    }
    t.members.push(r);
    t.terms |= r.terms;
    t.own |= r.own;
    t.exact |= r.exact;
    for (let i = 0; i < n; i++) if ((r.terms & (1 << i)) !== 0) t.w[i]! += r.kind === "l2" ? 2 : 1;
  }
  const spread = turns.map(() => 0);
  for (let i = 0; i < n; i++) {
    const df = turns.filter((t) => t.w[i]! > 0).length;
    const idf = Math.log(1 + (turns.length - df + 0.5) / (df + 0.5));
    turns.forEach((t, k) => {
      if (t.w[i]! > 0) spread[k]! += idf * Math.log(1 + t.w[i]!);
    });
  }
  const keyed = turns.map((t, k) => ({
    t,
    spread: spread[k]!,
    key: plainStrength(t) * 1e8 + plainStrength(t.best) * 1e6 + spread[k]!,
  }));
  keyed.sort(
    (a, b) =>
      b.key - a.key ||
      a.t.best.score - b.t.best.score ||
      b.t.best.ts - a.t.best.ts ||
      b.t.best.id - a.t.best.id,
  );
  return keyed.map(({ t, spread }) => [
    t.best.id,
    t.members.map((m) => m.id),
    t.terms,
    t.own,
    t.exact,
    spread,
  ]);
}
