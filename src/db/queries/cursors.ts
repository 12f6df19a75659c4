import type { Database } from "bun:sqlite";

/** An ingest cursor: how far a transcript has been read. */
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

export function cursorsOf(db: Database, sessionId: string): IngestRow[] {
  return db
    .query<IngestRow, { s: string }>(
      "SELECT session_id, transcript_path, offset, size, skipped_lines, updated_at FROM ingest_cursors WHERE session_id = $s",
    )
    .all({ s: sessionId });
}
