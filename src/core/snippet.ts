/**
 * What `search` cuts from the stored text (the FTS tables are contentless, so FTS5's own snippet()
 * has nothing to cut from): a one-line snippet around the first match, the context windows where
 * the terms meet, and the case pairs a query folds in SQL. Pure.
 */
import { foldCase } from "./fts-terms.ts";
import { formAt, type QueryTerm, termAt } from "./query.ts";

/** Characters of context on each side of the match in a one-line snippet. */
export const SNIPPET_CONTEXT = 90;
/**
 * Characters of context on each side of a match in a search result's window. Wide on purpose:
 * the fact a model searches for usually sits near the words it remembers, not on them, and
 * continuation recall measured on the corpus rose with the width (docs/search.md, "Windows").
 */
export const WINDOW_CONTEXT = 1000;

/** Case pairs folded in SQL at most: enough for any query in one alphabet. */
const FOLDS_MAX = 64;

/**
 * What SQL must replace, after its ASCII-only lower(), for the text to fold as `foldCase`
 * folds the terms: each non-ASCII letter of the folded terms with its upper case
 * (`Ä` → `ä`, `П` → `п`). Empty for ASCII terms, whose verification stays `lower()` alone.
 */
export function caseFolds(terms: readonly string[]): [from: string, to: string][] {
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const t of terms)
    for (const ch of foldCase(t)) {
      if (ch.charCodeAt(0) < 0x80 || seen.has(ch)) continue;
      seen.add(ch);
      const up = ch.toUpperCase();
      if (up !== ch && [...up].length === 1 && foldCase(up) === ch) out.push([up, ch]);
      if (out.length === FOLDS_MAX) return out;
    }
  return out;
}

/** A term as typed (a plain substring) or as parsed (its forms). */
export type Term = string | QueryTerm;

export function asTerm(t: Term): QueryTerm {
  return typeof t === "string" ? { text: t, forms: [{ s: foldCase(t), start: false }] } : t;
}

/** Where the first of the terms occurs, case-insensitively (longest term first); -1 when none does. */
function firstMatch(text: string, terms: readonly Term[]): { at: number; len: number } {
  const lower = foldCase(text);
  const longest = (t: QueryTerm) => Math.max(0, ...t.forms.map((f) => f.s.length));
  for (const t of terms.map(asTerm).sort((a, b) => longest(b) - longest(a))) {
    const m = termAt(text, lower, t);
    if (m.at >= 0) return m;
  }
  return { at: -1, len: 0 };
}

/**
 * `text[from, to)` on one line, widened to word boundaries when one is near (CJK text has
 * none: cut by characters there), with `…` where the text was cut. Tool inputs are stored as
 * JSON: their escaped newlines and quotes are shown as text.
 */
function cutLine(text: string, from: number, to: number): string {
  const after = text.slice(to, to + 16).search(/\s/);
  if (to < text.length && after >= 0) to += after;
  const before = text.slice(Math.max(0, from - 16), from).search(/\s\S*$/);
  if (from > 0 && before >= 0) from = Math.max(0, from - 16) + before + 1;
  // Do not cut a surrogate pair in half.
  if (from > 0 && /[\uDC00-\uDFFF]/.test(text[from] ?? "")) from--;
  if (to < text.length && /[\uD800-\uDBFF]/.test(text[to - 1] ?? "")) to++;
  const body = text
    .slice(from, to)
    .replace(/\\[nrt]/g, " ")
    .replace(/\\"/g, '"')
    .replace(/\s+/g, " ")
    .trim();
  return `${from > 0 ? "… " : ""}${body}${to < text.length ? " …" : ""}`;
}

/** One line of context around the first match, with `…` where the text was cut. */
export function snippet(text: string, terms: readonly Term[], context = SNIPPET_CONTEXT): string {
  const m = firstMatch(text, terms);
  const at = Math.max(m.at, 0);
  return cutLine(text, Math.max(0, at - context), Math.min(text.length, at + m.len + context));
}

/** A term longer than this shows its start and end only in a window. */
const WINDOW_TERM_MAX = 200;

/**
 * One line per cluster of matches: the first occurrence of each of `terms` in `text`, with
 * `context` characters on each side; occurrences whose windows touch share one line. Terms
 * not found (another fold than the index's) are left out. In the order of the text.
 */
export function windowsOf(text: string, terms: readonly Term[], context = WINDOW_CONTEXT): string[] {
  const folded = foldCase(text);
  const found = terms.map((t) => occurrencesOf(text, folded, asTerm(t)));
  const spans: { from: number; to: number }[] = [];
  // First where the most of the terms meet; then each term the meeting left out, where it first is.
  const meet = meetingPlace(found);
  const shown = new Set<number>();
  if (meet) {
    spans.push({ from: Math.max(0, meet.from - context), to: Math.min(text.length, meet.to + context) });
    for (const k of meet.terms) shown.add(k);
  }
  found.forEach((occ, k) => {
    const first = occ[0];
    if (first === undefined || shown.has(k)) return;
    const len = Math.min(first.len, WINDOW_TERM_MAX);
    spans.push({
      from: Math.max(0, first.at - context),
      to: Math.min(text.length, first.at + len + context),
    });
  });
  spans.sort((a, b) => a.from - b.from);
  const merged: { from: number; to: number }[] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else merged.push({ ...s });
  }
  return merged.map((s) => cutLine(text, s.from, s.to));
}

/** Occurrences of a term looked at for its meeting place with the others, the first ones. */
const OCCURRENCES_MAX = 64;
/** Terms within this many characters of each other meet (about a line of a log or a paragraph). */
const MEET_SPAN = 240;

/** Where a term occurs, in order, the first OCCURRENCES_MAX places. */
function occurrencesOf(text: string, folded: string, term: QueryTerm): { at: number; len: number }[] {
  const out: { at: number; len: number }[] = [];
  let forms = 0;
  for (const f of term.forms) {
    const before = out.length;
    for (let n = 0, at = formAt(text, folded, f); at >= 0 && n < OCCURRENCES_MAX; n++) {
      out.push({ at, len: f.s.length });
      at = formAt(text, folded, f, at + f.s.length);
    }
    if (out.length > before) forms++;
  }
  // One form's places are in order already, and at most OCCURRENCES_MAX.
  return forms <= 1 ? out : out.sort((a, b) => a.at - b.at).slice(0, OCCURRENCES_MAX);
}

/**
 * The span where the most distinct terms occur within MEET_SPAN of one another (the earliest such
 * span), with the terms it holds; null when no term occurs. This is the line a result shows
 * first: where the words the user remembers meet is where the fact they are after usually is.
 * Ranking reads it too (read/search-turns.ts), for rows it has not shown yet: so it sorts the
 * places natively (each encoded as one number) and slides one window over them, where each place
 * used to rebuild its own window. Terms past TERM_SLOTS are not looked at (a query has at most 30).
 */
export function meetingPlace(
  found: readonly { at: number; len: number }[][],
): { from: number; to: number; terms: number[] } | null {
  if (found.length > TERM_SLOTS) found = found.slice(0, TERM_SLOTS);
  let n = 0;
  for (const occ of found) n += occ.length;
  if (n === 0) return null;
  // (place, term, length) in one number: sorted by place, then term, as the places are read.
  if (keyBuffer.length < n) keyBuffer = new Float64Array(Math.max(n, keyBuffer.length * 2));
  const keys = keyBuffer.subarray(0, n);
  let i = 0;
  for (let k = 0; k < found.length; k++)
    for (const o of found[k]!)
      keys[i++] = (o.at * TERM_SLOTS + k) * LEN_SLOTS + Math.min(o.len, WINDOW_TERM_MAX);
  keys.sort();
  const placeOf = (key: number) => Math.floor(key / (TERM_SLOTS * LEN_SLOTS));
  const termOf = (key: number) => Math.floor(key / LEN_SLOTS) % TERM_SLOTS;
  // Each start's window holds the places within MEET_SPAN of it; the first start with the most
  // distinct terms wins. `held[k]` counts term k's places in the window.
  heldBuffer.fill(0);
  let distinct = 0;
  let hi = 0;
  let bestCount = 0;
  let bestStart = 0;
  let bestEnd = 0;
  for (let lo = 0; lo < n; lo++) {
    const from = placeOf(keys[lo]!);
    while (hi < n && placeOf(keys[hi]!) - from <= MEET_SPAN) {
      if (heldBuffer[termOf(keys[hi]!)]!++ === 0) distinct++;
      hi++;
    }
    if (distinct > bestCount) {
      bestCount = distinct;
      bestStart = lo;
      bestEnd = hi;
    }
    if (--heldBuffer[termOf(keys[lo]!)]! === 0) distinct--;
  }
  const from = placeOf(keys[bestStart]!);
  let to = from;
  const terms: number[] = [];
  for (let j = bestStart; j < bestEnd; j++) {
    const key = keys[j]!;
    if (!terms.includes(termOf(key))) terms.push(termOf(key));
    to = Math.max(to, placeOf(key) + (key % LEN_SLOTS));
  }
  return { from, to, terms };
}

/** Reused by every meetingPlace of a process: a search reads it for dozens of rows. */
let keyBuffer = new Float64Array(256);

/**
 * Terms a place's key has room for (COVERAGE_TERMS is 30), and lengths (WINDOW_TERM_MAX is 200):
 * a key stays an exact integer for any place below 2^31.
 */
const TERM_SLOTS = 64;
const LEN_SLOTS = 256;
const heldBuffer = new Int32Array(TERM_SLOTS);

/** How many of `terms` meet in `text` within MEET_SPAN of one another (meetingPlace). */
export function meetCount(text: string, terms: readonly Term[]): number {
  const folded = foldCase(text);
  return meetingPlace(terms.map((t) => occurrencesOf(text, folded, asTerm(t))))?.terms.length ?? 0;
}
