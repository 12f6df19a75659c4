/**
 * "Did you mean …?" for a mistyped command or flag name (docs/contract.md: an unknown name is an
 * error naming it, never a silent guess). Pure.
 */
import { foldCase } from "./fts-terms.ts";

/** Edit distance with adjacent transpositions (`hepl` → `help` is one edit). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `given`: a unique name it starts (`sess` → `session`), else the
 * nearest within a third of its length (at least one edit, at most two); null when none is close.
 */
export function closestName(given: string, known: readonly string[]): string | null {
  const word = given.toLowerCase();
  if (word === "") return null;
  const starts = known.filter((k) => k.startsWith(word));
  if (starts.length === 1) return starts[0]!;
  const limit = Math.min(2, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = editDistance(word, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** A word of the memory close to one that no row holds, and how often it occurs where it was looked for. */
export interface NearWord {
  word: string;
  count: number;
}

/** Plain words shorter than this get no nearest words (nearestWords). */
const NEAR_MIN = 6;

/** Letters, digits and `_`: the words an identifier-like query word is compared with. */
const WORD_RUN = /[\p{L}\p{N}_]+/gu;
/** Also `.`, `-` and `/` inside a word, for a query word that holds them (a path, `create-next-app`). */
const NAME_RUN = /[\p{L}\p{N}_](?:[\p{L}\p{N}_.\-/]*[\p{L}\p{N}_])?/gu;

/**
 * Whether a query word no row holds is looked into for the words near it. A short plain word has
 * real words an edit away (`choke`: chose, chore): it was more likely meant than mistyped. A name
 * (a capital, a digit, `_./-`) or a longer word may be a typo.
 */
export function mayBeMistyped(given: string): boolean {
  return [...given].length >= NEAR_MIN || /[A-Z0-9_./-]/.test(given);
}

/**
 * The words of `texts` nearest to `given`, a query word no row holds (docs/search.md, "Nearest
 * words"): a typo or a variant of a word the memory does hold (`refrshToken` → `refreshToken`).
 * Within a quarter of its length in edits (1 to 3), nearest first, then the most frequent, at most
 * `max`. Case is ignored in the comparison; a word is shown as it is first written. Pure.
 */
export function nearestWords(given: string, texts: readonly string[], max = 3): NearWord[] {
  if (!mayBeMistyped(given)) return [];
  // The index's own folding (src/core/fts-terms.ts): a word compares as search matches it.
  const target = foldCase(given);
  const limit = Math.max(1, Math.min(3, Math.floor(target.length / 4)));
  const run = /[.\-/]/.test(target) ? NAME_RUN : WORD_RUN;
  const seen = new Map<string, { word: string; count: number; distance: number }>();
  for (const text of texts)
    for (const m of text.matchAll(run)) {
      const word = m[0];
      const folded = foldCase(word);
      const known = seen.get(folded);
      if (known) {
        known.count++;
        continue;
      }
      // A typo seldom hits the first letter: one that differs there is another word.
      const distance =
        folded === target || folded[0] !== target[0] || Math.abs(folded.length - target.length) > limit
          ? Number.POSITIVE_INFINITY
          : editDistance(target, folded);
      seen.set(folded, { word, count: 1, distance });
    }
  return [...seen.values()]
    .filter((w) => w.distance <= limit)
    .sort((a, b) => a.distance - b.distance || b.count - a.count || (a.word < b.word ? -1 : 1))
    .slice(0, max)
    .map(({ word, count }) => ({ word, count }));
}

/** A typed word no row of the scope holds, and the words of the scope near it (nearestWords). */
export interface Unheld {
  term: string;
  near: NearWord[];
}

/** How `search` and the web view name the near words: `refreshAccessToken ×4, refreshToken ×1`. */
export function nearList(near: readonly NearWord[]): string {
  return near.map((n) => `${n.word} ×${n.count}`).join(", ");
}

/**
 * The query again with each word no row holds replaced by the nearest word the scope holds, or
 * null when none has one (docs/search.md, "Nearest words"). A word or name is replaced where it
 * stands whole, every time and in any case, in one pass: `token` inside `tokens` stays, and a word
 * inside a path (`validaton` in `src/validaton.ts`) stays for the path's own replacement. A term of
 * several words (a phrase) is replaced where it first stands whole.
 */
export function withNearest(given: readonly string[], unheld: readonly Unheld[]): string[] | null {
  const swaps = unheld.filter((u) => u.near.length > 0);
  if (swaps.length === 0) return null;
  const tokens = new Map<string, string>();
  const spans: Unheld[] = [];
  for (const u of swaps) {
    if (u.term.match(NAME_RUN)?.[0] === u.term) tokens.set(foldCase(u.term), u.near[0]!.word);
    else spans.push(u);
  }
  return given.map((arg) =>
    spans.reduce(
      (text, u) => {
        const at = wholeWordAt(text, u.term);
        return at < 0 ? text : text.slice(0, at) + u.near[0]!.word + text.slice(at + u.term.length);
      },
      tokens.size === 0 ? arg : arg.replace(NAME_RUN, (t) => tokens.get(foldCase(t)) ?? t),
    ),
  );
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Where `word` first stands whole in `text` (not inside a longer word), or -1. */
function wholeWordAt(text: string, word: string): number {
  const inWord = (ch: string | undefined) => ch !== undefined && WORD_CHAR.test(ch);
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1))
    if (!inWord(text[at - 1]) && !inWord(text[at + word.length])) return at;
  return -1;
}
