import { ingestSession } from "../capture/session.ts";
import { renderContext } from "../core/context.ts";
import { decideHandoff, mergeSkipReason } from "../core/handoff.ts";
import { selfInvocation } from "../core/invocation.ts";
import { loadContextInput } from "../db/queries/chain.ts";
import {
  deleteBaton,
  deletePending,
  getBaton,
  getPending,
  mergeChain,
  recordHandoff,
  recordInjection,
} from "../db/queries/handoff.ts";
import { getSession, recordHookError, resolveLive, upsertSession } from "../db/queries/sessions.ts";
import type { HookContext } from "./run.ts";

/** Consume the pending handoff in one IMMEDIATE transaction; returns the push text, if any. */
export function handoff(ctx: HookContext): string | undefined {
  const { db } = ctx;
  const now = ctx.now();
  let push: string | undefined;
  const warnings: string[] = [];
  db.run("BEGIN IMMEDIATE");
  try {
    // Re-read inside the write lock: of two racing prompts only one consumes the row.
    const pending = getPending(db, ctx.sessionId);
    if (!pending) {
      db.run("COMMIT");
      return undefined;
    }
    deletePending(db, ctx.sessionId);
    const project = ctx.project ?? pending.project;
    const self = getSession(db, ctx.sessionId);
    const bornAt = self?.created_at ?? pending.created_at;
    const baton = project ? getBaton(db, project) : null;
    const decision = decideHandoff({ sessionId: ctx.sessionId, bornAt, baton, frozen: pending.predecessor });
    if (project && (decision.baton === "consume" || decision.baton === "expire")) deleteBaton(db, project);

    let reason = decision.note;
    let path = decision.path;
    if (decision.predecessor) {
      const predId = resolveLive(db, decision.predecessor);
      if (predId.cycle) warnings.push(`merged_into cycle found from ${decision.predecessor}`);
      const pred = getSession(db, predId.id);
      // Finish the predecessor's transcript first: the last turn before /clear had no Stop.
      if (pred?.transcript_path)
        try {
          ingestSession(db, { path: pred.transcript_path, sessionId: pred.id, project: pred.project, now });
        } catch (err) {
          warnings.push(`could not finish ingesting ${pred.id}: ${(err as Error).message}`);
        }
      const skip = predId.cycle
        ? "chain_cycle"
        : mergeSkipReason({
            sessionId: ctx.sessionId,
            sessionCreatedAt: bornAt,
            predecessor: pred ? getSession(db, pred.id) : null,
            predecessorId: predId.id,
          });
      if (skip) {
        reason = [reason, `merge skipped: ${skip}`].filter(Boolean).join("; ");
        path = "none";
      } else {
        upsertSession(db, {
          id: ctx.sessionId,
          project,
          transcriptPath: ctx.transcriptPath,
          createdAt: bornAt,
          updatedAt: now,
        });
        mergeChain(db, predId.id, ctx.sessionId);
        const result = renderContext(loadContextInput(db, ctx.sessionId), selfInvocation());
        if (result.stats.injected_turns > 0 || result.stats.remaining_turns + result.stats.older_turns > 0) {
          push = result.text;
          recordInjection(db, {
            session_id: ctx.sessionId,
            created_at: now,
            ...result.stats,
            truncated_newest: result.stats.truncated_newest ? 1 : 0,
          });
        } else reason = [reason, "predecessor chain holds no turns"].filter(Boolean).join("; ");
      }
    }
    recordHandoff(db, {
      session_id: ctx.sessionId,
      path,
      predecessor: decision.predecessor,
      reason,
      created_at: now,
    });
    db.run("COMMIT");
  } catch (err) {
    db.run("ROLLBACK");
    throw err;
  }
  for (const w of warnings) recordHookError(db, "user-prompt-submit", ctx.sessionId, w, now);
  return push;
}
