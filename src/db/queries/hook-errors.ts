import type { Database } from "bun:sqlite";
import { redact } from "../../core/redact.ts";

/**
 * What a hook could not do (docs/hooks.md, "Bad input"): one row per failure, read by `doctor`.
 * Its own module so that an ordinary hook, which records nothing, never loads the redactor.
 */
export function recordHookError(
  db: Database,
  event: string,
  sessionId: string | null,
  message: string,
  now: number,
): void {
  db.query(
    "INSERT INTO hook_errors (event, session_id, message, created_at) VALUES ($event, $sid, $msg, $now)",
  ).run({
    event,
    sid: sessionId,
    // An error can quote its input (a path, a command line): stored redacted like everything else.
    msg: redact(message),
    now,
  });
}

export interface HookErrorRow {
  event: string;
  session_id: string | null;
  message: string;
  created_at: number;
}

/** The newest `limit` errors recorded at or after `since`, newest first. */
export function hookErrorsSince(db: Database, since: number, limit: number): HookErrorRow[] {
  return db
    .query<HookErrorRow, { since: number; limit: number }>(
      `SELECT event, session_id, message, created_at FROM hook_errors
       WHERE created_at >= $since ORDER BY id DESC LIMIT $limit`,
    )
    .all({ since, limit });
}

/** How many errors were recorded at or after `since` and before it, and the newest row id (0: none). */
export function hookErrorCounts(
  db: Database,
  since: number,
): { recent: number; older: number; newest: number } {
  return db
    .query<{ recent: number; older: number; newest: number }, { since: number }>(
      `SELECT coalesce(sum(created_at >= $since), 0) AS recent, coalesce(sum(created_at < $since), 0) AS older,
              coalesce(max(id), 0) AS newest
       FROM hook_errors`,
    )
    .get({ since })!;
}

/**
 * `doctor --clear-errors`: removes the errors up to row `newest` (the ones doctor counted; one
 * recorded since stays) and returns how many it removed.
 */
export function clearHookErrors(db: Database, newest: number): number {
  return db.query("DELETE FROM hook_errors WHERE id <= $newest").run({ newest }).changes;
}
