import { databaseState, keepStatus, keptStatus, untilSettled } from "./marks/status.ts";
import { dirOf, SAFE_ID } from "./marks/store.ts";
import type { StatuslineFacts } from "./queries/statusline.ts";

/**
 * The session's facts: kept ones when the database files are as they were when they were read, else
 * read on a read-only connection (bun:sqlite and the queries load only then) and kept when the files
 * have settled. The state is taken before the read, so a write during it only makes the next line read.
 */
export async function statusFacts(dbPath: string, sessionId: string): Promise<StatuslineFacts> {
  const state = databaseState(dbPath);
  const kept = await keptStatus(dbPath, sessionId, state.key);
  if (kept) return kept;
  const { withReader } = require("./open.ts") as typeof import("./open.ts");
  const { statuslineFacts } = require("./queries/statusline.ts") as typeof import("./queries/statusline.ts");
  const facts = withReader(dbPath, (db) => statuslineFacts(db, sessionId));
  if (state.settled) await keepStatus(dbPath, sessionId, state.key, facts);
  return facts;
}

/**
 * After a writer of the session closed (the Stop worker): its status line's facts read again and
 * kept once the files settle, so the next line answers without SQLite. Only for a session whose
 * line has kept facts before (a status line is set up), and not past a few seconds of writes.
 */
export async function refreshStatus(dbPath: string, sessionId: string): Promise<void> {
  if (!SAFE_ID.test(sessionId) || Bun.file(`${dirOf(dbPath)}/status/${sessionId}`).size === 0) return;
  if (await untilSettled(dbPath, 3000)) await statusFacts(dbPath, sessionId);
}
