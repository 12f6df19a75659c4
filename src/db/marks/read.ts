import type { Database } from "bun:sqlite";
import { dirOf, fileOf, SAFE_ID } from "./store.ts";

// ---------------------------------------------------------------------------------------------
// Read marks and clear marks (docs/hooks.md, "Hooks that find nothing to write"): the same
// directory answers two more questions of a waited-for hook without SQLite. Each lives in its own
// subdirectory, so the intents' listing above (files only) never sees them.

/**
 * A transcript as a writer found it right after committing a cursor that had read it all: the
 * database would answer "nothing unread" for a file of this size and modification time. The mark
 * is a fact in a file's name, `read/<session>/<path hash>.<size>.<mtime>`, so asking it is one stat.
 */
export interface ReadState {
  path: string;
  size: number;
  mtime: number;
}

function readMarkName(s: ReadState): string {
  return `${Bun.hash(s.path).toString(36)}.${s.size}.${s.mtime}`;
}

/**
 * After the commit, outside any transaction: a mark is never ahead of the database (a crash
 * before this write leaves an older mark or none, and a mark of an older state no longer matches
 * the file: both only send a hook the long way). The session's older marks go. Best effort.
 */
export function noteRead(db: Database, sessionId: string, state: ReadState): void {
  const path = fileOf(db);
  if (path === null || db.inTransaction || !SAFE_ID.test(sessionId)) return;
  const dir = `${dirOf(path)}/read/${sessionId}`;
  const name = readMarkName(state);
  try {
    const fs = require("node:fs") as typeof import("node:fs");
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${dir}/${name}`, "1", { mode: 0o600 });
    for (const old of fs.readdirSync(dir)) if (old !== name) fs.rmSync(`${dir}/${old}`, { force: true });
  } catch {
    // the next hook asks the database
  }
}

/** Whether a writer marked this very state of the transcript read (false when the database is gone). */
export function readMarked(dbPath: string, sessionId: string, state: ReadState): boolean {
  return (
    SAFE_ID.test(sessionId) &&
    Bun.file(dbPath).size > 0 &&
    Bun.file(`${dirOf(dbPath)}/read/${sessionId}/${readMarkName(state)}`).size > 0
  );
}

/**
 * A new database (its creation won): marks a removed one left would claim reads it never had, and
 * its kept status lines facts it never held.
 */
export function dropReadMarks(dbPath: string): void {
  const fs = require("node:fs") as typeof import("node:fs");
  for (const sub of ["read", "status"])
    fs.rmSync(`${dirOf(dbPath)}/${sub}`, { recursive: true, force: true });
}
