import { ingestUnread } from "../capture/unread.ts";
import { renderContext } from "../core/context.ts";
import { selfInvocation } from "../core/invocation.ts";
import { loadContextInput } from "../db/queries/chain.ts";
import { lastCompactionPush, recordInjection } from "../db/queries/handoff.ts";
import type { HookContext } from "./context.ts";
import { touchSession } from "./session-row.ts";

/**
 * SessionStart after a compaction (`/compact` or auto-compact): the client kept its own summary,
 * not the turns. The push hands them back (docs/contract.md, "After compaction"): the newest turns
 * since the last such push, whole, and the pulls for every other turn, bounded at the
 * oldest pushed.
 */
export default function compacted(ctx: HookContext): string | undefined {
  const now = ctx.now();
  touchSession(ctx, now);
  // PreCompact stored the turns up to the boundary; the boundary and what follows it are new,
  // when the client has written them yet (the cursor check says; src/capture/unread.ts). A
  // transcript not written yet holds nothing to add.
  if (ctx.transcriptPath && Bun.file(ctx.transcriptPath).size > 0) ingestUnread(ctx.db, ctx, now);
  // The turns pushed after the compaction before this one were in the model's view until now.
  // Claude Code fires SessionStart once per compaction, and may write the new boundary after it:
  // nothing in the transcript tells a repeat from the next compaction, so none is assumed.
  const since = lastCompactionPush(ctx.db, ctx.sessionId);
  const input = loadContextInput(ctx.db, ctx.sessionId);
  const result = renderContext(input, selfInvocation(), { kind: "compaction", since });
  if (result.stats.injected_turns === 0 && result.stats.remaining_turns + result.stats.older_turns === 0)
    return undefined;
  recordInjection(ctx.db, {
    session_id: ctx.sessionId,
    created_at: now,
    ...result.stats,
    truncated_newest: result.stats.truncated_newest ? 1 : 0,
    moment: "compaction",
  });
  return result.text;
}
