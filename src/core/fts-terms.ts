/**
 * How words are looked up in the trigram indexes (docs/search.md, "The indexes"): the covering
 * trigrams of a term, the FTS5 query of terms and the substrings that verify it, and BM25 over
 * candidate texts. Apart from core/search.ts so that a hook writing events (db/queries/events.ts)
 * loads this and not the query rules. Pure.
 */

/**
 * Lower case by code point, keeping every offset: a character whose lower case has another
 * length (`İ`) stays as it is, and `Σ` is always `σ` (JavaScript's toLowerCase() makes a
 * final one `ς`). ASCII folds as SQLite's lower() does. Offsets in the folded text are offsets
 * in the original, which is what snippets cut by.
 */
export function foldCase(s: string): string {
  const lower = s.toLowerCase();
  if (lower.length === s.length && !s.includes("Σ")) return lower;
  let out = "";
  for (const ch of s) {
    const l = ch.toLowerCase();
    out += l.length === ch.length ? l : ch;
  }
  return out;
}

/** Terms of at least this many characters are looked up in the trigram index. */
export const TRIGRAM_MIN = 3;

/** A trigram as an FTS5 string: one token, so no phrase query (the indexes keep no positions). */
export function ftsToken(trigram: string): string {
  return `"${trigram.replace(/"/g, '""')}"`;
}

/**
 * Non-overlapping trigrams covering a term, by code point (what the trigram tokenizer cuts):
 * `refreshAccessToken` → ref, res, hAc, ces, sTo, ken. Every row holding the term holds
 * them all; the few rows that hold them apart are removed by the substring test.
 */
export function termTrigrams(term: string): string[] {
  const cps = [...term];
  const out: string[] = [];
  for (let i = 0; i + TRIGRAM_MIN <= cps.length; i += TRIGRAM_MIN) out.push(cps.slice(i, i + 3).join(""));
  if (cps.length % TRIGRAM_MIN !== 0) out.push(cps.slice(cps.length - TRIGRAM_MIN).join(""));
  return [...new Set(out)];
}

/**
 * An FTS5 query that every row holding `word` matches (its covering trigrams, AND), or null
 * when `word` is too short for the trigram index.
 */
export function trigramQuery(word: string): string | null {
  if ([...word].length < TRIGRAM_MIN) return null;
  return termTrigrams(word).map(ftsToken).join(" AND ");
}

/** Whether `term` is long enough for the trigram index. */
export function indexable(term: string): boolean {
  return [...term].length >= TRIGRAM_MIN;
}

/** SQLite's lower(): ASCII letters only, so a term and `lower(text)` fold alike. */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** How a query reads the trigram index, and what the caller must verify on the text. */
export interface TextMatch {
  /** FTS5 query of single trigrams (AND within a term), or null when every term is too short. */
  match: string | null;
  /** Lower-cased terms (by `fold`) to find as substrings of the text (`lower(text)`). */
  substrings: string[];
  /** The text must hold any one of `substrings` rather than all of them. */
  anySubstring: boolean;
}

/**
 * The index query for terms (all must occur, or any with `any`). The FTS5 tables keep no
 * positions (`detail=none`, docs/search.md), so a term is looked up
 * by its covering trigrams and then verified as a substring of the row's text; that test is
 * what makes a match exact. The substrings are folded by `fold`: ASCII-only by default, like
 * SQLite's lower(); `search` passes `foldCase` and folds the text to match (`caseFolds`).
 * With `any`, terms too short for trigrams are dropped when a longer one exists
 * (they would turn back into a requirement): the long ones decide alone.
 */
export function textMatch(
  terms: readonly string[],
  any = false,
  fold: (s: string) => string = asciiLower,
): TextMatch {
  const groups: string[] = [];
  const long: string[] = [];
  const short: string[] = [];
  for (const t of terms) {
    if (!indexable(t)) short.push(fold(t));
    else {
      const grams = termTrigrams(t).map(ftsToken);
      groups.push(grams.length > 1 && any ? `(${grams.join(" AND ")})` : grams.join(" AND "));
      long.push(fold(t));
    }
  }
  if (groups.length === 0) return { match: null, substrings: short, anySubstring: false };
  if (any) return { match: groups.join(" OR "), substrings: long, anySubstring: long.length > 1 };
  return { match: groups.join(" AND "), substrings: [...long, ...short], anySubstring: false };
}

/** FTS5's bm25 constants. */
const K1 = 1.2;
const B = 0.75;

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/**
 * Okapi BM25 (FTS5's formula and constants) over candidate documents: `text` is what is
 * scanned for the terms (may be a head of the document), `length` the document's full length.
 * Lower is better, as with FTS5's bm25(). Computed here rather than by FTS5 because bm25()
 * first scans every row of the index holding the query's trigrams to count document
 * frequencies, which costs tens of milliseconds for common words on a large database.
 */
export function bm25Scores(
  docs: readonly { text: string; length: number }[],
  terms: readonly string[],
): number[] {
  return bm25Folded(
    docs.map((d) => d.text.toLowerCase()),
    docs,
    terms.map((t) => t.toLowerCase()),
  );
}

/** bm25Scores over texts and terms already folded alike. */
function bm25Folded(
  lowered: readonly string[],
  docs: readonly { length: number }[],
  folded: readonly string[],
): number[] {
  const ts = folded.filter((t) => t.length > 0);
  const counts = new Float64Array(docs.length * ts.length);
  lowered.forEach((x, i) => {
    ts.forEach((t, k) => {
      counts[i * ts.length + k] = occurrences(x, t);
    });
  });
  return bm25Counts(docs, counts, ts.length);
}

/**
 * Okapi BM25 (FTS5's formula and constants) from term frequencies: `counts[i * terms + k]` is how
 * often term k occurs in document i, whose full length is `docs[i].length`. Lower is better. The
 * one formula of bm25Scores and of `search`'s parsed terms (core/search.ts rankCandidates); plain
 * loops, as it runs per candidate in a cold process (docs/search.md, "Speed").
 */
export function bm25Counts(
  docs: readonly { length: number }[],
  counts: ArrayLike<number>,
  terms: number,
): number[] {
  const n = docs.length;
  if (n === 0) return [];
  let lengths = 0;
  for (let i = 0; i < n; i++) lengths += docs[i]!.length;
  const avg = lengths / n || 1;
  const idf = new Float64Array(terms);
  for (let k = 0; k < terms; k++) {
    let df = 0;
    for (let i = 0; i < n; i++) if (counts[i * terms + k]! > 0) df++;
    idf[k] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }
  const scores: number[] = [];
  for (let i = 0; i < n; i++) {
    const norm = K1 * (1 - B + (B * docs[i]!.length) / avg);
    let s = 0;
    for (let k = 0; k < terms; k++) {
      const f = counts[i * terms + k]!;
      if (f > 0) s += (idf[k]! * (f * (K1 + 1))) / (f + norm);
    }
    scores.push(-s);
  }
  return scores;
}
