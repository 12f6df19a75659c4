/**
 * Reads of the web view (`throughline ui`, docs/ui.md): pages of projects, chains and turns,
 * each `LIMIT $limit + 1` rows from an index (the extra row says whether a next page exists).
 * Read-only like every pull.
 */
import type { Database } from "bun:sqlite";
import { FINAL_TEXT } from "../row-forms.ts";
import { HOST_OF_TURN, type TurnRow } from "./chain.ts";
import { chainParts, partsWhere } from "./forks.ts";
import { chainKeyOf, liveOfKey } from "./sessions.ts";

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
  /** The title the client gave a session of the chain (`/rename`), if any. */
  title: string | null;
  /** The head of the chain's first own prompt: what the chain is called when it has no title. */
  first_prompt: string | null;
}

/** The head of the first prompt of the turns keyed `key` (a chain's own turns), from the turns' index. */
const FIRST_PROMPT = (key: string) => `(SELECT substr(u.text, 1, 400) FROM turns t
  JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
  WHERE t.session_id = ${key} ORDER BY t.started_at, t.origin_session_id, t.turn_number LIMIT 1)`;

/** The newest title the client gave a session of chain `key`. */
const CHAIN_TITLE = (key: string) =>
  `(SELECT c.title FROM sessions c WHERE c.chain = ${key} AND c.title IS NOT NULL AND c.title <> ''
    ORDER BY c.updated_at DESC LIMIT 1)`;

/** A project's chains (their live ends), most recently updated first. */
export function chainsPage(db: Database, project: string | null, limit: number, offset: number): ChainRow[] {
  return db
    .query<ChainRow, Params>(
      `SELECT s.id, s.project, s.created_at, s.updated_at, s.fork_uuid IS NOT NULL AS fork,
              (SELECT count(*) FROM sessions c WHERE c.chain = s.chain) AS sessions,
              (SELECT count(*) FROM turns t WHERE t.session_id = s.chain) AS turns,
              (SELECT max(t.ended_at) FROM turns t WHERE t.session_id = s.chain) AS last,
              ${CHAIN_TITLE("s.chain")} AS title, ${FIRST_PROMPT("s.chain")} AS first_prompt
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
  CASE WHEN k.error IS NULL THEN k.summary END AS summary, ${liveOfKey("t.session_id")} AS live, ${HOST_OF_TURN}`;
const JOINS = `LEFT JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
  LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'
  LEFT JOIN skeletons k ON k.turn_id = t.id`;

/** A page of a chain's turns, oldest first (the order of the push: `started_at, origin, number`). */
export function chainTurnsPage(db: Database, live: string, limit: number, offset: number): UiTurnRow[] {
  const params: Params = { limit, offset };
  const where = partsWhere(chainParts(db, live), "t", params as Record<string, string | number>);
  return db
    .query<UiTurnRow, Params>(
      `SELECT ${COLUMNS} FROM turns t ${JOINS} WHERE ${where}
       ORDER BY t.started_at, t.origin_session_id, t.turn_number LIMIT $limit OFFSET $offset`,
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

export interface UiSessionRow {
  id: string;
  turns: number;
  created_at: number;
  title: string | null;
  first_prompt: string | null;
}

/**
 * The sessions of chain `live`, oldest first, each with the client's title and the head of its
 * first prompt: what the session is called in the view.
 */
export function chainSessions(db: Database, live: string): UiSessionRow[] {
  return db
    .query<UiSessionRow, { live: string }>(
      `SELECT s.id, (SELECT count(*) FROM turns t WHERE t.origin_session_id = s.id) AS turns, s.created_at,
              nullif(s.title, '') AS title,
              (SELECT substr(u.text, 1, 400) FROM turns t JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
               WHERE t.origin_session_id = s.id ORDER BY t.turn_number LIMIT 1) AS first_prompt
       FROM sessions s
       WHERE s.id = $live OR s.id IN (SELECT DISTINCT origin_session_id FROM turns WHERE session_id = ${chainKeyOf("$live")})
       ORDER BY s.created_at, s.id`,
    )
    .all({ live });
}

/** The title the client gave a session of chain `live`, if any. */
export function chainTitle(db: Database, live: string): string | null {
  return (
    db
      .query<{ title: string | null }, { live: string }>(
        `SELECT ${CHAIN_TITLE(chainKeyOf("$live"))} AS title`,
      )
      .get({ live })?.title ?? null
  );
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

export interface UiDetailRow {
  id: number;
  turn_id: number;
  kind: string;
  tool_name: string | null;
  tool_use_id: string | null;
  input: string | null;
  output: string | null;
  is_error: number;
  /** Where in the turn's reply the row happened (schema 12); null for rows stored before. */
  text_at: number | null;
}

/** The rows of some turns, each turn's in the order they happened. */
export function turnRowsOf(db: Database, turnIds: readonly number[]): UiDetailRow[] {
  if (turnIds.length === 0) return [];
  return db
    .query<UiDetailRow, { ids: string }>(
      `SELECT id, turn_id, kind, tool_name, tool_use_id, input, output, is_error, text_at
       FROM details WHERE turn_id IN (SELECT value FROM json_each($ids))
       ORDER BY turn_id, source <> 'transcript', ord, id`,
    )
    .all({ ids: JSON.stringify(turnIds) });
}
