/**
 * Pure parts of `throughline search`: the trigram query and the substrings that verify it,
 * case folding, snippets and context windows cut from the stored text (the FTS tables are
 * contentless, so FTS5's own snippet() has nothing to cut from), the merge of ranked rows from
 * the three indexes and their ranking by turn (docs/search.md). What a query's words mean (their
 * forms, stop words, phrases) is core/query.ts.
 */

import { bm25Counts, foldCase, ftsToken, indexable, termTrigrams } from "./fts-terms.ts";
import type { MarkedHost } from "./host.ts";
import { type Form, type QueryTerm, wordStartAt } from "./query.ts";
import { asTerm, type Term } from "./snippet.ts";

export {
  asciiLower,
  bm25Scores,
  foldCase,
  indexable,
  type TextMatch,
  termTrigrams,
  textMatch,
  trigramQuery,
} from "./fts-terms.ts";

export const SEARCH_KINDS = ["l2", "l3", "events"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export function isSearchKind(v: string): v is SearchKind {
  return (SEARCH_KINDS as readonly string[]).includes(v);
}

/** Results shown when `--limit` is not given. */
export const SEARCH_DEFAULT_LIMIT = 10;
/**
 * Matching rows ranked per index and query: the newest this many. Walking a doclist newest
 * first is cheap; ranking every match of a common word on a large database is not.
 */
export const SEARCH_CANDIDATES = 200;
/**
 * With several terms, each term's own newest rows per index, this many: through them a turn
 * holding the terms in different rows is found (docs/search.md, "Ranking").
 */
export const SEARCH_TERM_CANDIDATES = 50;

/** Context windows shown under one result: one per matched term, this many at most. */
export const WINDOWS_MAX = 4;
/** Terms counted for a turn's coverage (a bit each); later ones still match, uncounted. */
export const COVERAGE_TERMS = 30;
/**
 * The first line of throughline's own push (src/core/context.ts renders it). Claude Code
 * records the UserPromptSubmit output as a hook attachment of the next turn; that copy is
 * never a search result (docs/search.md).
 */
export const PUSH_HEADING = "# Resume context (throughline)";

export interface SearchHit {
  kind: SearchKind;
  id: number;
  /** Lower is better (bm25). */
  score: number;
  /** `user`/`assistant`, an L3 kind and tool, or an event type. */
  label: string;
  text: string;
  session: string;
  origin: string;
  /** The host of the hit's session when it is not Claude Code (core/host.ts hostMark). */
  host?: MarkedHost;
  turnNumber: number | null;
  /** Time to pass to `detail`: the start of the turn holding the hit (else the hit's own time). */
  at: number;
  /** Time of the hit itself. */
  ts: number;
  /** A tool call's input or output: which call of its turn it is (1-based), of how many. */
  call?: { n: number; of: number };
}

/** A matching row before ranking: the head of its text, its full length and its time. */
export interface SearchCandidate {
  kind: SearchKind;
  id: number;
  head: string;
  length: number;
  ts: number;
  /** `user`/`assistant`, an L3 kind and tool, or an event type. */
  label: string;
  /** `origin:turn_number` of the turn holding the row, null for rows outside any turn. */
  turn: string | null;
  /**
   * Bits of the terms a query proved the row holds (it was found by that term's own query, on
   * the whole indexed text); the head adds what it holds.
   */
  terms?: number;
  /** Bits of the terms a query of their own forms (not a synonym) found in the row. */
  own?: number;
  /** foldCase(head), once something has needed it. */
  folded?: string;
}

export interface Ranked {
  kind: SearchKind;
  id: number;
  score: number;
  ts: number;
  label: string;
  turn: string | null;
  /** The terms the row holds, a bit per term (index in the query's terms). */
  terms: number;
  /** Of those, the terms held by their own forms, not only by a synonym. */
  own: number;
  /** Of those, the terms held as typed (core/query.ts QueryTerm.exact; seen in the row's head). */
  exact: number;
}

/**
 * How strongly a row or turn holds the query: a term held as typed counts three, by another of
 * its forms two (`migrat` for `migrations`), by a synonym only one (docs/search.md, "Ranking").
 */
export function strength(r: { terms: number; own: number; exact: number }): number {
  return bitCount(r.terms) + bitCount(r.own & r.terms) + bitCount(r.exact & r.terms);
}

/** How a parsed query reads the trigram index, and the clauses a row must satisfy. */
export interface TermsMatch {
  /** FTS5 query of single trigrams, or null when no term can be looked up by trigrams. */
  match: string | null;
  /** Every clause must hold: a clause holds when any one of its forms does (core/query.ts formAt). */
  clauses: Form[][];
}

/** Whether every form of a term can be looked up by its trigrams. */
export function termIndexable(term: QueryTerm): boolean {
  return term.forms.length > 0 && term.forms.every((f) => indexable(f.s));
}

/**
 * The index query for parsed terms, all of which must occur in a row: per term, any of its
 * forms (each by its covering trigrams). A term with a form too short for trigrams is left to
 * the clauses alone (docs/search.md, "Query rules").
 */
export function termsMatch(terms: readonly QueryTerm[]): TermsMatch {
  const groups: string[] = [];
  for (const t of terms) {
    if (!termIndexable(t)) continue;
    const forms = t.forms.map((f) => termTrigrams(f.s).map(ftsToken).join(" AND "));
    groups.push(forms.length === 1 ? `(${forms[0]})` : `(${forms.map((f) => `(${f})`).join(" OR ")})`);
  }
  return { match: groups.length > 0 ? groups.join(" AND ") : null, clauses: terms.map((t) => t.forms) };
}

/** One result of a grouped search: the best row of a turn, and every row of it that matched. */
export interface TurnGroup<T = Ranked> {
  best: T;
  /** Every matching row of the turn, best first (the first is `best`). */
  members: T[];
}

/**
 * One entry per turn, in the order of `ranked`: a turn's prompt, reply, tool outputs and
 * events would otherwise fill the top results with one turn. Rows outside any turn (`turnOf`
 * null) stand alone. Used by `recall <words>` (docs/activity.md) and, before it ranks the
 * turns, by `search` (rankTurns).
 */
export function groupByTurn<T = Ranked>(
  ranked: readonly T[],
  turnOf: (r: T) => string | null = (r) => (r as Ranked).turn,
): TurnGroup<T>[] {
  const groups: TurnGroup<T>[] = [];
  const byTurn = new Map<string, TurnGroup<T>>();
  for (const r of ranked) {
    const turn = turnOf(r);
    const g = turn === null ? undefined : byTurn.get(turn);
    if (g) {
      g.members.push(r);
      continue;
    }
    const fresh = { best: r, members: [r] };
    groups.push(fresh);
    if (turn !== null) byTurn.set(turn, fresh);
  }
  return groups;
}

/** How many bits are set (of a 32-bit mask), by arithmetic rather than a loop per bit. */
export function bitCount(bits: number): number {
  let v = bits - ((bits >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** What one index's candidates hold of the terms: per candidate (and term, for `counts`). */
interface ListScan {
  /** Places of term k in candidate i's head, at `i * terms + k`. */
  counts: Float64Array;
  held: Int32Array;
  own: Int32Array;
  exact: Int32Array;
}

/**
 * Per term, a candidate's head is scanned once over the term's forms: its places (for BM25; a
 * place two forms share counts once), whether any form holds it (`held`), its own forms (`own`;
 * a term of synonyms only, by any) and as typed (`exact`). A start-only form counts only at a
 * word start. No call per candidate and term but the string search itself: this runs interpreted
 * a few hundred times in a cold process (docs/search.md, "Speed").
 */
function scanList(list: readonly SearchCandidate[], terms: readonly QueryTerm[]): ListScan {
  const n = list.length;
  const nt = terms.length;
  const synonymsOnly = terms.map((t) => !t.forms.some((f) => !f.synonym));
  const places = new Set<number>();
  const scan: ListScan = {
    counts: new Float64Array(n * nt),
    held: new Int32Array(n),
    own: new Int32Array(n),
    exact: new Int32Array(n),
  };
  for (let i = 0; i < n; i++) {
    const c = list[i]!;
    const text = c.head;
    const folded = c.folded ?? foldCase(text);
    for (let k = 0; k < nt; k++) {
      const t = terms[k]!;
      const forms = t.forms;
      const bit = k < COVERAGE_TERMS ? 1 << k : 0;
      const several = forms.length > 1;
      if (several) places.clear();
      let count = 0;
      for (let j = 0; j < forms.length; j++) {
        const f = forms[j]!;
        const len = f.s.length;
        let at = folded.indexOf(f.s);
        while (at >= 0) {
          if (f.start && at > 0 && !wordStartAt(text, at)) {
            at = folded.indexOf(f.s, at + 1);
            continue;
          }
          if (!several || !places.has(at)) {
            if (several) places.add(at);
            count++;
            if (!f.synonym || synonymsOnly[k]) scan.own[i]! |= bit;
          }
          at = folded.indexOf(f.s, at + len);
        }
      }
      scan.counts[i * nt + k] = count;
      if (count > 0) scan.held[i]! |= bit;
      const ex = t.exact;
      if (ex === undefined) {
        if (count > 0) scan.exact[i]! |= bit;
        continue;
      }
      for (let at = folded.indexOf(ex.s); at >= 0; at = folded.indexOf(ex.s, at + 1))
        if (!ex.start || at === 0 || wordStartAt(text, at)) {
          scan.exact[i]! |= bit;
          break;
        }
    }
  }
  return scan;
}

/**
 * Rank each index's candidates by BM25 (within the index: lengths differ by kind), then merge:
 * the rows holding more of the terms first (SearchCandidate.terms and the terms its head
 * holds), then best score, ties newest first. Returns every candidate in that order.
 */
export function rankCandidates(
  lists: readonly (readonly SearchCandidate[])[],
  given: readonly Term[],
): Ranked[] {
  const terms = given.map(asTerm);
  const nt = terms.length;
  const all: Ranked[] = [];
  const strengths: number[] = [];
  for (const list of lists) {
    const n = list.length;
    if (n === 0) continue;
    const { counts, held, own, exact } = scanList(list, terms);
    const scores = bm25Counts(list, counts, nt);
    for (let i = 0; i < n; i++) {
      const c = list[i]!;
      // The index tests a start-only form as a substring (db/queries/search.ts): where the head is
      // the whole text, what it holds is exact; past the head, the query's word for it is taken.
      const whole = c.head.length >= c.length;
      const r: Ranked = {
        kind: c.kind,
        id: c.id,
        score: scores[i]!,
        ts: c.ts,
        label: c.label,
        turn: c.turn,
        terms: whole ? held[i]! : held[i]! | (c.terms ?? 0),
        own: own[i]! | (whole ? 0 : (c.own ?? 0)),
        exact: exact[i]!,
      };
      all.push(r);
      strengths.push(strength(r));
    }
  }
  // Rows before turns: more of the terms first, then bm25, then newest; each row's strength is
  // computed once, not per comparison.
  const order = all.map((_, i) => i);
  order.sort((x, y) => {
    const a = all[x]!;
    const b = all[y]!;
    return strengths[y]! - strengths[x]! || a.score - b.score || b.ts - a.ts || b.id - a.id;
  });
  return order.map((i) => all[i]!);
}

/** A turn of a search: its matching rows, best first, and the terms they hold together. */
export interface RankedTurn extends TurnGroup<Ranked> {
  /** Bits of the terms the turn's rows hold between them. */
  terms: number;
  /** Of those, held by their own forms; and as typed (Ranked.own, Ranked.exact). */
  own: number;
  exact: number;
  /**
   * How widely the turn holds the terms: for each term, its idf over the candidate turns times
   * log(1 + the turn's rows holding it), a prompt or reply row counting double.
   */
  spread: number;
}

/** A prompt or reply holding a term says what the turn is about; a tool output may only mention it. */
const L2_WEIGHT = 2;

/**
 * The turns of the ranked rows, best first (docs/search.md, "Ranking"):
 * 1. the turn holding the most distinct terms across all its rows (prompt, reply, tool calls
 *    and outputs, events);
 * 2. the turn whose best row holds the most of them together;
 * 3. the widest spread of the terms over the turn's rows (RankedTurn.spread);
 * 4. the best row's bm25; 5. the newest.
 * A row outside any turn is a turn of its own. `ranked` is in rankCandidates' order (a turn's
 * rows best first).
 */
export function rankTurns(ranked: readonly Ranked[], termCount: number): RankedTurn[] {
  const n = Math.min(termCount, COVERAGE_TERMS);
  const turns: (RankedTurn & { key: number })[] = [];
  const byTurn = new Map<string, number>();
  // Per turn and term: its rows holding the term, prompt and reply rows weighted (a turn per row at most).
  const weights = new Float64Array(ranked.length * n);
  for (let j = 0; j < ranked.length; j++) {
    const r = ranked[j]!;
    let k = r.turn === null ? undefined : byTurn.get(r.turn);
    if (k === undefined) {
      k = turns.length;
      turns.push({ best: r, members: [], terms: 0, own: 0, exact: 0, spread: 0, key: 0 });
      if (r.turn !== null) byTurn.set(r.turn, k);
    }
    const t = turns[k]!;
    t.members.push(r);
    t.terms |= r.terms;
    t.own |= r.own;
    t.exact |= r.exact;
    const w = r.kind === "l2" ? L2_WEIGHT : 1;
    for (let i = 0; i < n; i++) if ((r.terms & (1 << i)) !== 0) weights[k * n + i]! += w;
  }
  // log(1 + w) by w: a turn's weights are small whole numbers, so most are looked up, not computed.
  const log1p: number[] = [];
  for (let i = 0; i < n; i++) {
    let df = 0;
    for (let k = 0; k < turns.length; k++) if (weights[k * n + i]! > 0) df++;
    const idf = Math.log(1 + (turns.length - df + 0.5) / (df + 0.5));
    for (let k = 0; k < turns.length; k++) {
      const w = weights[k * n + i]!;
      if (w === 0) continue;
      let lw = log1p[w];
      if (lw === undefined) {
        lw = Math.log(1 + w);
        log1p[w] = lw;
      }
      turns[k]!.spread += idf * lw;
    }
  }
  // Terms held, then terms in the best row, then spread (< 1e6: 30 terms, each idf × log < 1e3).
  for (let k = 0; k < turns.length; k++) {
    const t = turns[k]!;
    t.key = strength(t) * 1e8 + strength(t.best) * 1e6 + t.spread;
  }
  turns.sort(
    (a, b) => b.key - a.key || a.best.score - b.best.score || b.best.ts - a.best.ts || b.best.id - a.best.id,
  );
  return turns;
}

/**
 * The rows to cut a turn's windows from: the fewest, best first, that show each term the turn
 * holds (at most `max` terms, of those in `mask`), each with the terms it is to show.
 */
export function windowRows(turn: RankedTurn, max = WINDOWS_MAX, mask = -1): { row: Ranked; terms: number }[] {
  let left = turn.terms & mask;
  let room = max;
  const out: { row: Ranked; terms: number }[] = [];
  for (const m of turn.members) {
    if (left === 0 || room === 0) break;
    let gain = 0;
    for (let b = m.terms & left; b !== 0 && room > 0; b &= b - 1) {
      gain |= b & -b;
      room--;
    }
    if (gain === 0) continue;
    out.push({ row: m, terms: gain });
    left &= ~gain;
  }
  return out;
}

/** The terms whose bits are set, in query order. */
export function termsOf<T>(bits: number, terms: readonly T[]): T[] {
  return terms.filter((_, i) => i < COVERAGE_TERMS && (bits & (1 << i)) !== 0);
}

/** An event as searchable text: its summary, then the string and number values of its detail. */
export function eventText(summary: string, detailJson: string): string {
  const values: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") values.push(v);
    else if (typeof v === "number") values.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
  };
  try {
    walk(JSON.parse(detailJson));
  } catch {
    values.push(detailJson);
  }
  return [summary, ...values].join("\n");
}
