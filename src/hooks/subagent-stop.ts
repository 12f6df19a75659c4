import { ingestSubagent } from "../capture/ingest.ts";
import { ingestSession } from "../capture/session.ts";
import type { HookContext } from "./run.ts";

/** A finished subagent: store its transcript as L3 of the turn that started it. */
export default function subagentStop(ctx: HookContext): undefined {
  if (ctx.transcriptPath)
    ingestSession(ctx.db, {
      path: ctx.transcriptPath,
      sessionId: ctx.sessionId,
      project: ctx.project,
      now: ctx.now(),
    });
  const agentPath = ctx.payload.agent_transcript_path;
  if (typeof agentPath === "string" && agentPath) ingestSubagent(ctx.db, agentPath, ctx.now(), ctx.sessionId);
  return undefined;
}
