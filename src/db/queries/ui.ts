/**
 * Reads of the web view (`throughline ui`, docs/ui.md): pages of projects, chains and turns,
 * each `LIMIT $limit + 1` rows from an index (the extra row says whether a next page exists).
 * Read-only like every pull.
 */
import type { Database } from "bun:sqlite";
import { FINAL_TEXT } from "../row-forms.ts";
import type { TurnRow } from "./chain.ts";
import { chainParts, partsWhere } from "./forks.ts";
import { liveOfKey } from "./sessions.ts";

type Params = Record<string, string | number | null>;

export interface ProjectRow {
  project: string | null;
  sessions: number;
  chains: number;
  turns: number;
  /** Characters of L2 text (prompts and replies). */
  chars: number;
  last: number;
}

/** Projects, most recently active first: one row per `sessions.project`. */
export function projectsPage(db: Database, limit: number, offset: number): ProjectRow[] {
  return db
    .query<ProjectRow, Params>(
      `SELECT s.project, count(*) AS sessions, count(DISTINCT s.chain) AS chains,
              coalesce(sum(tc.n), 0) AS turns, coalesce(sum(tc.chars), 0) AS chars,
              coalesce(max(tc.last), max(s.updated_at)) AS last
       FROM sessions s
       LEFT JOIN (SELECT origin_session_id AS o, count(*) AS n, sum(user_chars + assistant_chars) AS chars,
                         max(ended_at) AS last
                  FROM turns GROUP BY origin_session_id) tc ON tc.o = s.id
       GROUP BY s.project ORDER BY last DESC, s.project LIMIT $limit OFFSET $offset`,
    )
    .all({ limit, offset });
}

export interface ChainRow {
  /** The chain's live end: the id every read of it takes. */
  id: string;
  project: string | null;
  created_at: number;
  updated_at: number;
  sessions: number;
  turns: number;
  fork: number;
  /** End of the chain's newest own turn; null before its first. */
  last: number | null;
}

/** A project's chains (their live ends), most recently updated first. */
export function chainsPage(db: Database, project: string | null, limit: number, offset: number): ChainRow[] {
  return db
    .query<ChainRow, Params>(
      `SELECT s.id, s.project, s.created_at, s.updated_at, s.fork_uuid IS NOT NULL AS fork,
              (SELECT count(*) FROM sessions c WHERE c.chain = s.chain) AS sessions,
              (SELECT count(*) FROM turns t WHERE t.session_id = s.chain) AS turns,
              (SELECT max(t.ended_at) FROM turns t WHERE t.session_id = s.chain) AS last
       FROM sessions s
       WHERE s.project IS $project AND s.merged_into IS NULL
       ORDER BY s.updated_at DESC, s.id LIMIT $limit OFFSET $offset`,
    )
    .all({ project, limit, offset });
}

/** A turn row of the chain queries, with what the web view adds. */
export interface UiTurnRow extends TurnRow {
  /** The L1 line, when one was made. */
  summary: string | null;
  /** The live end of the chain holding the turn. */
  live: string;
}

const COLUMNS = `t.id, t.origin_session_id, t.turn_number, t.started_at, t.ended_at,
  u.text AS user_text, a.text AS assistant_text, ${FINAL_TEXT("a")} AS final_text,
  CASE WHEN k.error IS NULL THEN k.summary END AS summary, ${liveOfKey("t.session_id")} AS live`;
const JOINS = `LEFT JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
  LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'
  LEFT JOIN skeletons k ON k.turn_id = t.id`;

/** A page of a chain's turns, newest first (the order of the push: `started_at, origin, number`). */
export function chainTurnsPage(db: Database, live: string, limit: number, offset: number): UiTurnRow[] {
  const params: Params = { limit, offset };
  const where = partsWhere(chainParts(db, live), "t", params as Record<string, string | number>);
  return db
    .query<UiTurnRow, Params>(
      `SELECT ${COLUMNS} FROM turns t ${JOINS} WHERE ${where}
       ORDER BY t.started_at DESC, t.origin_session_id DESC, t.turn_number DESC LIMIT $limit OFFSET $offset`,
    )
    .all(params);
}

/** One turn by row id; null when there is none (forgotten, or never). */
export function turnById(db: Database, id: number): UiTurnRow | null {
  return db
    .query<UiTurnRow, { id: number }>(`SELECT ${COLUMNS} FROM turns t ${JOINS} WHERE t.id = $id`)
    .get({ id });
}

/** The row id of turn `number` of session `origin`'s transcript (a search hit's turn). */
export function turnIdOf(db: Database, origin: string, number: number): number | null {
  return (
    db
      .query<{ id: number }, Params>(
        "SELECT id FROM turns WHERE origin_session_id = $origin AND turn_number = $number",
      )
      .get({ origin, number })?.id ?? null
  );
}

export interface UiEventRow {
  origin_session_id: string;
  turn_number: number | null;
  ts: number;
  type: string;
  summary: string;
}

/** The activity events of some turns (by origin and number), in time order. */
export function eventsOfTurns(
  db: Database,
  turns: readonly { origin: string; number: number }[],
): UiEventRow[] {
  if (turns.length === 0) return [];
  return db
    .query<UiEventRow, { pairs: string }>(
      `SELECT e.origin_session_id, e.turn_number, e.ts, e.type, e.summary FROM events e
       JOIN (SELECT json_extract(value, '$[0]') AS o, json_extract(value, '$[1]') AS n FROM json_each($pairs)) p
         ON e.origin_session_id = p.o AND e.turn_number = p.n
       ORDER BY e.ts, e.seq`,
    )
    .all({ pairs: JSON.stringify(turns.map((t) => [t.origin, t.number])) });
}

/** The live end of session `id`'s chain and its project; null when the id is unknown. */
export function chainHead(db: Database, id: string): { project: string | null; created_at: number } | null {
  return db
    .query<{ project: string | null; created_at: number }, { id: string }>(
      "SELECT project, created_at FROM sessions WHERE id = $id",
    )
    .get({ id });
}

/**
 * Of these session ids, those the memory holds a turn of (as their own transcript's): the Live
 * page lists only these, so a forgotten session (`forget` took its turns) or one never captured
 * is not on it.
 */
export function sessionsWithTurns(db: Database, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  return new Set(
    db
      .query<{ id: string }, { ids: string }>(
        `SELECT DISTINCT origin_session_id AS id FROM turns
         WHERE origin_session_id IN (SELECT value FROM json_each($ids))`,
      )
      .all({ ids: JSON.stringify(ids) })
      .map((r) => r.id),
  );
}
