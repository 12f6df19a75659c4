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

export function recentHookErrors(db: Database, limit: number): HookErrorRow[] {
  return db
    .query<HookErrorRow, { limit: number }>(
      "SELECT event, session_id, message, created_at FROM hook_errors ORDER BY id DESC LIMIT $limit",
    )
    .all({ limit });
}
