/**
 * Pure parts of `throughline search`: the trigram query and the substrings that verify it,
 * snippets cut from the stored text (the FTS tables are contentless, so FTS5's own snippet()
 * has nothing to cut from), the merge of ranked hits from the three indexes and their grouping
 * by turn.
 */

export const SEARCH_KINDS = ["l2", "l3", "events"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export function isSearchKind(v: string): v is SearchKind {
  return (SEARCH_KINDS as readonly string[]).includes(v);
}

/** Results shown when `--limit` is not given. */
export const SEARCH_DEFAULT_LIMIT = 10;
/**
 * Matching rows ranked per index: the newest this many. Walking a doclist newest first is
 * cheap; ranking every match of a common word on a large database is not.
 */
export const SEARCH_CANDIDATES = 200;
/** Characters of context on each side of the match in a snippet. */
export const SNIPPET_CONTEXT = 90;

export interface SearchHit {
  kind: SearchKind;
  id: number;
  /** bm25: lower is better. Substring-only matches score 0. */
  score: number;
  /** `user`/`assistant`, an L3 kind and tool, or an event type. */
  label: string;
  text: string;
  session: string;
  origin: string;
  turnNumber: number | null;
  /** Time to pass to `detail`: the start of the turn holding the hit (else the hit's own time). */
  at: number;
  /** Time of the hit itself. */
  ts: number;
}

/** Where the first of the terms occurs, case-insensitively (longest term first); -1 when none does. */
function firstMatch(text: string, terms: readonly string[]): { at: number; len: number } {
  const lower = text.toLowerCase();
  for (const t of [...terms].sort((a, b) => b.length - a.length)) {
    const at = lower.indexOf(t.toLowerCase());
    if (at >= 0) return { at, len: t.length };
  }
  return { at: -1, len: 0 };
}

/** One line of context around the first match, with `…` where the text was cut. */
export function snippet(text: string, terms: readonly string[], context = SNIPPET_CONTEXT): string {
  const m = firstMatch(text, terms);
  const at = Math.max(m.at, 0);
  let from = Math.max(0, at - context);
  let to = Math.min(text.length, at + m.len + context);
  // End on word boundaries when one is near (CJK text has none: cut by characters there).
  const after = text.slice(to, to + 16).search(/\s/);
  if (to < text.length && after >= 0) to += after;
  const before = text.slice(Math.max(0, from - 16), from).search(/\s\S*$/);
  if (from > 0 && before >= 0) from = Math.max(0, from - 16) + before + 1;
  // Do not cut a surrogate pair in half.
  if (from > 0 && /[\uDC00-\uDFFF]/.test(text[from] ?? "")) from--;
  if (to < text.length && /[\uD800-\uDBFF]/.test(text[to - 1] ?? "")) to++;
  // Tool inputs are stored as JSON: show their escaped newlines and quotes as text.
  const body = text
    .slice(from, to)
    .replace(/\\[nrt]/g, " ")
    .replace(/\\"/g, '"')
    .replace(/\s+/g, " ")
    .trim();
  return `${from > 0 ? "… " : ""}${body}${to < text.length ? " …" : ""}`;
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
}

export interface Ranked {
  kind: SearchKind;
  id: number;
  score: number;
  ts: number;
  label: string;
  turn: string | null;
}

/** Terms of at least this many characters are looked up in the trigram index. */
const TRIGRAM_MIN = 3;

/** A trigram as an FTS5 string: one token, so no phrase query (the indexes keep no positions). */
function ftsToken(trigram: string): string {
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

/** SQLite's lower(): ASCII letters only, so a term and `lower(text)` fold alike. */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** How a query reads the trigram index, and what the caller must verify on the text. */
export interface TextMatch {
  /** FTS5 query of single trigrams (AND within a term), or null when every term is too short. */
  match: string | null;
  /** ASCII-lower-cased terms to find as substrings of the text (`lower(text)`). */
  substrings: string[];
  /** The text must hold any one of `substrings` rather than all of them. */
  anySubstring: boolean;
}

/**
 * The index query for terms (all must occur, or any with `any`). The FTS5 tables keep no
 * positions (`detail=none`, docs/search.md), so a term is looked up
 * by its covering trigrams and then verified as a substring of the row's text; that test is
 * what makes a match exact. Case folding of the verification is ASCII-only, like SQLite's
 * lower(). With `any`, terms too short for trigrams are dropped when a longer one exists
 * (they would turn back into a requirement): the long ones decide alone.
 */
export function textMatch(terms: readonly string[], any = false): TextMatch {
  const groups: string[] = [];
  const long: string[] = [];
  const short: string[] = [];
  for (const t of terms) {
    if ([...t].length < TRIGRAM_MIN) short.push(asciiLower(t));
    else {
      const grams = termTrigrams(t).map(ftsToken);
      groups.push(grams.length > 1 && any ? `(${grams.join(" AND ")})` : grams.join(" AND "));
      long.push(asciiLower(t));
    }
  }
  if (groups.length === 0) return { match: null, substrings: short, anySubstring: false };
  if (any) return { match: groups.join(" OR "), substrings: long, anySubstring: long.length > 1 };
  return { match: groups.join(" AND "), substrings: [...long, ...short], anySubstring: false };
}

/** One result of a grouped search: the best row of a turn, and every row of it that matched. */
export interface TurnGroup<T = Ranked> {
  best: T;
  /** Every matching row of the turn, best first (the first is `best`). */
  members: T[];
}

/**
 * One entry per turn, best first: a turn's prompt, reply, tool outputs and events would
 * otherwise fill the top results with one turn. Rows outside any turn (`turnOf` null) stand
 * alone. Used by `search` and by `recall <words>` (docs/search.md, docs/activity.md).
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

/**
 * Rank each index's candidates by BM25 (within the index: lengths differ by kind), then merge:
 * best first, ties newest first. Returns every candidate in that order.
 */
export function rankCandidates(
  lists: readonly (readonly SearchCandidate[])[],
  terms: readonly string[],
): Ranked[] {
  const all: Ranked[] = [];
  for (const list of lists) {
    const scores = bm25Scores(
      list.map((c) => ({ text: c.head, length: c.length })),
      terms,
    );
    list.forEach((c, i) => {
      all.push({ kind: c.kind, id: c.id, score: scores[i]!, ts: c.ts, label: c.label, turn: c.turn });
    });
  }
  all.sort((a, b) => a.score - b.score || b.ts - a.ts || b.id - a.id);
  return all;
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
  const n = docs.length;
  if (n === 0) return [];
  const lowered = docs.map((d) => d.text.toLowerCase());
  const avg = docs.reduce((a, d) => a + d.length, 0) / n || 1;
  const ts = terms.map((t) => t.toLowerCase()).filter((t) => t.length > 0);
  const tf = ts.map((t) => lowered.map((x) => occurrences(x, t)));
  const idf = tf.map((col) => {
    const df = col.filter((c) => c > 0).length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  return docs.map((d, i) => {
    let s = 0;
    tf.forEach((col, k) => {
      const f = col[i]!;
      if (f > 0) s += (idf[k]! * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * d.length) / avg));
    });
    return -s;
  });
}
