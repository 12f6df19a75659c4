/**
 * The activity index (docs/activity.md): writes from the PostToolUse hook and from capture, reads for
 * `recall [words…]`. Both writers key an event on its tool_use_id, so whichever comes second
 * adds nothing, except the turn number (and transcript time) the hook could not know.
 */
import type { Database } from "bun:sqlite";
import type { EventDraft, EventType } from "../../core/events.ts";
import { bm25Scores, trigramQuery } from "../../core/fts-terms.ts";
import type { Scope } from "../project.ts";
import { partsWhere } from "./forks.ts";
import { chainKeyOf, liveOfKey, resolveLive } from "./sessions.ts";

/** The one project lookup lives in db/project.ts; re-exported for callers that import it here. */
export { findProject } from "../project.ts";

export interface EventScope {
  /** Key of the chain the events belong to (`chainKey`). */
  sessionId: string;
  originSessionId: string;
  project: string | null;
  turnNumber: number | null;
}

export interface EventRow {
  id: number;
  /** Key of the chain the event belongs to (`liveEnd` names its live end). */
  session_id: string;
  origin_session_id: string;
  project: string | null;
  turn_number: number | null;
  seq: number;
  ts: number;
  type: EventType;
  summary: string;
  detail: string;
  tool_use_id: string | null;
}

/**
 * Idempotency keys: `tool:<tool_use_id>:<type>:<n>` (n counts events of that type within the
 * call), so the hook and a later transcript replay produce the same keys for the same call;
 * events without a tool_use_id carry their own key.
 */
export function eventKeys(origin: string, drafts: readonly EventDraft[]): string[] {
  const seen = new Map<string, number>();
  return drafts.map((d) => {
    const base = d.toolUseId
      ? `tool:${d.toolUseId}:${d.type}`
      : (d.key ?? `${origin}:${d.ts}:${d.type}:${d.summary}`);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}:${n}`;
  });
}

const INSERT_EVENT = `INSERT INTO events
  (session_id, origin_session_id, project, turn_number, seq, ts, type, summary, detail, tool_use_id, ikey)
  SELECT $session, $origin, $project, $turn,
         (SELECT coalesce(max(seq), 0) + 1 FROM events WHERE origin_session_id = $origin),
         $ts, $type, $summary, $detail, $tuid, $ikey
  WHERE true
  ON CONFLICT(ikey) DO UPDATE SET
    turn_number = excluded.turn_number,
    ts = excluded.ts,
    project = coalesce(events.project, excluded.project)
  WHERE events.turn_number IS NULL AND excluded.turn_number IS NOT NULL`;

/**
 * Insert events; returns how many rows were written (new, or given their turn number). `seq`
 * is computed inside the INSERT from the origin session's current maximum, so parallel hooks
 * of one session (SQLite serialises the writes) still get distinct, increasing numbers.
 */
export function insertEvents(db: Database, scope: EventScope, drafts: readonly EventDraft[]): number {
  if (drafts.length === 0) return 0;
  const keys = eventKeys(scope.originSessionId, drafts);
  const ins = db.query(INSERT_EVENT);
  let written = 0;
  drafts.forEach((d, i) => {
    written += ins.run({
      session: scope.sessionId,
      origin: scope.originSessionId,
      project: scope.project,
      turn: scope.turnNumber,
      ts: d.ts,
      type: d.type,
      summary: d.summary,
      detail: JSON.stringify(d.detail),
      tuid: d.toolUseId,
      ikey: keys[i]!,
    }).changes;
  });
  return written;
}

/** The live chain of the project that was active most recently (sessions or events). */
export function latestChain(db: Database, project: string): string | null {
  const s = db
    .query<{ id: string; at: number }, { p: string }>(
      `SELECT id, updated_at AS at FROM sessions WHERE project = $p AND merged_into IS NULL
       ORDER BY updated_at DESC LIMIT 1`,
    )
    .get({ p: project });
  const e = db
    .query<{ id: string; at: number }, { p: string }>(
      `SELECT ${liveOfKey("session_id")} AS id, ts AS at FROM events WHERE project = $p ORDER BY ts DESC LIMIT 1`,
    )
    .get({ p: project });
  const pick = s && e ? (e.at > s.at ? e : s) : (s ?? e);
  return pick ? resolveLive(db, pick.id).id : null;
}

// ── reads ──────────────────────────────────────────────────────────────────────────────

export interface EventFilter {
  scope: Scope;
  types: readonly EventType[] | null;
  from: number | null;
  /** Inclusive upper bound. */
  to: number | null;
  /** FTS5 query over the events index (already quoted), or null. */
  match: string | null;
  /** Row id bounds of the scope's events: lets FTS5 skip the rest of its doclists. */
  ids?: { lo: number; hi: number } | null;
  /**
   * Lower-cased terms the text must hold as substrings (core/search.ts textMatch): the index
   * keeps no positions, so its trigram match is verified here.
   */
  substrings: readonly string[];
  /** Any one of `substrings` is enough (keywords matched with OR). */
  anySubstring?: boolean;
}

interface Built {
  /** `events e`, or the FTS index driving the join when there is a keyword match. */
  from: string;
  /** Whether the FTS index drives (its rowid order is then the cheap one). */
  fts: boolean;
  where: string;
  params: Record<string, string | number>;
}

/**
 * The index holds each event's type at the start of its text, so a type filter can narrow the
 * match itself: `recall errors auth` then walks the events that hold both "error" and "auth"
 * instead of every "auth" event, and `e.type` still decides (docs/activity.md).
 */
function withTypes(match: string, types: readonly EventType[] | null): string {
  if (!types || types.length === 0) return match;
  const queries = types.map(trigramQuery);
  if (queries.some((q) => q === null)) return match;
  return `(${queries.map((q) => `(${q})`).join(" OR ")}) AND (${match})`;
}

/** WHERE clause from fixed fragments; every value is bound. */
function build(f: EventFilter): Built {
  const parts: string[] = [];
  const params: Record<string, string | number> = {};
  if (f.scope.kind === "chain" && f.scope.parts && f.scope.parts.length > 1) {
    // A fork: its own events and its parent's up to the fork point (docs/contract.md#forks).
    parts.push(partsWhere(f.scope.parts, "e", params, { events: true }));
  } else if (f.scope.kind === "chain") {
    parts.push(`e.session_id = ${chainKeyOf("$scope")}`);
    params.scope = f.scope.live;
  } else if (f.scope.kind === "project") {
    parts.push("e.project = $scope");
    params.scope = f.scope.project;
  }
  if (f.types && f.types.length > 0) {
    parts.push("e.type IN (SELECT value FROM json_each($types))");
    params.types = JSON.stringify(f.types);
  }
  if (f.from !== null) {
    parts.push("e.ts >= $from");
    params.from = f.from;
  }
  if (f.to !== null) {
    parts.push("e.ts <= $to");
    params.to = f.to;
  }
  let from = "events e";
  // With a type word, a chain whose events span few ids is read through its own index faster
  // than the trigram index walks its doclists, which grow with the whole database
  // (docs/activity.md): the type and substring tests decide alone, as they make an index match
  // exact anyway. Without one, the index's newest-first walk stops early and wins.
  const typed = f.types !== null && f.types.length > 0;
  const fts = f.match !== null && !(typed && f.ids && f.ids.hi - f.ids.lo < DIRECT_SCAN_SPAN);
  if (fts && f.match !== null) {
    // The index drives: its matches (within the scope's id range when known) are looked up
    // by rowid, instead of testing every event of a large scope against the match list.
    from = "events_fts CROSS JOIN events e ON e.id = events_fts.rowid";
    parts.unshift("events_fts MATCH $match");
    // Within a chain's id range the index walks few rows anyway, and a common type's doclists
    // would cost more than they save (measured): only a wider scope is narrowed by the type.
    params.match = f.ids ? f.match : withTypes(f.match, f.types);
    if (f.ids) {
      parts.splice(1, 0, "events_fts.rowid BETWEEN $lo AND $hi");
      params.lo = f.ids.lo;
      params.hi = f.ids.hi;
    }
  }
  const tests = f.substrings.map((s, i) => {
    // Fragment names come from the loop index, never from the value. The text is the one
    // events_fts indexes, so the test agrees with the index on what a row holds.
    params[`sub${i}`] = s;
    return `instr(lower(e.type || ' ' || e.summary || char(10) || e.detail), $sub${i}) > 0`;
  });
  if (tests.length > 0) parts.push(f.anySubstring ? `(${tests.join(" OR ")})` : tests.join(" AND "));
  return { from, fts, where: parts.join(" AND "), params };
}

/** Below this span of event ids a chain is scanned, not looked up in the trigram index. */
export const DIRECT_SCAN_SPAN = 20_000;

/**
 * Counting stops here: the exact total of a very common word is not worth a scan of the index.
 * The count walks the matches until it passes the cap (a word in 1,000 of 500,000 events: 15 ms at
 * a cap of 1,000), and ten pages of results say as much as fifty (docs/activity.md).
 */
export const COUNT_CAP = 200;

/** How many events match, up to COUNT_CAP + 1 (more than COUNT_CAP means "more than"). */
export function countEvents(db: Database, f: EventFilter, cap = COUNT_CAP): number {
  const b = build(f);
  return db
    .query<{ n: number }, Record<string, string | number>>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${b.from} WHERE ${b.where} LIMIT $cap)`,
    )
    .get({ ...b.params, cap: cap + 1 })!.n;
}

/** Newest first. */
export function listEvents(db: Database, f: EventFilter, limit: number): EventRow[] {
  const b = build(f);
  return db
    .query<EventRow, Record<string, string | number>>(
      `SELECT e.* FROM ${b.from} WHERE ${b.where} ORDER BY e.ts DESC, e.seq DESC LIMIT $limit`,
    )
    .all({ ...b.params, limit: Math.max(0, Math.floor(limit)) });
}

/** Matches ranked per query are the newest this many (see core/search.ts on why not bm25()). */
export const RANK_CANDIDATES = 500;

/**
 * The newest matching events a ranking reads: at most RANK_CANDIDATES. Fewer means these are all
 * the matches, so a keyword query takes its total from them (no count of its own: COUNT_CAP is
 * below RANK_CANDIDATES).
 */
export function rankCandidates(db: Database, f: EventFilter): EventRow[] {
  const b = build(f);
  // Candidates in the index's own order (newest rows last inserted), which costs no sort.
  const order = b.fts ? "events_fts.rowid DESC" : f.match !== null ? "e.id DESC" : "e.ts DESC, e.seq DESC";
  return db
    .query<EventRow, Record<string, string | number>>(
      `SELECT e.* FROM ${b.from} WHERE ${b.where} ORDER BY ${order} LIMIT $limit`,
    )
    .all({ ...b.params, limit: RANK_CANDIDATES });
}

/**
 * Best of `rows` (rankCandidates: at most RANK_CANDIDATES, the newest matches) first: BM25 over
 * their summary and detail, ties newest first.
 */
export function rankRows(
  f: EventFilter,
  rows: readonly EventRow[],
  terms: readonly string[],
  limit: number,
): EventRow[] {
  if (f.match === null && f.substrings.length === 0) return rows.slice(0, limit);
  const docs = rows.map((r) => {
    const text = `${r.summary}\n${r.detail}`;
    return { text, length: text.length };
  });
  const scores = bm25Scores(docs, terms);
  return rows
    .map((r, i) => ({ r, s: scores[i]! }))
    .sort((a, b) => a.s - b.s || b.r.ts - a.r.ts || b.r.seq - a.r.seq)
    .slice(0, limit)
    .map((x) => x.r);
}

/** Row id bounds of a chain's events (cheap: the session index covers the rowid). */
export function scopeIds(db: Database, scope: Scope): { lo: number; hi: number } | null {
  // A fork's events lie in more than one chain: no single id range bounds them.
  if (scope.kind !== "chain" || (scope.parts && scope.parts.length > 1)) return null;
  const row = db
    .query<{ lo: number | null; hi: number | null }, { s: string }>(
      `SELECT min(id) AS lo, max(id) AS hi FROM events WHERE session_id = ${chainKeyOf("$s")}`,
    )
    .get({ s: scope.live });
  return row && row.lo !== null && row.hi !== null ? { lo: row.lo, hi: row.hi } : null;
}

/** Whether the scope holds any event at all (to tell "empty index" from "no match"). */
export function scopeHasEvents(db: Database, scope: Scope): boolean {
  if (scope.kind === "chain" && scope.parts && scope.parts.length > 1) {
    const params: Record<string, string | number> = {};
    const where = partsWhere(scope.parts, "e", params, { events: true });
    return db.query(`SELECT 1 AS x FROM events e WHERE ${where} LIMIT 1`).get(params) !== null;
  }
  const row =
    scope.kind === "chain"
      ? db
          .query(`SELECT 1 AS x FROM events WHERE session_id = ${chainKeyOf("$s")} LIMIT 1`)
          .get({ s: scope.live })
      : scope.kind === "project"
        ? db.query("SELECT 1 AS x FROM events WHERE project = $s LIMIT 1").get({ s: scope.project })
        : db.query("SELECT 1 AS x FROM events LIMIT 1").get();
  return row !== null;
}

export interface ScopeStats {
  total: number;
  first: number | null;
  last: number | null;
  byType: Partial<Record<EventType, number>>;
}

export function scopeStats(
  db: Database,
  scope: Scope,
  range: { from: number | null; to: number | null },
): ScopeStats {
  const b = build({ scope, types: null, from: range.from, to: range.to, match: null, substrings: [] });
  const rows = db
    .query<{ type: EventType; n: number; first: number; last: number }, typeof b.params>(
      `SELECT e.type, count(*) AS n, min(e.ts) AS first, max(e.ts) AS last FROM events e WHERE ${b.where} GROUP BY e.type`,
    )
    .all(b.params);
  const byType: Partial<Record<EventType, number>> = {};
  let total = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (const r of rows) {
    byType[r.type] = r.n;
    total += r.n;
    first = first === null ? r.first : Math.min(first, r.first);
    last = last === null ? r.last : Math.max(last, r.last);
  }
  return { total, first, last, byType };
}

/** Files most touched in the scope: path and number of edit/create events, most first. */
export function topFiles(
  db: Database,
  scope: Scope,
  range: { from: number | null; to: number | null },
  limit: number,
): { path: string; n: number; last: number }[] {
  const b = build({
    scope,
    types: ["file_edit", "file_create"],
    from: range.from,
    to: range.to,
    match: null,
    substrings: [],
  });
  return db
    .query<{ path: string; n: number; last: number }, Record<string, string | number>>(
      `SELECT json_extract(e.detail, '$.path') AS path, count(*) AS n, max(e.ts) AS last
       FROM events e WHERE ${b.where} AND path IS NOT NULL
       GROUP BY path ORDER BY n DESC, last DESC LIMIT $limit`,
    )
    .all({ ...b.params, limit: Math.max(0, Math.floor(limit)) });
}

/** Time of the newest passing test run or commit in the scope: errors after it are "open". */
export function lastGreen(db: Database, scope: Scope): number | null {
  const b = build({
    scope,
    types: ["test_run", "git_commit"],
    from: null,
    to: null,
    match: null,
    substrings: [],
  });
  return (
    db
      .query<{ at: number | null }, Record<string, string | number>>(
        `SELECT max(e.ts) AS at FROM events e WHERE ${b.where}
         AND (e.type = 'git_commit' OR json_extract(e.detail, '$.outcome') = 'pass')`,
      )
      .get(b.params)?.at ?? null
  );
}
