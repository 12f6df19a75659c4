/**
 * L1 summary bookkeeping: the atomic claim of the next turn to summarise, and the counts per
 * backend that `status`, `doctor` and the daily ceiling read (README, "What the summarizer costs").
 *
 * A skeleton row with neither summary nor error is a claim: a Stop worker is running the
 * backend for that turn. Other Stops skip it, so no turn is summarised twice; a claim older
 * than `staleBefore` (its worker died) may be taken again.
 */
import type { Database } from "bun:sqlite";
import { writeTransaction } from "../tx.ts";
import { chainKeyOf } from "./sessions.ts";
import type { UnsummarizedTurn } from "./skeletons.ts";

export interface ClaimRequest {
  live: string;
  window: number;
  backend: string;
  now: number;
  /** Rows of `backend` made since this time count towards `max`. */
  dayStart: number;
  /** Attempts allowed per day for this backend; null: no ceiling. */
  max: number | null;
  /** A claim made before this time belongs to a worker that died. */
  staleBefore: number;
}

export type Claim = { turn: UnsummarizedTurn } | { capped: number } | null;

/**
 * In one IMMEDIATE transaction: check the ceiling, pick the oldest turn of the chain outside
 * its newest `window` turns with no summary row (or only a stale claim), and claim it. Two
 * Stops racing each get a different turn, or nothing.
 */
export function claimNextTurn(db: Database, r: ClaimRequest): Claim {
  return writeTransaction(db, (): Claim => {
    if (r.max !== null) {
      const used = attemptsSince(db, r.backend, r.dayStart);
      if (used >= r.max) return { capped: used };
    }
    const edge = db
      .query<{ started_at: number }, { s: string; w: number }>(
        `SELECT started_at FROM turns WHERE session_id = ${chainKeyOf("$s")}
         ORDER BY started_at DESC, origin_session_id DESC, turn_number DESC LIMIT 1 OFFSET $w - 1`,
      )
      .get({ s: r.live, w: r.window });
    if (!edge) return null;
    const turn = db
      .query<UnsummarizedTurn, { s: string; edge: number; stale: number }>(
        `SELECT t.id, t.origin_session_id, t.turn_number,
                coalesce(u.text, '') AS user, coalesce(a.text, '') AS assistant
         FROM turns t
         LEFT JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
         LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'
         WHERE t.session_id = ${chainKeyOf("$s")} AND t.started_at < $edge
           AND NOT EXISTS (SELECT 1 FROM skeletons k WHERE k.turn_id = t.id
                             AND NOT (k.summary IS NULL AND k.error IS NULL AND k.created_at < $stale))
         ORDER BY t.started_at, t.origin_session_id, t.turn_number LIMIT 1`,
      )
      .get({ s: r.live, edge: edge.started_at, stale: r.staleBefore });
    if (!turn) return null;
    db.query(
      `INSERT INTO skeletons (turn_id, summary, backend, error, created_at) VALUES ($turn, NULL, $backend, NULL, $now)
       ON CONFLICT(turn_id) DO UPDATE SET summary = NULL, backend = excluded.backend, error = NULL,
         created_at = excluded.created_at`,
    ).run({ turn: turn.id, backend: r.backend, now: r.now });
    return { turn };
  });
}

/** Rows (summaries, failures and running claims) a backend made since `since`. */
export function attemptsSince(db: Database, backend: string, since: number): number {
  return (
    db
      .query<{ n: number }, { b: string; since: number }>(
        "SELECT count(*) AS n FROM skeletons WHERE backend = $b AND created_at >= $since",
      )
      .get({ b: backend, since }) ?? { n: 0 }
  ).n;
}

export interface BackendCounts {
  backend: string;
  /** Summaries stored since the start of the day (UTC). */
  today: number;
  /** Attempts that failed today (the turn stays unsummarised, with the reason). */
  failed_today: number;
  /** Summaries stored, all time. */
  total: number;
}

/** Per backend: summaries made today and in total, and today's failures. */
export function summaryCounts(db: Database, dayStart: number): BackendCounts[] {
  return db
    .query<BackendCounts, { day: number }>(
      `SELECT backend,
              sum(summary IS NOT NULL AND created_at >= $day) AS today,
              sum(error IS NOT NULL AND created_at >= $day) AS failed_today,
              sum(summary IS NOT NULL) AS total
       FROM skeletons GROUP BY backend ORDER BY backend`,
    )
    .all({ day: dayStart });
}
