import type { Database } from "bun:sqlite";

export function quickCheck(db: Database): string {
  return (db.query("PRAGMA quick_check").get() as { quick_check: string }).quick_check;
}

export function schemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
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

export interface IngestRow {
  session_id: string;
  transcript_path: string;
  offset: number;
  size: number;
  skipped_lines: number;
  updated_at: number;
}

export function lastIngests(db: Database, limit: number): IngestRow[] {
  return db
    .query<IngestRow, { limit: number }>(
      `SELECT session_id, transcript_path, offset, size, skipped_lines, updated_at FROM ingest_cursors
       ORDER BY updated_at DESC LIMIT $limit`,
    )
    .all({ limit });
}

export function sessionsByPrefix(db: Database, prefix: string): string[] {
  return db
    .query<{ id: string }, { p: string }>(
      "SELECT id FROM sessions WHERE substr(id, 1, length($p)) = $p ORDER BY id LIMIT 5",
    )
    .all({ p: prefix })
    .map((r) => r.id);
}

export function cursorsOf(db: Database, sessionId: string): IngestRow[] {
  return db
    .query<IngestRow, { s: string }>(
      "SELECT session_id, transcript_path, offset, size, skipped_lines, updated_at FROM ingest_cursors WHERE session_id = $s",
    )
    .all({ s: sessionId });
}

/** Sessions merged (directly) into `id`: its predecessors. */
export function mergedInto(db: Database, id: string): string[] {
  return db
    .query<{ id: string }, { id: string }>(
      "SELECT id FROM sessions WHERE merged_into = $id ORDER BY created_at",
    )
    .all({ id })
    .map((r) => r.id);
}

export function turnCounts(db: Database, id: string): { own: number; chain: number } {
  const own = (
    db.query("SELECT count(*) AS n FROM turns WHERE origin_session_id = $id").get({ id }) as { n: number }
  ).n;
  const chain = (
    db.query("SELECT count(*) AS n FROM turns WHERE session_id = $id").get({ id }) as { n: number }
  ).n;
  return { own, chain };
}
