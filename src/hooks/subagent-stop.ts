import { ingestSubagent } from "../capture/ingest-subagent.ts";
import { ingestNamedSession } from "../capture/session.ts";
import type { HookContext } from "./context.ts";

/** A finished subagent: store its transcript as L3 of the turn that started it. */
export default function subagentStop(ctx: HookContext): undefined {
  const agentPath = ctx.payload.agent_transcript_path;
  // A subagent with no transcript has nothing to add: 2.1.332's compaction runs one that writes
  // none, and a write here would land while the client compacts (docs/hooks.md). The session's
  // Stop reads its subagents folder, this file too if it appears later: nothing is lost.
  if (typeof agentPath === "string" && agentPath && Bun.file(agentPath).size === 0) return undefined;
  ingestNamedSession(ctx.db, ctx, ctx.now());
  if (typeof agentPath === "string" && agentPath) ingestSubagent(ctx.db, agentPath, ctx.now(), ctx.sessionId);
  return undefined;
}
