/**
 * The activity index read for `recall [words…]` (docs/activity.md): the words parsed into a
 * query, the events or turns that answer it, and the summary when there are no words. Read-only;
 * commands/_recall-activity.ts resolves the scope from the flags and prints.
 */
import {
  ACTIVITY_ROWS,
  type ActivityQuery,
  groupsByTurn,
  parseActivityQuery,
} from "../core/activity-query.ts";
import type { EventType } from "../core/events.ts";
import { hostField } from "../core/host.ts";
import { objectOrEmpty } from "../core/jsonl.ts";
import { groupByTurn, textMatch } from "../core/search.ts";
import type { Database } from "../db/open.ts";
import type { Scope } from "../db/project.ts";
import {
  COUNT_CAP,
  countEvents,
  type EventFilter,
  type EventRow,
  lastGreen,
  listEvents,
  rankCandidates,
  rankRows,
  scopeHasEvents,
  scopeIds,
  scopeStats,
  topFiles,
} from "../db/queries/events.ts";
import { liveEnd, sessionHost } from "../db/queries/sessions.ts";
import type { ActivityEvent, ActivityView, SummaryFacts } from "../render/activity.ts";

/** How many items each list of the summary shows. */
const SUMMARY_ITEMS = 5;

function turnKeyOf(r: EventRow): string | null {
  return r.turn_number === null ? null : `${r.origin_session_id}:${r.turn_number}`;
}

/** Shown rows mostly share a chain or two: one lookup per key and view (cleared by activityView). */
const liveEnds = new WeakMap<Database, Map<string, string>>();
function liveEndOf(db: Database, key: string): string {
  let m = liveEnds.get(db);
  if (!m) {
    m = new Map();
    liveEnds.set(db, m);
  }
  let live = m.get(key);
  if (live === undefined) {
    live = liveEnd(db, key);
    m.set(key, live);
  }
  return live;
}

/** The same for each origin's host (core/host.ts). */
const hosts = new WeakMap<Database, Map<string, string | null>>();
function hostOfOrigin(db: Database, origin: string): string | null {
  let m = hosts.get(db);
  if (!m) {
    m = new Map();
    hosts.set(db, m);
  }
  let host = m.get(origin);
  if (host === undefined) {
    host = sessionHost(db, origin);
    m.set(origin, host);
  }
  return host;
}

function toEvent(db: Database, r: EventRow): ActivityEvent {
  // A damaged detail reads as {}: the event still shows its summary.
  const detail = objectOrEmpty(r.detail);
  return {
    ts: r.ts,
    seq: r.seq,
    type: r.type,
    summary: r.summary,
    detail,
    session: liveEndOf(db, r.session_id),
    origin: r.origin_session_id,
    ...hostField(hostOfOrigin(db, r.origin_session_id)),
    project: r.project,
    turnNumber: r.turn_number,
  };
}

function filterOf(
  scope: Scope,
  q: ActivityQuery,
  any: boolean,
  ids: { lo: number; hi: number } | null,
): EventFilter {
  // The index keeps no positions: its trigram match is verified by the substrings (docs/search.md).
  const fts = textMatch(q.keywords, any);
  return {
    scope,
    ids,
    types: q.types,
    from: q.range?.from ?? null,
    to: q.range?.to ?? null,
    match: fts.match,
    substrings: fts.substrings,
    anySubstring: fts.anySubstring,
  };
}

function summaryFacts(db: Database, scope: Scope): SummaryFacts {
  const list = (types: EventType[], limit: number, from: number | null = null) =>
    listEvents(db, { scope, types, from, to: null, match: null, substrings: [] }, limit).map((r) =>
      toEvent(db, r),
    );
  const stats = scopeStats(db, scope, { from: null, to: null });
  const green = lastGreen(db, scope);
  const openFrom = green === null ? null : green + 1;
  const openErrors = countEvents(db, {
    scope,
    types: ["error"],
    from: openFrom,
    to: null,
    match: null,
    substrings: [],
  });
  return {
    first: stats.first,
    last: stats.last,
    byType: stats.byType,
    lastPhase: list(["phase_change"], 1)[0] ?? null,
    commits: list(["git_commit"], SUMMARY_ITEMS),
    tests: list(["test_run"], SUMMARY_ITEMS),
    openErrors: list(["error"], SUMMARY_ITEMS, openFrom),
    openErrorCount: openErrors,
    openErrorCountCapped: openErrors > COUNT_CAP,
    openSince: green,
    decisions: list(["decision"], SUMMARY_ITEMS),
    files: topFiles(db, scope, { from: null, to: null }, SUMMARY_ITEMS),
  };
}

/**
 * The filter of a query, widened to any keyword when no event holds them all; its count, and for
 * a keyword query the newest matches its ranking reads (from which the count comes: the matches
 * are walked once).
 */
function matchFilter(
  db: Database,
  query: ActivityQuery,
  scope: Scope,
): { filter: EventFilter; total: number; any: boolean; candidates: EventRow[] | null } {
  const ids = query.keywords.length > 0 ? scopeIds(db, scope) : null;
  const filter = filterOf(scope, query, false, ids);
  if (query.keywords.length === 0)
    return { filter, total: countEvents(db, filter), any: false, candidates: null };
  const found = (f: EventFilter) => {
    const candidates = rankCandidates(db, f);
    return { filter: f, candidates, total: Math.min(candidates.length, COUNT_CAP + 1) };
  };
  const all = found(filter);
  if (all.total === 0 && query.keywords.length > 1) {
    const wider = found(filterOf(scope, query, true, ids));
    if (wider.total > 0) return { ...wider, any: true };
  }
  return { ...all, any: false };
}

/** A grouped query's ranking: every candidate, best first, and the turns they form (what the view shows). */
function rankedGroups(filter: EventFilter, candidates: readonly EventRow[], keywords: readonly string[]) {
  // Every ranked candidate, so that a turn's other matches are listed with it.
  const ranked = rankRows(filter, candidates, keywords, Number.POSITIVE_INFINITY);
  return { ranked, groups: groupByTurn(ranked, turnKeyOf) };
}

/**
 * The turns a keyword query ranks first, best first: `turns` as `recall` groups them, `rows` one
 * per ranked event (for comparison), `matched` every turn with a matching event. For the corpus quality test; null for a query that is not
 * grouped (a type word, no keyword).
 */
export function rankedTurns(
  db: Database,
  words: readonly string[],
  opts: { now: number; scope: Scope },
  limit: number,
): { turns: (string | null)[]; rows: (string | null)[]; matched: Set<string | null> } | null {
  const query = parseActivityQuery(words, opts.now);
  if (!groupsByTurn(query)) return null;
  const { filter, candidates } = matchFilter(db, query, opts.scope);
  const { ranked, groups } = rankedGroups(filter, candidates ?? [], query.keywords);
  return {
    turns: groups.slice(0, limit).map((g) => turnKeyOf(g.best)),
    rows: ranked.slice(0, limit).map(turnKeyOf),
    matched: new Set(ranked.map(turnKeyOf)),
  };
}

/** Build the view for a query (exported for tests and the bench). */
export function activityView(
  db: Database,
  words: readonly string[],
  opts: { now: number; scope: Scope; label: string; project?: string | null },
): ActivityView {
  liveEnds.delete(db);
  hosts.delete(db);
  const query = parseActivityQuery(words, opts.now);
  const base = { query, scopeLabel: opts.label, project: opts.project ?? null, anyKeyword: false };
  if (!scopeHasEvents(db, opts.scope)) return { ...base, empty: true, total: 0, events: [], summary: null };
  if (query.mode === "summary") {
    const summary = summaryFacts(db, opts.scope);
    const events = listEvents(
      db,
      { scope: opts.scope, types: null, from: null, to: null, match: null, substrings: [] },
      ACTIVITY_ROWS,
    ).map((r) => toEvent(db, r));
    const total = Object.values(summary.byType).reduce((a, n) => a + (n ?? 0), 0);
    return { ...base, empty: false, total, events, summary };
  }
  const { filter, total, any, candidates } = matchFilter(db, query, opts.scope);
  const grouped = groupsByTurn(query);
  let events: ActivityEvent[];
  if (grouped) {
    events = rankedGroups(filter, candidates ?? [], query.keywords)
      .groups.slice(0, ACTIVITY_ROWS)
      .map(({ best, members }) => ({
        ...toEvent(db, best),
        also: members.slice(1).map((a) => ({ ts: a.ts, seq: a.seq, type: a.type, summary: a.summary })),
      }));
  } else {
    const rows =
      candidates !== null
        ? rankRows(filter, candidates, query.keywords, ACTIVITY_ROWS)
        : listEvents(db, filter, ACTIVITY_ROWS);
    events = rows.map((r) => toEvent(db, r));
  }
  // Rank picks which events are shown; the table lists them newest first.
  events.sort((a, b) => b.ts - a.ts || b.seq - a.seq);
  return {
    ...base,
    anyKeyword: any,
    empty: false,
    total,
    totalCapped: total > COUNT_CAP,
    events,
    ...(grouped ? { groupedByTurn: true } : {}),
    summary: null,
  };
}
