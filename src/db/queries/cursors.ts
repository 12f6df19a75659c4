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

/** Every transcript the database has read (by path) and the sessions those belong to: what history is in memory. */
export function ingestedTranscripts(db: Database): { paths: Set<string>; sessions: Set<string> } {
  const paths = new Set<string>();
  const sessions = new Set<string>();
  for (const r of db
    .query<{ transcript_path: string; session_id: string }, []>(
      "SELECT transcript_path, session_id FROM ingest_cursors",
    )
    .all()) {
    paths.add(r.transcript_path);
    sessions.add(r.session_id);
  }
  return { paths, sessions };
}
