import { existsSync } from "node:fs";
import { insertPending, predecessorCandidates } from "../db/queries/handoff.ts";
import { upsertSession } from "../db/queries/sessions.ts";
import type { HookContext } from "./run.ts";

/**
 * SessionStart only records intent (SPEC §4.1): Claude Code sometimes fires a second, ghost
 * SessionStart that never becomes a session, so nothing is handed over until the first prompt.
 */
export default function sessionStart(ctx: HookContext): undefined {
  const source = typeof ctx.payload.source === "string" ? ctx.payload.source : "startup";
  const now = ctx.now();
  upsertSession(ctx.db, {
    id: ctx.sessionId,
    project: ctx.project,
    transcriptPath: ctx.transcriptPath,
    createdAt: now,
    updatedAt: now,
  });
  // Compaction and resume keep their own continuity: nothing to hand over.
  if (source === "compact" || source === "resume") return undefined;
  let predecessor: string | null = null;
  if (source === "clear" && ctx.project && ctx.env.THROUGHLINE_DISABLE_AUTO_HANDOFF !== "1") {
    const found = predecessorCandidates(ctx.db, ctx.project, ctx.sessionId).find(
      (s) => s.transcript_path !== null && existsSync(s.transcript_path),
    );
    predecessor = found?.id ?? null;
  }
  insertPending(ctx.db, {
    session_id: ctx.sessionId,
    project: ctx.project,
    source,
    predecessor,
    created_at: now,
  });
  return undefined;
}
