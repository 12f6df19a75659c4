import { databasePath } from "../core/paths.ts";
import { premark } from "../db/pending-marks.ts";
import { insertPending } from "../db/queries/handoff.ts";
import { getSession, upsertSession } from "../db/queries/sessions.ts";
import { writeTransaction } from "../db/tx.ts";
import { clientProcess } from "./client.ts";
import { choosePredecessor } from "./predecessor.ts";
import type { HookContext } from "./run.ts";

/**
 * SessionStart only records intent: Claude Code sometimes fires a second, ghost SessionStart
 * that never becomes a session, so nothing is handed over until the first prompt. On a clear
 * it freezes which session this one continues (docs/hooks.md, "Which session a /clear
 * continues"); the first prompt checks again, in case the SessionEnd(clear) hook ran late.
 */
export default async function sessionStart(ctx: HookContext): Promise<undefined> {
  const source = typeof ctx.payload.source === "string" ? ctx.payload.source : "startup";
  const now = ctx.now();
  const session = {
    id: ctx.sessionId,
    project: ctx.project,
    transcriptPath: ctx.transcriptPath,
    createdAt: now,
    updatedAt: now,
  };
  // Compaction and resume keep their own continuity: nothing to hand over.
  if (source === "compact" || source === "resume") {
    upsertSession(ctx.db, session);
    return undefined;
  }
  await premark(databasePath(ctx.env), ctx.sessionId);
  const client = await clientProcess(ctx.env);
  const promptId = typeof ctx.payload.prompt_id === "string" ? ctx.payload.prompt_id : null;
  // Which SessionEnds are still untaken is read, then claimed: one lock for both, so two
  // windows clearing at once cannot take the same predecessor. One commit for everything.
  writeTransaction(ctx.db, () => {
    upsertSession(ctx.db, session);
    let choice = null;
    if (ctx.env.THROUGHLINE_DISABLE_AUTO_HANDOFF !== "1" && (source === "clear" || source === "startup")) {
      const bornAt = getSession(ctx.db, ctx.sessionId)?.created_at ?? now;
      const q = { sessionId: ctx.sessionId, bornAt, client, promptId, project: ctx.project };
      choice = choosePredecessor(ctx.db, q, { newestFallback: source === "clear" });
      // Some clients report a /clear as `startup`: only a link from the same client counts then.
      if (source !== "clear" && choice?.chosenBy !== "link") choice = null;
    }
    insertPending(ctx.db, {
      session_id: ctx.sessionId,
      project: ctx.project,
      source,
      predecessor: choice?.predecessor ?? null,
      created_at: now,
      client,
      prompt_id: promptId,
      chosen_by: choice?.chosenBy ?? null,
      evidence: choice?.evidence ?? null,
    });
  });
  return undefined;
}
