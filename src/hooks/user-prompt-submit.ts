import { isBatonPrompt } from "../core/handoff.ts";
import { databasePath } from "../core/paths.ts";
import { hasAhead } from "../db/marks/ahead.ts";
import {
  clearPendingMark,
  hasIntent,
  pendingMark,
  readIntents,
  unreadableLine,
} from "../db/marks/pending.ts";
import { getPending, putBaton } from "../db/queries/handoff.ts";
import type { HookContext, HookPayload } from "./context.ts";

/**
 * Most prompts hand nothing over and store no baton. The pending marks answer them without
 * SQLite (src/db/marks/); where the marks cannot tell, a read-only look does, so the
 * process neither takes the write lock nor pays the checkpoint SQLite runs when the last
 * writer closes (docs/benchmarks.md). Anything else (no database yet, a pending row, `/tl`,
 * an error) takes the normal path, which decides again under the write lock. A pending row was
 * committed by SessionStart, long before: a read that misses it (it cannot, short of a torn page
 * during another writer's checkpoint) leaves the row for the next prompt, so a push is at worst
 * one prompt late, never lost.
 */
export function nothingToHandOver(path: string, sessionId: string, payload: HookPayload): boolean {
  const prompt = typeof payload.prompt === "string" ? payload.prompt.trim() : "";
  if (isBatonPrompt(prompt)) return false;
  // Most prompts end here, without SQLite: no mark, no pending row.
  const mark = pendingMark(path, sessionId);
  if (mark !== null) return !mark;
  const { fileSize, openForRead } = require("../db/open.ts") as typeof import("../db/open.ts");
  if (!fileSize(path)) return false;
  try {
    const db = openForRead(path);
    try {
      return getPending(db, sessionId) === null;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/**
 * The first prompt of a session proves it is real (docs/contract.md#the-push): consume the pending handoff,
 * merge the predecessor's chain and print the push. Every later prompt costs one indexed lookup
 * and prints nothing; the handoff code is loaded only when there is a handoff to do. `/tl`
 * stores a baton after that step, so a session never takes its own.
 */
export default async function userPromptSubmit(ctx: HookContext): Promise<string | undefined> {
  const prompt = typeof ctx.payload.prompt === "string" ? ctx.payload.prompt : "";
  const path = databasePath(ctx.env);
  let push: string | undefined;
  // A push rehearsed behind the client, printed without the database (src/hooks/push-ahead.ts).
  if (hasAhead(path, ctx.sessionId)) {
    const { printAhead } = await import("./push-ahead.ts");
    const ahead = await printAhead(ctx);
    if (ahead !== null) return ahead;
  }
  // What SessionStart left in the marks (its own and those born before it) is claimed first.
  const { intents, unreadable } = hasIntent(path, ctx.sessionId)
    ? await readIntents(path, ctx.sessionId)
    : { intents: [], unreadable: [] };
  if (intents.length > 0 || getPending(ctx.db, ctx.sessionId)) {
    const { handoff } = await import("./handoff.ts");
    push = await handoff(ctx, intents, unreadable);
  } else if (pendingMark(path, ctx.sessionId) === true) {
    if (unreadable.length > 0) {
      const { recordHookError } = await import("../db/queries/hook-errors.ts");
      recordHookError(ctx.db, ctx.event, ctx.sessionId, unreadableLine(unreadable), ctx.now());
    }
    await clearPendingMark(path, ctx.sessionId); // a mark whose row is gone
  }
  if (isBatonPrompt(prompt.trim()) && ctx.project)
    putBaton(ctx.db, { project: ctx.project, session_id: ctx.sessionId, created_at: ctx.now() });
  return push;
}
