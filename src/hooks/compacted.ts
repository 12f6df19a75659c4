import { ingestUnread } from "../capture/unread.ts";
import { renderContext } from "../core/context.ts";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath } from "../core/paths.ts";
import {
  type CompactionRecord,
  type CompactionStats,
  dropCompaction,
  hasCompaction,
  readCompaction,
} from "../db/marks/compaction.ts";
import { loadContextInput } from "../db/queries/chain.ts";
import { hasCompactionPush, lastCompactionPush, recordInjection } from "../db/queries/handoff.ts";
import { writeTransaction } from "../db/tx.ts";
import type { HookContext } from "./context.ts";
import { touchSession } from "./session-row.ts";

/**
 * SessionStart after a compaction (`/compact` or auto-compact): the client kept its own summary,
 * not the turns. The push hands them back (docs/contract.md, "After compaction"): the newest turns
 * since the last such push, whole, and the pulls for every other turn, bounded at the
 * oldest pushed. When a rehearsal after PreCompact kept this very push (src/hooks/push-ahead.ts),
 * the hook printed it without the database and this runs in its follow-up, printing nothing.
 */
export default async function compacted(ctx: HookContext): Promise<string | undefined> {
  const path = databasePath(ctx.env);
  const kept = hasCompaction(path, ctx.sessionId) ? await readCompaction(path, ctx.sessionId) : null;
  const printed = kept?.form === "printed" ? kept : null;
  const push = writeTransaction(ctx.db, () => compactionBody(ctx, printed));
  // Only once its row is committed; an "ahead" one is stale now (this push read newer rows).
  if (kept) await dropCompaction(path, ctx.sessionId);
  return push?.text;
}

/** The follow-up of a push printed ahead: its row, the session touched, the transcript read on. */
export async function settleCompaction(ctx: HookContext): Promise<void> {
  const path = databasePath(ctx.env);
  const kept = await readCompaction(path, ctx.sessionId);
  if (kept?.form !== "printed") return;
  writeTransaction(ctx.db, () => {
    touchSession(ctx, ctx.now());
    settlePrinted(ctx, kept);
    if (ctx.transcriptPath && Bun.file(ctx.transcriptPath).size > 0) ingestUnread(ctx.db, ctx, ctx.now());
  });
  await dropCompaction(path, ctx.sessionId);
}

/** Thrown to roll a rehearsal back with what it found. */
class Rehearsed {
  readonly push: { text: string; stats: CompactionStats } | null;
  constructor(push: { text: string; stats: CompactionStats } | null) {
    this.push = push;
  }
}

/** The push SessionStart(compact) would print now, rolled back: nothing is written. */
export function rehearseCompaction(ctx: HookContext): { text: string; stats: CompactionStats } | null {
  try {
    writeTransaction(ctx.db, () => {
      throw new Rehearsed(compactionBody(ctx, null));
    });
  } catch (err) {
    if (!(err instanceof Rehearsed)) throw err;
    return err.push;
  }
  return null;
}

/** A push printed ahead whose follow-up never ran: its row first, so `since` counts it. */
function settlePrinted(ctx: HookContext, printed: Extract<CompactionRecord, { form: "printed" }>): void {
  if (hasCompactionPush(ctx.db, ctx.sessionId, printed.at)) return;
  recordInjection(ctx.db, {
    ...printed.stats,
    session_id: ctx.sessionId,
    created_at: printed.at,
    moment: "compaction",
    // 2: printed ahead, from a rehearsal of this push (docs/contract.md, "After compaction").
    prepared: 2,
  });
}

/** The push's transaction: the session, what the transcript added, the push and its record. */
function compactionBody(
  ctx: HookContext,
  printed: Extract<CompactionRecord, { form: "printed" }> | null,
): { text: string; stats: CompactionStats } | null {
  const now = ctx.now();
  touchSession(ctx, now);
  if (printed) settlePrinted(ctx, printed);
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
    return null;
  const stats: CompactionStats = { ...result.stats, truncated_newest: result.stats.truncated_newest ? 1 : 0 };
  recordInjection(ctx.db, { ...stats, session_id: ctx.sessionId, created_at: now, moment: "compaction" });
  return { text: result.text, stats };
}
