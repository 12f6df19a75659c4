import { upsertSession } from "../db/queries/sessions.ts";
import type { HookContext } from "./context.ts";

/** The session as a resume or compaction finds it: known, with its transcript, updated now. */
export function touchSession(ctx: HookContext, now: number): void {
  upsertSession(ctx.db, {
    id: ctx.sessionId,
    project: ctx.project,
    transcriptPath: ctx.transcriptPath,
    createdAt: now,
    updatedAt: now,
  });
}
