/**
 * A transcript's state (size, modification time) against its cursor, and the read mark a session's
 * ingest leaves after its commit (src/db/marks/read.ts). Below both the ingest (src/capture/session.ts)
 * and the questions asked before it loads (src/capture/unread.ts), so neither imports the other.
 */
import type { Database } from "bun:sqlite";
import { noteRead, type ReadState } from "../db/marks/read.ts";
import type { CursorRow } from "../db/queries/capture.ts";

/** The cursor row: its queries load only for a question the marks did not answer. */
export function getCursor(db: Database, path: string): CursorRow | null {
  return (require("../db/queries/capture.ts") as typeof import("../db/queries/capture.ts")).getCursor(
    db,
    path,
  );
}

/** The file's size and modification time, natively. */
export function stateOf(path: string): ReadState {
  const f = Bun.file(path);
  return { path, size: f.size, mtime: f.lastModified };
}

/** Same size and not modified since the cursor's read: nothing to read. */
export function grownSince(s: ReadState, cursor: CursorRow | null): boolean {
  return cursor === null || s.size !== cursor.size || !(s.mtime <= cursor.updated_at);
}

/**
 * After a session's ingest committed: when the cursor has read the file as it is now, mark this
 * state read for the waited-for hooks (the very question `mayHaveGrown` asks of the cursor).
 */
export function markRead(db: Database, sessionId: string, path: string): void {
  const state = stateOf(path);
  if (!grownSince(state, getCursor(db, path))) noteRead(db, sessionId, state);
}
