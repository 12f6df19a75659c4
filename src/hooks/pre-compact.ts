import { ingestSession } from "../capture/session.ts";
import type { HookContext } from "./run.ts";

/** Before Claude Code compacts, make sure every turn up to the boundary is stored. */
export default function preCompact(ctx: HookContext): undefined {
  if (ctx.transcriptPath)
    ingestSession(ctx.db, {
      path: ctx.transcriptPath,
      sessionId: ctx.sessionId,
      project: ctx.project,
      now: ctx.now(),
    });
  return undefined;
}
