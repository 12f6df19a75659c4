import type { Database } from "bun:sqlite";

export interface LayerCounts {
  sessions: number;
  live_sessions: number;
  turns: number;
  l2_bodies: number;
  l3_details: number;
  l1_summaries: number;
  events: number;
  hook_errors: number;
}

export function layerCounts(db: Database): LayerCounts {
  const n = (sql: string) => (db.query(sql).get() as { n: number }).n;
  return {
    sessions: n("SELECT count(*) AS n FROM sessions"),
    live_sessions: n("SELECT count(*) AS n FROM sessions WHERE merged_into IS NULL"),
    turns: n("SELECT count(*) AS n FROM turns"),
    l2_bodies: n("SELECT count(*) AS n FROM bodies"),
    l3_details: n("SELECT count(*) AS n FROM details"),
    l1_summaries: n("SELECT count(*) AS n FROM skeletons WHERE summary IS NOT NULL"),
    events: n("SELECT count(*) AS n FROM events"),
    hook_errors: n("SELECT count(*) AS n FROM hook_errors"),
  };
}

export interface RecentSession {
  id: string;
  project: string | null;
  updated_at: number;
  turns: number;
  merged_into: string | null;
}

export function recentSessions(db: Database, limit: number): RecentSession[] {
  return db
    .query<RecentSession, { limit: number }>(
      `SELECT s.id, s.project, s.updated_at, s.merged_into,
              (SELECT count(*) FROM turns t WHERE t.session_id = s.id) AS turns
       FROM sessions s WHERE s.merged_into IS NULL ORDER BY s.updated_at DESC LIMIT $limit`,
    )
    .all({ limit });
}

/** Sessions whose rows now live in `live`, by origin, oldest first. */
export function chainOf(db: Database, live: string): { id: string; turns: number; created_at: number }[] {
  return db
    .query<{ id: string; turns: number; created_at: number }, { live: string }>(
      `SELECT s.id, (SELECT count(*) FROM turns t WHERE t.origin_session_id = s.id) AS turns, s.created_at
       FROM sessions s
       WHERE s.id = $live OR s.id IN (SELECT DISTINCT origin_session_id FROM turns WHERE session_id = $live)
       ORDER BY s.created_at, s.id`,
    )
    .all({ live });
}
