import type { Database } from "bun:sqlite";

export interface UnsummarizedTurn {
  id: number;
  origin_session_id: string;
  turn_number: number;
  user: string;
  assistant: string;
}

/**
 * The oldest turn of the chain outside its newest `window` turns that has no L1 row yet.
 * Two index walks, not a scan of the chain: the window's oldest start, then the chain from its
 * oldest turn, skipping summarised ones by primary key. A Stop pays the same on turn 1,000.
 */
export function oldestUnsummarized(db: Database, live: string, window: number): UnsummarizedTurn | null {
  const edge = db
    .query<{ started_at: number }, { s: string; w: number }>(
      `SELECT started_at FROM turns WHERE session_id = $s
       ORDER BY started_at DESC, origin_session_id DESC, turn_number DESC LIMIT 1 OFFSET $w - 1`,
    )
    .get({ s: live, w: window });
  if (!edge) return null;
  return db
    .query<UnsummarizedTurn, { s: string; edge: number }>(
      `SELECT t.id, t.origin_session_id, t.turn_number,
              coalesce(u.text, '') AS user, coalesce(a.text, '') AS assistant
       FROM turns t
       LEFT JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
       LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'
       WHERE t.session_id = $s AND t.started_at < $edge
         AND NOT EXISTS (SELECT 1 FROM skeletons k WHERE k.turn_id = t.id)
       ORDER BY t.started_at, t.origin_session_id, t.turn_number LIMIT 1`,
    )
    .get({ s: live, edge: edge.started_at });
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
