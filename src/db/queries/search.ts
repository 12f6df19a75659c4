/**
 * Full-text search over L2 (bodies), L3 (details) and events. The FTS5 tables are contentless
 * trigram indexes without positions (`detail=none`) whose rowid is the base row's id. A search
 * runs in two steps: the index finds the newest rows of the scope holding every trigram of the
 * terms (cheap: doclists are walked in rowid order and stop at the cap) and the substring test
 * on the base row keeps those that really hold the terms; the caller ranks them (BM25, see
 * core/search.ts) and ranks their turns, and the base rows of the best ones supply the text
 * for snippets and windows and the turn for `detail`. throughline's own push, which Claude Code
 * records back as a hook attachment, is never a candidate.
 */
import type { Database } from "bun:sqlite";
import { hostField } from "../../core/host.ts";
import type { Form } from "../../core/query.ts";
import {
  eventText,
  PUSH_HEADING,
  type SearchCandidate,
  type SearchHit,
  type SearchKind,
  type TextMatch,
} from "../../core/search.ts";
import type { Scope } from "../project.ts";
import { type ChainPart, chainParts, partsWhere } from "./forks.ts";
import { liveOfKey } from "./sessions.ts";
import { spansOf } from "./spans.ts";

export interface SearchQuery extends Partial<TextMatch> {
  match: string | null;
  scope: Scope;
  /**
   * A parsed query's test (core/search.ts termsMatch), instead of `substrings`: every clause
   * holds, a clause when any of its forms does, a start-only form at a word start.
   */
  clauses?: readonly (readonly Form[])[];
  /**
   * The lowest and highest row id of the scope in this index (`scopeBounds`), or null when the
   * scope holds none; absent: not looked up (the query then walks the whole index).
   */
  bounds?: ScopeBounds | null;
  /** A chain scope's parts (forks.ts chainParts), looked up once for every query of a search; absent: here. */
  parts?: readonly ChainPart[];
  /**
   * Upper → lower case pairs replaced in `lower(text)` before the substring test, so that
   * non-ASCII letters fold as the (folded) substrings do (core/search.ts caseFolds).
   */
  folds?: readonly (readonly [string, string])[];
}

/** How much of a row is scanned to rank it; its full length still counts. */
export const RANK_HEAD = 4096;

/** Per index: its rows, how a scope and a substring test read there. Fixed SQL fragments only. */
interface IndexSql {
  base: string;
  /**
   * The row's turn as `t`, joined once: its time, its key and the chain test read it there, where
   * a lookup each would read the same turn row three times per candidate. A left join: a row whose
   * turn is missing reads as it did through the lookups (no time, no turn key, in no chain).
   */
  turnJoin?: string;
  alias: string;
  fts: string;
  /** The text the index holds for a row. */
  text: string;
  ts: string;
  /** Rows of the chain's parts: its own, and a fork's parent's up to the fork point. */
  chain: (parts: readonly ChainPart[], params: Record<string, string | number>) => string;
  project: string;
  /** What a hit is called (role, L3 kind and tool, event type). */
  label: string;
  /** `origin:turn_number` of the row's turn, or NULL. */
  turn: string;
  /** Rows that are never results, given `$push` (the push's heading). */
  excluded?: string;
  hit: string;
}

/** The host of a hit's own session (schema 14), by primary key. */
const HOST_OF = (origin: string) => `(SELECT hs.host FROM sessions hs WHERE hs.id = ${origin}) AS host`;

const INDEXES: Record<SearchKind, IndexSql> = {
  l2: {
    base: "bodies b",
    turnJoin: "LEFT JOIN turns t ON t.id = b.turn_id",
    alias: "b",
    fts: "bodies_fts",
    text: "b.text",
    ts: "t.started_at",
    chain: (parts, params) => partsWhere(parts, "t", params),
    project: "b.origin_session_id IN (SELECT id FROM sessions WHERE project = $scope)",
    label: "b.role",
    turn: "t.origin_session_id || ':' || t.turn_number",
    hit: `SELECT b.id, b.role AS label, substr(b.text, 1, 32768) AS text, ${liveOfKey("t.session_id")} AS session,
            t.origin_session_id AS origin, ${HOST_OF("t.origin_session_id")}, t.turn_number, t.started_at AS at, t.started_at AS ts
          FROM bodies b JOIN turns t ON t.id = b.turn_id`,
  },
  l3: {
    base: "details d",
    turnJoin: "LEFT JOIN turns t ON t.id = d.turn_id",
    alias: "d",
    fts: "details_fts",
    text: "substr(coalesce(d.tool_name, '') || ' ' || coalesce(d.input, '') || char(10) || coalesce(d.output, ''), 1, 32768)",
    ts: "d.created_at",
    // Rows without a turn (content before a transcript's first prompt) follow their origin session.
    chain: (parts, params) =>
      `((t.id IS NOT NULL AND ${partsWhere(parts, "t", params)})
        OR (d.turn_id IS NULL AND d.origin_session_id IN
            (SELECT p.origin_session_id FROM turns p WHERE ${partsWhere(parts, "p", params)} UNION SELECT $scope)))`,
    project: "d.origin_session_id IN (SELECT id FROM sessions WHERE project = $scope)",
    label: "d.kind || coalesce(' ' || d.tool_name, '')",
    turn: "d.origin_session_id || ':' || t.turn_number",
    // The push as Claude Code records it: the UserPromptSubmit hook's output, an attachment.
    excluded: "d.kind = 'hook' AND instr(coalesce(d.output, ''), $push) > 0",
    // The call's place among the turn's tool calls: its input's, for an output (parallel calls
    // write both inputs before either output).
    hit: `SELECT d.id, d.kind || coalesce(' ' || d.tool_name, '') AS label,
            CASE WHEN d.kind IN ('tool_input', 'tool_output') AND d.turn_id IS NOT NULL THEN
              (SELECT count(*) FROM details x WHERE x.turn_id = d.turn_id AND x.kind = 'tool_input' AND x.ord <=
                coalesce((SELECT y.ord FROM details y WHERE y.turn_id = d.turn_id AND y.kind = 'tool_input'
                          AND y.tool_use_id = d.tool_use_id LIMIT 1), d.ord)) END AS call_no,
            CASE WHEN d.kind IN ('tool_input', 'tool_output') AND d.turn_id IS NOT NULL THEN
              (SELECT count(*) FROM details x WHERE x.turn_id = d.turn_id AND x.kind = 'tool_input') END AS calls,
            substr(coalesce(d.tool_name, '') || ' ' || coalesce(d.input, '') || char(10) || coalesce(d.output, ''), 1, 32768) AS text,
            coalesce(${liveOfKey("t.session_id")}, d.origin_session_id) AS session, d.origin_session_id AS origin,
            ${HOST_OF("d.origin_session_id")}, t.turn_number,
            coalesce(t.started_at, d.created_at) AS at, d.created_at AS ts
          FROM details d LEFT JOIN turns t ON t.id = d.turn_id`,
  },
  events: {
    base: "events e",
    alias: "e",
    fts: "events_fts",
    text: "(e.type || ' ' || e.summary || char(10) || e.detail)",
    ts: "e.ts",
    chain: (parts, params) => partsWhere(parts, "e", params, { events: true }),
    project: "e.project = $scope",
    label: "e.type",
    turn: "e.origin_session_id || ':' || e.turn_number",
    hit: `SELECT e.id, e.type AS label, e.summary || char(10) || e.detail AS text, ${liveOfKey("e.session_id")} AS session,
            e.origin_session_id AS origin, ${HOST_OF("e.origin_session_id")}, e.turn_number, coalesce(t.started_at, e.ts) AS at, e.ts AS ts
          FROM events e LEFT JOIN turns t ON t.origin_session_id = e.origin_session_id AND t.turn_number = e.turn_number`,
  },
};

/** The lowest and highest row id a scope holds in one index. */
export interface ScopeBounds {
  lo: number;
  hi: number;
}

/** What each search kind's rows are kept under in chain_spans (schema 15). */
const SPAN_KINDS: Record<SearchKind, readonly string[]> = {
  l2: ["l2"],
  l3: ["l3", "loose"],
  events: ["events"],
};

/**
 * A range of row ids per index holding every row of a chain (null for an index where it holds
 * none); undefined for the other scopes. A search bounds its walk of each index by it
 * (docs/search.md, "Scopes"): a chain is a few sessions of a large database, and without the
 * bounds every row of the whole database holding the trigrams is read to learn that it is not
 * the chain's. Read from the spans the writers keep per chain key (schema 15): a few rows, where
 * the rows' own ids would cost a lookup per turn of the chain. Tool rows before a first prompt
 * are kept under their transcript: the chain's transcripts, and the live session's own.
 */
export function scopeBounds(
  db: Database,
  kinds: readonly SearchKind[],
  scope: Scope,
  parts?: readonly ChainPart[],
): Map<SearchKind, ScopeBounds | null> | undefined {
  if (scope.kind !== "chain" || kinds.length === 0) return undefined;
  const rows = spansOf(
    db,
    (parts ?? chainParts(db, scope.live)).map((p) => p.key),
    scope.live,
  );
  const out = new Map<SearchKind, ScopeBounds | null>();
  for (const k of kinds) {
    const spans = rows.filter((r) => SPAN_KINDS[k].includes(r.kind));
    out.set(
      k,
      spans.length === 0
        ? null
        : { lo: Math.min(...spans.map((r) => r.lo)), hi: Math.max(...spans.map((r) => r.hi)) },
    );
  }
  return out;
}

function scopeWhere(
  db: Database,
  ix: IndexSql,
  q: SearchQuery,
  params: Record<string, string | number>,
): string[] {
  const scope = q.scope;
  if (scope.kind === "chain") {
    // The chain's own rows, and a fork's parent's up to the fork point (docs/contract.md#forks).
    if (ix.alias === "d") params.scope = scope.live; // rows before a first prompt follow their session
    return [ix.chain(q.parts ?? chainParts(db, scope.live), params)];
  }
  if (scope.kind === "project") {
    params.scope = scope.project;
    return [ix.project];
  }
  return [];
}

/**
 * `lowered` with each pair's upper case replaced by its lower case: SQLite's lower() folds
 * ASCII only. Parameter names come from the loop index; the letters are bound.
 */
function foldedText(
  lowered: string,
  folds: readonly (readonly [string, string])[],
  params: Record<string, string | number>,
): string {
  let expr = lowered;
  folds.forEach(([from, to], i) => {
    params[`fold${i}`] = from;
    params[`to${i}`] = to;
    expr = `replace(${expr}, $fold${i}, $to${i})`;
  });
  return expr;
}

/**
 * SQL tests of a parsed query's clauses. An ASCII form is `LIKE '%form%'` on the raw text:
 * LIKE folds ASCII case itself, so no lower() copy of the text is made for it (a lower() per form
 * and row is what made an OR of forms slow). Any other form is a substring of the folded text.
 * A start-only form is tested as a substring here; whether it starts a word is checked on the text
 * where ranking reads it (core/search.ts rankCandidates): a GLOB for word starts costs ten times
 * a LIKE. Parameter names come from loop indexes; the values are bound.
 */
function clauseTests(
  clauses: readonly (readonly Form[])[],
  raw: string,
  folded: string,
  params: Record<string, string | number>,
): string[] {
  let n = 0;
  // A clause without forms would hold nowhere; it is not a test.
  return clauses
    .filter((forms) => forms.length > 0)
    .map((forms) => {
      const tests = forms.map((f) => {
        const name = `f${n++}`;
        if (/^[\x20-\x7e]*$/.test(f.s)) {
          params[name] = `%${f.s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
          return `${raw} LIKE $${name} ESCAPE '\\'`;
        }
        params[name] = f.s;
        return `instr(${folded}, $${name}) > 0`;
      });
      return `(${tests.join(" OR ")})`;
    });
}

/**
 * The newest matching rows of one index in the scope, at most `cap` (one more tells that
 * more exist). Newest = highest rowid, the order FTS5 walks cheaply.
 */
export function searchCandidates(
  db: Database,
  kind: SearchKind,
  q: SearchQuery,
  cap: number,
): { candidates: SearchCandidate[]; capped: boolean } {
  const ix = INDEXES[kind];
  if (q.bounds === null) return { candidates: [], capped: false };
  const params: Record<string, string | number> = { cap: Math.max(0, Math.floor(cap)) + 1, head: RANK_HEAD };
  const where = scopeWhere(db, ix, q, params);
  // Every row of the scope lies within its bounds, so they only spare the walk the rows outside.
  let range = "";
  if (q.bounds !== undefined) {
    params.lo = q.bounds.lo;
    params.hi = q.bounds.hi;
    range = ` AND ${q.match !== null ? `${ix.fts}.rowid` : `${ix.alias}.id`} BETWEEN $lo AND $hi`;
  }
  if (ix.excluded) {
    params.push = PUSH_HEADING;
    where.push(`NOT (${ix.excluded})`);
  }
  const folded = foldedText(`lower(${ix.text})`, q.folds ?? [], params);
  if (q.clauses) where.push(...clauseTests(q.clauses, ix.text, folded, params));
  else {
    const tests = (q.substrings ?? []).map((s, i) => {
      // Parameter names come from the loop index; the values are bound.
      params[`sub${i}`] = s;
      return `instr(${folded}, $sub${i}) > 0`;
    });
    if (tests.length > 0) where.push(q.anySubstring ? `(${tests.join(" OR ")})` : tests.join(" AND "));
  }
  // The rows are the candidates as they come (a ranking reads hundreds of them in a cold process):
  // `kind` is the index's own name, never input.
  const select = `SELECT '${kind}' AS kind, ${ix.alias}.id AS id, coalesce(substr(${ix.text}, 1, $head), '') AS head,
    coalesce(length(${ix.text}), 0) AS length, coalesce(${ix.ts}, 0) AS ts, ${ix.label} AS label, ${ix.turn} AS turn`;
  let sql: string;
  if (q.match !== null) {
    params.match = q.match;
    sql = `${select} FROM ${ix.fts} JOIN ${ix.base} ON ${ix.alias}.id = ${ix.fts}.rowid ${ix.turnJoin ?? ""}
           WHERE ${ix.fts} MATCH $match${range}${where.length ? ` AND ${where.join(" AND ")}` : ""}
           ORDER BY ${ix.fts}.rowid DESC LIMIT $cap`;
  } else {
    // No term is long enough for the trigram index: a bounded scan, newest rows first.
    sql = `${select} FROM ${ix.base} ${ix.turnJoin ?? ""} WHERE 1${range}${where.length ? ` AND ${where.join(" AND ")}` : ""}
           ORDER BY ${ix.alias}.id DESC LIMIT $cap`;
  }
  const rows = db.query<SearchCandidate, Record<string, string | number>>(sql).all(params);
  const capped = rows.length > cap;
  return { candidates: capped ? rows.slice(0, cap) : rows, capped };
}

interface HitRow {
  id: number;
  label: string;
  call_no?: number | null;
  calls?: number | null;
  text: string | null;
  session: string;
  origin: string;
  host: string | null;
  turn_number: number | null;
  at: number;
  ts: number;
}

/** The rows behind ranked candidates, with their text (first 32 KiB), turn and times. */
export function searchHits(
  db: Database,
  kind: SearchKind,
  ranked: readonly { id: number; score: number }[],
): SearchHit[] {
  if (ranked.length === 0) return [];
  const ix = INDEXES[kind];
  const rows = db
    .query<HitRow, { ids: string }>(`${ix.hit} WHERE ${ix.alias}.id IN (SELECT value FROM json_each($ids))`)
    .all({ ids: JSON.stringify(ranked.map((r) => r.id)) });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: SearchHit[] = [];
  for (const { id, score } of ranked) {
    const r = byId.get(id);
    if (!r) continue;
    let text = r.text ?? "";
    if (kind === "events") {
      const nl = text.indexOf("\n");
      text = nl < 0 ? text : eventText(text.slice(0, nl), text.slice(nl + 1));
    }
    out.push({
      kind,
      id,
      score,
      label: r.label,
      text,
      session: r.session,
      origin: r.origin,
      ...hostField(r.host),
      turnNumber: r.turn_number,
      at: r.at,
      ts: r.ts,
      ...(r.call_no ? { call: { n: r.call_no, of: Math.max(r.calls ?? 0, r.call_no) } } : {}),
    });
  }
  return out;
}
