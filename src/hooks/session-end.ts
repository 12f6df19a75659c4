import { ingestSession } from "../capture/session.ts";
import type { HookContext } from "./run.ts";

/**
 * SessionEnd has a 1.5 s budget in Claude Code. One incremental ingest reads only the bytes
 * written since the last Stop, which fits; the next session's handoff finishes anything left.
 */
export default function sessionEnd(ctx: HookContext): undefined {
  if (ctx.transcriptPath)
    ingestSession(ctx.db, {
      path: ctx.transcriptPath,
      sessionId: ctx.sessionId,
      project: ctx.project,
      now: ctx.now(),
    });
  return undefined;
}
