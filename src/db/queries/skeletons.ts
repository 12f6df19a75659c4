import type { Database } from "bun:sqlite";

export interface UnsummarizedTurn {
  id: number;
  origin_session_id: string;
  turn_number: number;
  user: string;
  assistant: string;
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
