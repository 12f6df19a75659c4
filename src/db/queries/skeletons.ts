import type { Database } from "bun:sqlite";

export interface UnsummarizedTurn {
  id: number;
  origin_session_id: string;
  turn_number: number;
  user: string;
  assistant: string;
}

/** The oldest turn of the chain outside its newest `window` turns that has no L1 row yet. */
export function oldestUnsummarized(db: Database, live: string, window: number): UnsummarizedTurn | null {
  return db
    .query<UnsummarizedTurn, { s: string; w: number }>(
      `WITH older AS (
         SELECT id, origin_session_id, turn_number, started_at FROM turns WHERE session_id = $s
         ORDER BY started_at DESC, origin_session_id DESC, turn_number DESC LIMIT -1 OFFSET $w)
       SELECT o.id, o.origin_session_id, o.turn_number,
              coalesce(u.text, '') AS user, coalesce(a.text, '') AS assistant
       FROM older o
       LEFT JOIN skeletons k ON k.turn_id = o.id
       LEFT JOIN bodies u ON u.turn_id = o.id AND u.role = 'user'
       LEFT JOIN bodies a ON a.turn_id = o.id AND a.role = 'assistant'
       WHERE k.turn_id IS NULL
       ORDER BY o.started_at, o.origin_session_id, o.turn_number LIMIT 1`,
    )
    .get({ s: live, w: window });
}

export function putSkeleton(
  db: Database,
  s: { turnId: number; summary: string | null; backend: string; error: string | null; now: number },
): void {
  db.query(
    `INSERT INTO skeletons (turn_id, summary, backend, error, created_at) VALUES ($turn, $summary, $backend, $error, $now)
     ON CONFLICT(turn_id) DO UPDATE SET summary = excluded.summary, backend = excluded.backend, error = excluded.error,
       created_at = excluded.created_at`,
  ).run({ turn: s.turnId, summary: s.summary, backend: s.backend, error: s.error, now: s.now });
}
