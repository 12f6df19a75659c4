/**
 * Pending-handoff marks: one small file, named after the session, per `pending_handoffs` row, in
 * `<database>-pending/`, beside the -wal and -shm files. Every prompt asks "is there a handoff
 * for me?" and almost always the answer is no: a mark that is absent answers that from one
 * native `Bun.file(..).size`, without loading bun:sqlite, opening the database or parsing its
 * schema (docs/benchmarks.md). The database stays the truth:
 *
 * - a mark is written before its row is committed, and removed only after the row is gone, so
 *   a row never lacks its mark (a mark without a row only sends one prompt the long way, which
 *   removes it);
 * - `<dir>/.marks` says the directory is kept this way. It is written once, when a writer first
 *   opens the database, after a mark for every row already in it (a database older than the
 *   marks), so its absence, an unreadable directory or a session id that is no safe file name
 *   all mean "ask the database".
 *
 * A mark holds "1", or, until a prompt folds it into its row, what SessionStart recorded (a
 * `StartIntent` as JSON): SessionStart writes only that file, so it never opens the database
 * (docs/hooks.md, "Which session a /clear continues").
 *
 * This module is the directory itself (its name, the sentinel, safe ids, one record's write); each
 * kind of record has its module beside it: pending.ts (pending marks and SessionStart's intents),
 * read.ts, status.ts, clear.ts, ahead.ts (the push printed ahead) and compaction.ts. The marks sit
 * below the database layer: src/db/open.ts imports them, never the other way round.
 */
import type { Database } from "bun:sqlite";

export const SENTINEL = ".marks";
/** Claude Code's session ids are UUIDs; anything else is asked of the database. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function dirOf(dbPath: string): string {
  return `${dbPath}-pending`;
}

/** A mark or the sentinel, written with node:fs (the writers that need it have loaded it anyway). */
export function writeMark(path: string): void {
  (require("node:fs") as typeof import("node:fs")).writeFileSync(path, "1", { mode: 0o600 });
}

/** The file of a database connection, or null for an in-memory or temporary one. */
export function fileOf(db: Database): string | null {
  const f = (db as Database & { filename?: string }).filename;
  return f && f !== ":memory:" && !f.startsWith("file:") ? f : null;
}

/**
 * A hook's record in the kept directory, written natively at `name` (relative to it; Bun.write
 * makes a missing subdirectory). False when the directory is not kept, the session id is no safe
 * file name, or the write failed: the caller writes its row instead.
 */
export async function writeRecord(
  dbPath: string,
  sessionId: string,
  name: string,
  value: object,
): Promise<boolean> {
  if (!SAFE_ID.test(sessionId) || Bun.file(`${dirOf(dbPath)}/${SENTINEL}`).size === 0) return false;
  // Files 0600 like the database's (docs/contract.md): Bun.write takes no mode, the umask does.
  const umask = process.umask(0o077);
  try {
    // One write(2) of a few hundred bytes: a reader sees the whole record or an empty file.
    await Bun.write(`${dirOf(dbPath)}/${name}`, JSON.stringify(value));
    return true;
  } catch {
    return false;
  } finally {
    process.umask(umask);
  }
}

/** A string field of a parsed record, else null. */
export const stringOrNull = (x: unknown): string | null => (typeof x === "string" ? x : null);

/**
 * The files of the directory (`sub` "" or one of its subdirectories, "clear/"), sorted; none when it
 * does not exist. Bun.Glob lists natively: ~1 ms where node:fs would cost ~2 ms to load
 * (docs/benchmarks.md).
 */
export function filesIn(dbPath: string, sub: "" | "clear/"): string[] {
  try {
    return [...new Bun.Glob("*").scanSync({ cwd: `${dirOf(dbPath)}/${sub}`, onlyFiles: true })].sort();
  } catch {
    return [];
  }
}

/**
 * Long enough that a write after a state was taken lands in a later modification time (Bun reads
 * it in whole ms; Linux file systems without fine-grained timestamps tick at 1-10 ms).
 */
export const SETTLED_MS = 100;

/**
 * How long after the newest of `times` a later write is sure to have a later time: SETTLED_MS, or a
 * second more where every time is a whole second (ext3 and HFS+ keep no finer ones; a missing file's
 * 0 says nothing either way).
 */
export function settleMsFor(times: readonly number[]): number {
  const known = times.filter((t) => t > 0);
  return known.length > 0 && known.every((t) => t % 1000 === 0) ? 1000 + SETTLED_MS : SETTLED_MS;
}

/** A file's modification time in ms; 0 for a missing one (Bun answers 2^52 - 1 there). */
export function timeOf(f: ReturnType<typeof Bun.file>): number {
  const t = f.lastModified;
  return t >= 2 ** 52 - 1 ? 0 : t;
}

/** A session's record in `ahead/`, `printed/` or `compacted/`; null for an id that is no safe file name. */
export function sessionRecord(
  dbPath: string,
  sub: "ahead" | "printed" | "compacted",
  sessionId: string,
): ReturnType<typeof Bun.file> | null {
  return SAFE_ID.test(sessionId) ? Bun.file(`${dirOf(dbPath)}/${sub}/${sessionId}`) : null;
}
