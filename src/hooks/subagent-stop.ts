import { ingestSubagent } from "../capture/ingest.ts";
import { ingestNamedSession } from "../capture/session.ts";
import type { HookContext } from "./context.ts";

/** A finished subagent: store its transcript as L3 of the turn that started it. */
export default function subagentStop(ctx: HookContext): undefined {
  ingestNamedSession(ctx.db, ctx, ctx.now());
  const agentPath = ctx.payload.agent_transcript_path;
  if (typeof agentPath === "string" && agentPath) ingestSubagent(ctx.db, agentPath, ctx.now(), ctx.sessionId);
  return undefined;
}
