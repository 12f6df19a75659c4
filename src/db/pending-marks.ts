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
 */
import type { Database } from "bun:sqlite";

const SENTINEL = ".marks";
/** Claude Code's session ids are UUIDs; anything else is asked of the database. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function dirOf(dbPath: string): string {
  return `${dbPath}-pending`;
}

/** A mark or the sentinel, written with node:fs (the writers that need it have loaded it anyway). */
function writeMark(path: string): void {
  (require("node:fs") as typeof import("node:fs")).writeFileSync(path, "1", { mode: 0o600 });
}

/** The file of a database connection, or null for an in-memory or temporary one. */
function fileOf(db: Database): string | null {
  const f = (db as Database & { filename?: string }).filename;
  return f && f !== ":memory:" && !f.startsWith("file:") ? f : null;
}

/**
 * For the prompt's fast path: false when the marks say `sessionId` has no pending handoff,
 * true when it may have one, null when the marks cannot tell (ask the database).
 */
export function pendingMark(dbPath: string, sessionId: string): boolean | null {
  if (!SAFE_ID.test(sessionId)) return null;
  const dir = dirOf(dbPath);
  if (Bun.file(`${dir}/${SENTINEL}`).size === 0) return null;
  return Bun.file(`${dir}/${sessionId}`).size > 0;
}

/**
 * Writes the mark natively (no node:fs) when the directory is already kept; SessionStart calls
 * it before its transaction, so that `markPending` inside finds nothing left to do.
 */
export async function premark(dbPath: string, sessionId: string): Promise<void> {
  if (!SAFE_ID.test(sessionId) || Bun.file(`${dirOf(dbPath)}/${SENTINEL}`).size === 0) return;
  try {
    await Bun.write(`${dirOf(dbPath)}/${sessionId}`, "1");
  } catch {
    // markPending writes it, or fails the transaction
  }
}

/**
 * Makes the directory trustworthy once per database: a mark for every pending row it holds, then
 * the sentinel. Writers call it when they open the database (a native check, node:fs only the
 * first time), so a prompt can rely on the marks from the first SessionStart on.
 */
export function ensureMarks(db: Database): void {
  const path = fileOf(db);
  if (path === null || Bun.file(`${dirOf(path)}/${SENTINEL}`).size > 0) return;
  const dir = dirOf(path);
  (require("node:fs") as typeof import("node:fs")).mkdirSync(dir, { recursive: true, mode: 0o700 });
  const rows = db.query<{ id: string }, []>("SELECT session_id AS id FROM pending_handoffs").all();
  for (const { id } of rows) if (SAFE_ID.test(id)) writeMark(`${dir}/${id}`);
  writeMark(`${dir}/${SENTINEL}`);
}

/** Called before a pending row for `sessionId` is written, inside the writer's transaction. */
export function markPending(db: Database, sessionId: string): void {
  const path = fileOf(db);
  if (path === null || !SAFE_ID.test(sessionId)) return;
  const mark = `${dirOf(path)}/${sessionId}`;
  if (Bun.file(mark).size > 0) return; // SessionStart wrote it already (premark)
  ensureMarks(db);
  writeMark(mark);
}

/** Called once the pending row of `sessionId` is gone (committed). Native: no node:fs. */
export async function clearPendingMark(dbPath: string, sessionId: string): Promise<void> {
  if (!SAFE_ID.test(sessionId)) return;
  try {
    await Bun.file(`${dirOf(dbPath)}/${sessionId}`).unlink();
  } catch {
    // already gone, or never written
  }
}

/**
 * For `doctor` (read-only): the pending rows whose mark is missing, which an ordinary prompt would
 * skip, and the sentinel a fix removes (the next writer marks every row again); null when the
 * directory is not kept yet (every prompt then asks the database).
 */
export function unmarkedRows(
  db: Database,
  dbPath: string,
): { ids: string[]; rows: number; sentinel: string } | null {
  const sentinel = `${dirOf(dbPath)}/${SENTINEL}`;
  if (Bun.file(sentinel).size === 0) return null;
  const rows = db.query<{ id: string }, []>("SELECT session_id AS id FROM pending_handoffs").all();
  const ids = rows
    .map((r) => r.id)
    .filter((id) => SAFE_ID.test(id) && Bun.file(`${dirOf(dbPath)}/${id}`).size === 0);
  return { ids, rows: rows.length, sentinel };
}
