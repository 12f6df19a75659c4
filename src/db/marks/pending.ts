import type { Database } from "bun:sqlite";
import { dirOf, fileOf, filesIn, SAFE_ID, SENTINEL, stringOrNull, writeMark, writeRecord } from "./store.ts";

/** What SessionStart(clear/startup) knew, kept in the session's mark until a prompt folds it in. */
export interface StartIntent {
  session_id: string;
  source: string;
  client: string | null;
  prompt_id: string | null;
  created_at: number;
  cwd: string | null;
  transcript_path: string | null;
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
 * SessionStart's whole write when the directory is kept: the intent in the session's mark, with
 * one native write. False when it is not kept (or the write failed): the caller writes the row.
 */
export async function writeIntent(dbPath: string, intent: StartIntent): Promise<boolean> {
  return writeRecord(dbPath, intent.session_id, intent.session_id, intent);
}

/** Whether the session's mark still holds an intent (a plain mark is "1", one byte). */
export function hasIntent(dbPath: string, sessionId: string): boolean {
  return SAFE_ID.test(sessionId) && Bun.file(`${dirOf(dbPath)}/${sessionId}`).size > 1;
}

function parseIntent(id: string, text: string): StartIntent | null {
  try {
    const v = JSON.parse(text) as Partial<StartIntent>;
    if (v?.session_id !== id || typeof v.source !== "string" || !Number.isFinite(v.created_at)) return null;
    return {
      session_id: id,
      source: v.source,
      client: stringOrNull(v.client),
      prompt_id: stringOrNull(v.prompt_id),
      created_at: v.created_at as number,
      cwd: stringOrNull(v.cwd),
      transcript_path: stringOrNull(v.transcript_path),
    };
  } catch {
    return null;
  }
}

/**
 * What a listed mark holds when it is read: its intent, "gone" when it no longer holds one (its
 * own prompt folded it, writing "1", or consumed it, removing the file, since the listing: a
 * race between two windows, not an error), or null when it does not parse.
 */
export function markIntent(id: string, text: string): StartIntent | "gone" | null {
  return text.length <= 1 ? "gone" : parseIntent(id, text);
}

/**
 * The intents not folded yet of sessions born no later than `sessionId` (its own included), oldest
 * first: they are claimed in the order their SessionStarts ran, as if each had written its row
 * then. `unreadable` lists marks whose intent does not parse (skipped, reported by the caller).
 */
export async function readIntents(
  dbPath: string,
  sessionId: string,
): Promise<{ intents: StartIntent[]; unreadable: string[] }> {
  const intents: StartIntent[] = [];
  const unreadable: string[] = [];
  for (const name of waitingIntents(dbPath)) {
    const text = await Bun.file(`${dirOf(dbPath)}/${name}`)
      .text()
      .catch(() => "");
    const intent = markIntent(name, text);
    if (intent === "gone") continue;
    if (intent) intents.push(intent);
    else unreadable.push(name);
  }
  const own = intents.find((i) => i.session_id === sessionId);
  if (!own) return { intents: [], unreadable };
  return {
    intents: intents
      .filter((i) => i.created_at <= own.created_at)
      .sort((a, b) => a.created_at - b.created_at || (a.session_id < b.session_id ? -1 : 1)),
    unreadable,
  };
}

/** One line for `hook_errors`: marks whose SessionStart record does not parse are skipped. */
export function unreadableLine(ids: string[]): string {
  return `skipped ${ids.length} unreadable SessionStart record(s) in the pending marks: ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}`;
}

/** The sessions whose SessionStart record waits for a first prompt to claim it (for `readIntents` and `doctor`). */
export function waitingIntents(dbPath: string): string[] {
  return filesIn(dbPath, "").filter(
    (name) => SAFE_ID.test(name) && Bun.file(`${dirOf(dbPath)}/${name}`).size > 1,
  );
}

/** After the commit that wrote its row: the mark says "1" again (native). */
export async function intentFolded(dbPath: string, sessionId: string): Promise<void> {
  try {
    await Bun.write(`${dirOf(dbPath)}/${sessionId}`, "1");
  } catch {
    // the mark keeps the intent: the next fold finds the row and skips it
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
  if (Bun.file(mark).size > 0) return; // kept already (an intent being folded, or a row)
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
