/**
 * Whether a transcript may hold bytes its cursor has not read, answered from the cursor row and
 * one native stat, before the ingest code is loaded (~1.5 ms of modules and node:fs cold,
 * docs/benchmarks.md). Usually the session's last Stop read it all, so PreCompact, SessionEnd, the
 * push after a compaction and the handoff find nothing to do here.
 */
import type { Database } from "bun:sqlite";
import { readMarked } from "../db/marks/read.ts";
import { getCursor, grownSince, stateOf } from "./read-state.ts";

/** A subagents folder that exists: its files have cursors of their own, which only the ingest checks. */
function hasSubagents(path: string): boolean {
  return Bun.file(`${path.replace(/\.jsonl$/, "")}/subagents`).size > 0;
}

/** Same size and not modified since the cursor's read: nothing to read. */
export function mayHaveGrown(db: Database, path: string): boolean {
  return grownSince(stateOf(path), getCursor(db, path));
}

/**
 * The session's own transcript, or any of its subagents' (src/capture/ingest.ts reads them from
 * `<transcript without .jsonl>/subagents/`): a subagents folder that exists counts as unread, so
 * such a session takes the whole ingest, which checks each file's cursor.
 */
export function sessionMayHaveGrown(db: Database, path: string): boolean {
  return mayHaveGrown(db, path) || hasSubagents(path);
}

/**
 * The same answer without SQLite, from the read mark a writer left after its commit
 * (src/db/marks/): true only when this very state of the transcript (path, size,
 * modification time) was marked read and no subagents folder is beside it. Any doubt is false:
 * ask the database.
 */
export function readToTheEnd(dbPath: string, sessionId: string, transcriptPath: string | null): boolean {
  if (!transcriptPath) return Bun.file(dbPath).size > 0;
  return readMarked(dbPath, sessionId, stateOf(transcriptPath)) && !hasSubagents(transcriptPath);
}

/**
 * The same question asked on a read-only connection, for a hook that writes nothing when the
 * answer is no (PreCompact, SessionEnd but after `/clear`): a reader opens and closes cheaper than
 * a writer with its kept log (src/db/open.ts). Any doubt (no database yet, an older schema, a
 * lock) answers yes, and the writer finds out.
 */
export function peekUnread(dbPath: string, transcriptPath: string | null): boolean {
  if (!transcriptPath) return false;
  try {
    const { withReader } = require("../db/open.ts") as typeof import("../db/open.ts");
    return withReader(dbPath, (db) => sessionMayHaveGrown(db, transcriptPath));
  } catch {
    return true;
  }
}

/**
 * PreCompact, SessionEnd and the push after a compaction: store what the session's transcripts
 * hold past their cursors, loading the ingest only when there may be some. True when it ingested.
 */
export function ingestUnread(
  db: Database,
  hook: { transcriptPath: string | null; sessionId: string; project: string | null },
  now: number,
): boolean {
  if (!hook.transcriptPath || !sessionMayHaveGrown(db, hook.transcriptPath)) return false;
  const { ingestNamedSession } = require("./session.ts") as typeof import("./session.ts");
  ingestNamedSession(db, hook, now);
  return true;
}
