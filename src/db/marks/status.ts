import type { StatuslineFacts } from "../queries/statusline.ts";
import { dirOf, SAFE_ID, SETTLED_MS, settleMsFor, timeOf, writeRecord } from "./store.ts";

// ---------------------------------------------------------------------------------------------
// Kept status lines (docs/monitor.md, "Speed"): what `statusline` read of the database for a
// session, in `status/<session>`, with the state of the database files it was read at. Claude Code
// redraws the line far more often than the database changes; an unchanged state answers from the file.

/**
 * The size and modification time of the database file and its log, natively: every commit writes
 * the log, every checkpoint the file, so a write changes one of them. `settled` says both were last
 * written long enough ago (settleMsFor): only then can a later write not share their time, and only
 * then is the state worth keeping.
 */
export function databaseState(dbPath: string, now = Date.now()): { key: string; settled: boolean } {
  const db = Bun.file(dbPath);
  const wal = Bun.file(`${dbPath}-wal`);
  const dbTime = timeOf(db);
  const walTime = timeOf(wal);
  return {
    key: `${db.size}.${dbTime}.${wal.size}.${walTime}`,
    settled: now - Math.max(dbTime, walTime) >= settleMsFor([dbTime, walTime]),
  };
}

/** Polls until the database files have settled (`databaseState`); false when `withinMs` passed first. */
export async function untilSettled(dbPath: string, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!databaseState(dbPath).settled) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(SETTLED_MS / 2);
  }
  return true;
}

/** The facts kept for `sessionId` at state `key`, or null (none, another state, unreadable). */
export async function keptStatus(
  dbPath: string,
  sessionId: string,
  key: string,
): Promise<StatuslineFacts | null> {
  if (!SAFE_ID.test(sessionId)) return null;
  try {
    const v = JSON.parse(await Bun.file(`${dirOf(dbPath)}/status/${sessionId}`).text()) as Partial<
      StatuslineFacts & { key: string }
    >;
    if (v?.key !== key || !Number.isInteger(v.turns)) return null;
    return { turns: v.turns as number, pending: v.pending === true, baton: v.baton === true };
  } catch {
    return null;
  }
}

/** Keeps what was read at a settled state (best effort: a failed write only costs the next line a read). */
export async function keepStatus(
  dbPath: string,
  sessionId: string,
  key: string,
  facts: StatuslineFacts,
): Promise<void> {
  await writeRecord(dbPath, sessionId, `status/${sessionId}`, { key, ...facts });
}
