/** Ranked search over a scope, shared by `search` and `ui` (docs/search.md, "Ranking"). */

import { mayBeMistyped, type NearWord, nearestWords, type Unheld } from "../core/did-you-mean.ts";
import { TRIGRAM_MIN, trigramQuery } from "../core/fts-terms.ts";
import { ownForms, parseQuery, type QueryTerm, termHeld } from "../core/query.ts";
import {
  COVERAGE_TERMS,
  foldCase,
  type Ranked,
  type RankedTurn,
  rankCandidates,
  rankTurns,
  SEARCH_CANDIDATES,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_TERM_CANDIDATES,
  type SearchCandidate,
  type SearchHit,
  type SearchKind,
  termIndexable,
  termsMatch,
  termsOf,
  windowRows,
} from "../core/search.ts";
import { caseFolds, meetCount, windowsOf } from "../core/snippet.ts";
import type { Database } from "../db/open.ts";
import type { Scope } from "../db/project.ts";
import { chainParts } from "../db/queries/forks.ts";
import { type SearchQuery, scopeBounds, searchCandidates, searchHits } from "../db/queries/search.ts";
import { placeLabel, type SearchWindow } from "../render/search.ts";

/** What one candidate lookup returns (db/queries/search.ts searchCandidates). */
type Lookup = { candidates: SearchCandidate[]; capped: boolean };

/** Bits of the terms that `pick` keeps (a bit per term, by its index). */
function bitsOf(terms: readonly QueryTerm[], pick: (t: QueryTerm) => boolean): number {
  return terms.reduce((bits, t, i) => (pick(t) ? bits | (1 << i) : bits), 0);
}

/** A synonym's own rows per index: fewer than a word's own forms get (it counts for less). */
const SYNONYM_CANDIDATES = 20;

/**
 * Every matching row of the scope, ranked: the newest SEARCH_CANDIDATES rows per index holding
 * every term; and, with several terms, the newest SEARCH_TERM_CANDIDATES rows of each term on
 * its own, so that a turn holding the terms in different rows is found. Those are not read when
 * `limit` turns hold every term in one row already: no other turn can rank above them
 * (core/search.ts rankTurns), and `capped` then says that more may match.
 */
export function rankedMatches(
  db: Database,
  scope: Scope,
  words: readonly string[],
  kinds: readonly SearchKind[],
  limit = Number.POSITIVE_INFINITY,
): Matches {
  const terms = parseQuery(words).slice(0, COVERAGE_TERMS);
  const folds = caseFolds(terms.flatMap((t) => t.forms.map((f) => f.s)));
  // The chain's parts and each index's bounds once: every query of the search reads the same scope.
  const chain = scope.kind === "chain" ? chainParts(db, scope.live) : undefined;
  const bounds = scopeBounds(db, kinds, scope, chain);
  const query: ScopedQuery = (k, sub) => {
    const b = bounds?.get(k);
    return {
      scope,
      ...termsMatch(sub),
      folds,
      ...(b !== undefined ? { bounds: b } : {}),
      ...(chain ? { parts: chain } : {}),
    };
  };
  // A phrase or a whole identifier holds its words: the words are what every row must hold.
  const parts = terms.filter((t) => !t.whole);
  const required = parts.length > 0 ? parts : terms;
  const requiredBits = bitsOf(terms, (t) => required.includes(t));
  const allBits = bitsOf(terms, () => true);
  const lists = kinds.map(() => new Map<number, SearchCandidate>());
  let capped = false;
  let cappedTerms = 0;
  const add = (k: number, found: Lookup, bits: number, own: number) => {
    capped ||= found.capped;
    if (found.capped) cappedTerms |= own;
    const list = lists[k]!;
    for (const c of found.candidates) {
      const seen = list.get(c.id);
      if (seen) {
        seen.terms = (seen.terms ?? 0) | bits;
        seen.own = (seen.own ?? 0) | own;
      } else {
        c.terms = bits;
        c.own = own;
        list.set(c.id, c);
      }
    }
  };
  kinds.forEach((k, i) => {
    // Their own forms only: a row holding every word as written or inflected.
    const found = searchCandidates(db, k, query(k, required.map(ownForms)), SEARCH_CANDIDATES);
    // Capped: an older row may hold any of the terms, a name whole included.
    if (found.capped) cappedTerms = allBits;
    add(i, found, requiredBits, requiredBits);
  });
  if (terms.length > 1) {
    // With `limit` turns holding every term in one row, no other turn can rank above them.
    if (holdAll(lists, terms, limit)) {
      capped = true;
      // Not looked up alone: whether an older row holds a word the candidates only hold inside
      // another (`sing` in `using`) is not known, so no word is said to be held by no row.
      cappedTerms = allBits;
    } else lookUpTerms(db, kinds, terms, query, add);
  }
  const headOf = (kind: SearchKind, id: number) => lists[kinds.indexOf(kind)]?.get(id)?.head ?? "";
  return {
    ranked: rankCandidates(
      lists.map((l) => [...l.values()]),
      terms,
    ),
    capped,
    cappedTerms,
    terms,
    query,
    headOf,
  };
}

/**
 * Whether `limit` turns have a row holding every term, a phrase or whole name included (seen in
 * the row's head). The count stops at `limit`: the answer is only whether there are that many.
 */
function holdAll(
  lists: readonly Map<number, SearchCandidate>[],
  terms: readonly QueryTerm[],
  limit: number,
): boolean {
  // As ranking reads them (its folded head is kept for it): a short word at a word start, so that
  // `sing` in `using` is no row holding `sing`.
  const own = terms.map(ownForms);
  const every = new Set<string | number>();
  for (const list of lists) {
    if (every.size >= limit) break;
    for (const c of list.values()) {
      c.folded ??= foldCase(c.head);
      if (own.every((t) => termHeld(c.head, c.folded!, t))) every.add(c.turn ?? `${c.kind}:${c.id}`);
      if (every.size >= limit) break;
    }
  }
  return every.size >= limit;
}

/**
 * Whether a row of `scope` holds one of `words` as typed: a word, or a name whole, not only a part
 * of a name (`vsla_unifeid`'s `vsla`). One cheap search: its candidates, not its results.
 */
export function heldAsTyped(
  db: Database,
  scope: Scope,
  words: readonly string[],
  kinds: readonly SearchKind[],
): boolean {
  const { ranked, terms } = rankedMatches(db, scope, words, kinds, 1);
  const typed = bitsOf(terms, (t) => !t.hidden);
  return ranked.some((r) => (r.terms & typed) !== 0);
}

/** What rankedMatches finds: the rows ranked, the terms, and what the steps after it read again. */
interface Matches {
  ranked: Ranked[];
  capped: boolean;
  /** The terms (bits) a lookup of their own forms stopped at its cap for: older rows may hold them. */
  cappedTerms: number;
  terms: QueryTerm[];
  query: ScopedQuery;
  /** A candidate's head, for where its words meet (byMeeting). */
  headOf: (kind: SearchKind, id: number) => string;
}

/** A search's lookup of terms in one index of its scope (the scope's bounds and chain read once). */
type ScopedQuery = (k: SearchKind, sub: readonly QueryTerm[]) => SearchQuery;

/** Rows read per index and piece of a word no row holds, for the words near it (nearestInScope). */
const NEAR_ROWS = 50;

/**
 * Words of the scope near `word`, which no row holds (docs/search.md, "Nearest words"): read from
 * the newest rows holding its first or its second half, one of which a single typo leaves whole.
 */
function nearestInScope(
  db: Database,
  kinds: readonly SearchKind[],
  query: ScopedQuery,
  word: string,
): NearWord[] {
  const folded = foldCase(word);
  const cps = [...folded];
  const half = Math.ceil(cps.length / 2);
  const pieces = [
    cps.slice(0, Math.max(half, TRIGRAM_MIN)),
    cps.slice(Math.min(half, cps.length - TRIGRAM_MIN)),
  ]
    .map((p) => p.join(""))
    .filter((p, i, all) => all.indexOf(p) === i);
  const texts: string[] = [];
  for (const k of kinds)
    for (const piece of pieces) {
      const q = { ...query(k, []), match: trigramQuery(piece) };
      if (q.match === null) continue;
      for (const c of searchCandidates(db, k, q, NEAR_ROWS).candidates) texts.push(c.head);
    }
  return nearestWords(word, texts);
}

/**
 * Each term's own rows per index, one lookup per form (rankedMatches): an OR of forms would fold
 * each row's text once per form. A word this memory holds often is the memory's own word: its
 * synonyms are looked up only when its own forms fill no page of candidates (docs/search.md,
 * "Query rules").
 */
function lookUpTerms(
  db: Database,
  kinds: readonly SearchKind[],
  terms: readonly QueryTerm[],
  query: (k: SearchKind, sub: readonly QueryTerm[]) => SearchQuery,
  add: (k: number, found: Lookup, bits: number, own: number) => void,
): void {
  kinds.forEach((k, i) => {
    terms.forEach((t, bit) => {
      if (!termIndexable(t)) return;
      let common = false;
      for (const f of t.forms) {
        if (f.synonym && common) continue;
        const cap = f.synonym ? SYNONYM_CANDIDATES : SEARCH_TERM_CANDIDATES;
        const found = searchCandidates(db, k, query(k, [{ text: f.s, forms: [f] }]), cap);
        if (!f.synonym && found.capped) common = true;
        add(i, found, 1 << bit, f.synonym ? 0 : 1 << bit);
      }
    });
  });
}

/** A result: one turn, its best row, the context of each term it holds, and what else matched. */
export interface TurnResult {
  hit: SearchHit;
  /** How many rows of each kind matched in the turn, best first (the first is the hit's). */
  matched: { kind: SearchKind; label: string; rows: number }[];
  /** The query's terms the turn holds, in query order. */
  terms: string[];
  /** Lines of context around the terms, the hit's own row first. */
  windows: SearchWindow[];
}

/**
 * The best `limit` turns for the terms (docs/search.md, "Ranking"), with whether more matched
 * and whether any turn holds every term.
 */
export function searchTurns(
  db: Database,
  scope: Scope,
  words: readonly string[],
  kinds: readonly SearchKind[],
  limit: number,
): {
  results: TurnResult[];
  more: boolean;
  anyWord: boolean;
  terms: string[];
  queryTerms: QueryTerm[];
  unheld: Unheld[];
} {
  // At least the turns byMeeting orders are ranked whole, whatever `limit` asks for.
  const { ranked, capped, cappedTerms, terms, query, headOf } = rankedMatches(
    db,
    scope,
    words,
    kinds,
    Math.max(limit, MEET_TURNS),
  );
  const turns = byMeeting(rankTurns(ranked, terms.length), terms, headOf);
  const unheld = unheldTerms(db, kinds, query, terms, turns, cappedTerms);
  const shown = turns.slice(0, limit);
  // "Every word" is what the user typed: each word, and each name whole (a phrase is its words);
  // windows show those, not an identifier's parts or a phrase's span.
  const visible = bitsOf(terms, (t) => !t.hidden);
  const rows = shown.map((t) => ({ turn: t, windows: windowRows(t, undefined, visible) }));
  const hits = new Map<string, SearchHit>();
  for (const k of kinds) {
    const ids = new Map<number, Ranked>();
    for (const r of rows)
      for (const m of [r.turn.best, ...r.windows.map((w) => w.row)]) if (m.kind === k) ids.set(m.id, m);
    for (const h of searchHits(db, k, [...ids.values()])) hits.set(`${h.kind}:${h.id}`, h);
  }
  const results: TurnResult[] = [];
  for (const { turn, windows } of rows) {
    const hit = hits.get(`${turn.best.kind}:${turn.best.id}`);
    if (!hit) continue;
    const matched: TurnResult["matched"] = [];
    for (const m of turn.members) {
      const same = matched.find((x) => x.kind === m.kind && x.label === m.label);
      if (same) same.rows++;
      else matched.push({ kind: m.kind, label: m.label, rows: 1 });
    }
    const lines: SearchWindow[] = [];
    for (const w of windows) {
      const h = hits.get(`${w.row.kind}:${w.row.id}`);
      if (h === undefined) continue;
      const own = w.row === turn.best;
      for (const line of windowsOf(h.text, termsOf(w.terms, terms)))
        lines.push({ kind: w.row.kind, label: placeLabel(h), own, text: line });
    }
    results.push({
      hit,
      matched,
      terms: termsOf(turn.terms, terms)
        .filter((t) => !t.hidden)
        .map((t) => t.text),
      windows: lines,
    });
  }
  const plain = terms.filter((t) => !t.hidden);
  return {
    results,
    more: turns.length > limit || capped,
    anyWord: plain.length > 1 && turns.length > 0 && !turns.some((t) => (t.terms & visible) === visible),
    terms: plain.map((t) => t.text),
    queryTerms: terms,
    unheld,
  };
}

/** Rows of a turn read for where its words meet (byMeeting). */
const MEET_ROWS = 8;
/** The turns byMeeting orders: those a search shows when no --limit is given. */
const MEET_TURNS = SEARCH_DEFAULT_LIMIT;

/**
 * `turns` with the first MEET_TURNS (the turns holding the most of the words: the default page)
 * put in order of where their words meet: the turn in one of whose first MEET_ROWS rows more of
 * its words occur within a line of one another (core/snippet.ts meetingPlace) first, then the
 * order of `rankTurns` (docs/search.md, "Ranking"). A question's words near one another are a
 * statement of its answer; the same words scattered over a long output are often a coincidence,
 * and the longer a text, the more of a question's words it holds by chance. The window does not
 * follow `--limit`, so `--limit 1` shows the first of the default page.
 */
function byMeeting(
  turns: RankedTurn[],
  terms: readonly QueryTerm[],
  headOf: (kind: SearchKind, id: number) => string,
): RankedTurn[] {
  // One word meets only itself: nothing to reorder.
  if (terms.length < 2) return turns;
  const top = turns.slice(0, MEET_TURNS).map((t, i) => {
    let meet = 0;
    for (const m of t.members.slice(0, MEET_ROWS))
      meet = Math.max(meet, meetCount(headOf(m.kind, m.id), termsOf(m.terms, terms)));
    return { t, i, meet };
  });
  top.sort((a, b) => b.meet - a.meet || a.i - b.i);
  return [...top.map((x) => x.t), ...turns.slice(top.length)];
}

/**
 * A word or name as typed that no row of the scope holds, with the words near it that the memory
 * holds instead. Only terms looked up on their own count (a word too short for the index is not),
 * and not one whose lookup stopped at its cap (`sing` in the newest rows' `using`: an older row may
 * hold it). Each is named; the nearest words are looked up for UNHELD_MAX at most, those that may
 * be mistyped first.
 */
function unheldTerms(
  db: Database,
  kinds: readonly SearchKind[],
  query: ScopedQuery,
  terms: readonly QueryTerm[],
  turns: readonly RankedTurn[],
  cappedTerms: number,
): Unheld[] {
  let held = cappedTerms;
  for (const t of turns) held |= t.terms;
  const unheld = terms.filter((t, i) => !t.hidden && (held & (1 << i)) === 0 && termIndexable(t));
  const looked = new Set(unheld.filter((t) => mayBeMistyped(t.text)).slice(0, UNHELD_MAX));
  return unheld.map((t) => ({
    term: t.text,
    near: looked.has(t) ? nearestInScope(db, kinds, query, t.text) : [],
  }));
}

/** Unheld words whose nearest words are looked up per search, at most. */
const UNHELD_MAX = 3;
