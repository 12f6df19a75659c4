import { mayHaveGrown } from "../capture/unread.ts";
import { formatIso } from "../core/clock.ts";
import {
  type ChosenBy,
  decideHandoff,
  type LinkChoice,
  MAX_PASS_ON,
  mergeSkipReason,
} from "../core/handoff.ts";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath } from "../core/paths.ts";
import { dropAhead, printedHash, readPrinted } from "../db/marks/ahead.ts";
import { type ClearMark, clearMarksFolded, waitingClearMarks } from "../db/marks/clear.ts";
import { clearPendingMark, intentFolded, type StartIntent, unreadableLine } from "../db/marks/pending.ts";
import {
  deleteBaton,
  deletePending,
  getBaton,
  getPending,
  handedOverSince,
  insertClearLink,
  mergeChain,
  type PendingRow,
  recordHandoff,
  recordInjection,
} from "../db/queries/handoff.ts";
import { contentGeneration } from "../db/queries/prepared.ts";
import { getSession, resolveLive, sessionProject, upsertSession } from "../db/queries/sessions.ts";
import { writeTransaction } from "../db/tx.ts";
import { claimStart, isStart } from "./claim.ts";
import type { HookContext } from "./context.ts";
import { CHOICE_RANK, choosePredecessor } from "./predecessor.ts";
import { type HandoffTrace, takePrepared } from "./prepared-push.ts";

/**
 * Consume the pending handoff in one IMMEDIATE transaction; returns the push text, if any.
 * Which predecessor, and why, is recorded with the handoff (`doctor --session` shows it).
 * `intents` (oldest first) are what SessionStarts left in the marks: claimed first, under the
 * same lock, each as of its own birth. A push a prompt already printed ahead of this handoff
 * (src/hooks/push-ahead.ts) is not printed again.
 */
export async function handoff(
  ctx: HookContext,
  intents: readonly StartIntent[] = [],
  unreadable: readonly string[] = [],
): Promise<string | undefined> {
  const { db } = ctx;
  const warnings: string[] = unreadable.length > 0 ? [unreadableLine([...unreadable])] : [];
  const consumed: string[] = [];
  const folded: string[] = [];
  const path = databasePath(ctx.env);
  // The /clears SessionEnd left as marks (src/db/marks/) join clear_links before any
  // claim reads them.
  const clears = await waitingClearMarks(path);
  if (clears.unreadable.length > 0)
    warnings.push(
      `skipped ${clears.unreadable.length} unreadable SessionEnd(clear) mark(s): ${clears.unreadable.slice(0, 3).join(", ")}`,
    );
  const printed = await readPrinted(path, ctx.sessionId);
  const { text: push } = writeTransaction(db, () =>
    handoffBody(ctx, clears.marks, intents, { warnings, consumed, folded, printed: printed !== null }),
  );
  // Only once the rows are committed, or gone for good (src/db/marks/).
  await clearMarksFolded(path, [...clears.marks.map((c) => c.name), ...clears.unreadable]);
  for (const id of folded) if (!consumed.includes(id)) await intentFolded(path, id);
  for (const id of consumed) await clearPendingMark(path, id);
  if (consumed.includes(ctx.sessionId) || printed !== null) await dropAhead(path, ctx.sessionId);
  if (printed !== null && printed !== (push === undefined ? null : printedHash(push)))
    warnings.push("the push printed ahead of this handoff differs from its own: a write landed between them");
  if (warnings.length > 0) {
    // Loaded only when there is something to record: the recorder needs the redactor (~1 ms to load).
    const { recordHookError } = await import("../db/queries/hook-errors.ts");
    for (const w of warnings) recordHookError(db, "user-prompt-submit", ctx.sessionId, w, ctx.now());
  }
  return printed !== null ? undefined : push;
}

/** Thrown to roll a rehearsal back with what it found. */
class Rehearsed {
  readonly result: { text: string | undefined; transcripts: string[] };
  constructor(result: { text: string | undefined; transcripts: string[] }) {
    this.result = result;
  }
}

/**
 * The handoff `handoff` would do now, rolled back: its push and the transcripts it read
 * (src/hooks/push-ahead.ts). Nothing is written, to the database or to the marks; null when a
 * mark does not parse (the handoff would report it) or nothing would be pushed.
 */
export async function rehearseHandoff(
  ctx: HookContext,
  intents: readonly StartIntent[],
): Promise<{ text: string; transcripts: string[] } | null> {
  const clears = await waitingClearMarks(databasePath(ctx.env));
  if (clears.unreadable.length > 0) return null;
  const noted = {
    warnings: [] as string[],
    consumed: [] as string[],
    folded: [] as string[],
    printed: false,
  };
  try {
    writeTransaction(ctx.db, () => {
      throw new Rehearsed(handoffBody(ctx, clears.marks, intents, noted));
    });
  } catch (err) {
    if (!(err instanceof Rehearsed)) throw err;
    const { text, transcripts } = err.result;
    return text === undefined || noted.warnings.length > 0 ? null : { text, transcripts };
  }
  return null;
}

/** The handoff's transaction: the folds, the settle, the push and its record. */
function handoffBody(
  ctx: HookContext,
  clearMarks: readonly { mark: ClearMark }[],
  intents: readonly StartIntent[],
  noted: { warnings: string[]; consumed: string[]; folded: string[]; printed: boolean },
): { text: string | undefined; transcripts: string[] } {
  const { db } = ctx;
  const { warnings, consumed, folded } = noted;
  const trace: HandoffTrace = {
    generation: contentGeneration(db),
    merged: [],
    ingested: false,
    claimed: [],
    transcripts: [],
  };
  const done = (text: string | undefined) => ({ text, transcripts: trace.transcripts });
  for (const { mark } of clearMarks) foldClearMark(ctx, mark);
  for (const start of intents)
    (fold(ctx, start, trace) === "spent" ? consumed : folded).push(start.session_id);
  // Re-read inside the write lock: of two racing prompts only one consumes the row.
  if (!settle(ctx, ctx.sessionId, 0, warnings, consumed, trace)) return done(undefined);
  const invocation = selfInvocation();
  // The Stop worker's render when nothing changed since; the same text either way.
  const prepared = takePrepared(db, ctx.sessionId, trace, invocation);
  const result = prepared ?? renderPush(db, ctx.sessionId, invocation);
  if (result.stats.injected_turns === 0 && result.stats.remaining_turns + result.stats.older_turns === 0)
    return done(undefined);
  recordInjection(db, {
    session_id: ctx.sessionId,
    created_at: ctx.now(),
    ...result.stats,
    truncated_newest: result.stats.truncated_newest ? 1 : 0,
    // 2: a prompt printed it ahead, from a rehearsal of this handoff (docs/contract.md).
    prepared: noted.printed ? 2 : prepared ? 1 : 0,
  });
  return done(result.text);
}

/**
 * Claim one SessionStart's intent, unless a racing prompt did (its row exists) or it was handed
 * over already (a crash between that commit and the mark's removal): "row" when the mark is to
 * say "1" once committed, "spent" when it is to be removed.
 */
function fold(ctx: HookContext, start: StartIntent, trace: HandoffTrace): "row" | "spent" {
  if (getPending(ctx.db, start.session_id)) return "row";
  if (handedOverSince(ctx.db, start.session_id, start.created_at)) return "spent";
  const { projectOf } = require("../db/project.ts") as typeof import("../db/project.ts");
  const project =
    start.session_id === ctx.sessionId ? ctx.project : start.cwd ? projectOf(start.cwd, ctx.env) : null;
  claimStart(ctx.db, start, project, ctx.env);
  trace.claimed.push(start.session_id);
  return "row";
}

/** A SessionEnd(clear) mark as the row it would have written: the project as `ctx.project` has it. */
function foldClearMark(ctx: HookContext, mark: ClearMark): void {
  let project = sessionProject(ctx.db, mark.session_id);
  if (project === null && mark.cwd) {
    const { projectOf } = require("../db/project.ts") as typeof import("../db/project.ts");
    project = projectOf(mark.cwd, ctx.env);
  }
  insertClearLink(ctx.db, {
    session_id: mark.session_id,
    project,
    client: mark.client,
    prompt_id: mark.prompt_id,
    created_at: mark.created_at,
  });
}

/** The link SessionStart (or the claim of its intent) froze into the pending row. */
function frozenLink(pending: PendingRow): LinkChoice | null {
  if (pending.predecessor && pending.chosen_by)
    return {
      predecessor: pending.predecessor,
      chosenBy: pending.chosen_by,
      evidence: pending.evidence ?? "",
    };
  return pending.predecessor
    ? { predecessor: pending.predecessor, chosenBy: "fallback", evidence: "frozen at SessionStart" }
    : null;
}

/**
 * The link found again now, if it is better than what SessionStart froze: SessionEnd(clear)
 * of the old session can land after SessionStart of the new one ran.
 */
function relink(
  ctx: HookContext,
  pending: PendingRow,
  bornAt: number,
  project: string | null,
): LinkChoice | null {
  const frozen = frozenLink(pending);
  if (ctx.env.THROUGHLINE_DISABLE_AUTO_HANDOFF === "1") return null;
  if (pending.source !== "clear" && !isStart(pending.source)) return frozen;
  const again = choosePredecessor(
    ctx.db,
    { sessionId: pending.session_id, bornAt, client: pending.client, promptId: pending.prompt_id, project },
    { newestFallback: false },
  );
  if (!again || (pending.source !== "clear" && again.chosenBy !== "link")) return frozen;
  if (!frozen) return again;
  const better = CHOICE_RANK[again.chosenBy] > CHOICE_RANK[frozen.chosenBy];
  const newerLink = again.chosenBy === "link" && frozen.chosenBy === "link";
  return better || newerLink ? again : frozen;
}

/**
 * Consume one session's pending handoff and merge its predecessor's chain into it; true when a
 * chain was merged. A predecessor that still has its own pending row was cleared before its
 * first prompt: it is settled first, so `clear, clear, prompt` hands over the whole chain.
 */
function settle(
  ctx: HookContext,
  sessionId: string,
  depth: number,
  warnings: string[],
  consumed: string[],
  trace: HandoffTrace,
): boolean {
  const { db } = ctx;
  const now = ctx.now();
  const pending = getPending(db, sessionId);
  if (!pending) return false;
  deletePending(db, sessionId);
  consumed.push(sessionId);
  const self = getSession(db, sessionId);
  const project = (depth === 0 ? ctx.project : null) ?? pending.project ?? self?.project ?? null;
  const bornAt = self?.created_at ?? pending.created_at;
  // Claimed in this same transaction: the link was chosen a moment ago under this lock, and
  // choosing it again would find the same one.
  const link = trace.claimed.includes(sessionId)
    ? frozenLink(pending)
    : relink(ctx, pending, bornAt, project);
  let evidence = link?.evidence ?? null;
  if (link && depth < MAX_PASS_ON) {
    const pred = resolveLive(db, link.predecessor).id;
    if (getPending(db, pred) && settle(ctx, pred, depth + 1, warnings, consumed, trace))
      evidence = `${evidence}; ${pred} was cleared before its first prompt and passed its predecessor on`;
  }

  const baton = project ? getBaton(db, project) : null;
  const decision = decideHandoff({ sessionId, bornAt, baton, frozen: link?.predecessor ?? null });
  if (project && (decision.baton === "consume" || decision.baton === "expire")) deleteBaton(db, project);
  let chosenBy: ChosenBy = "none";
  if (decision.path === "baton" && baton) {
    chosenBy = "baton";
    evidence = `baton stored by ${baton.session_id} at ${formatIso(baton.created_at)}`;
  } else if (decision.path === "auto" && link) chosenBy = link.chosenBy;
  else evidence = null;

  let reason = decision.note;
  let path = decision.path;
  let merged = false;
  if (decision.predecessor) {
    const predId = resolveLive(db, decision.predecessor);
    if (predId.cycle) warnings.push(`merged_into cycle found from ${decision.predecessor}`);
    const pred = getSession(db, predId.id);
    // Finish the predecessor's transcript first: the last turn before /clear had no Stop.
    if (pred?.transcript_path) trace.transcripts.push(pred.transcript_path);
    if (pred?.transcript_path && mayHaveGrown(db, pred.transcript_path))
      try {
        const before = contentGeneration(db);
        // The ingest code loads only when there is something to read (~1.5 ms of modules).
        const { ingestSession } = require("../capture/session.ts") as typeof import("../capture/session.ts");
        ingestSession(db, { path: pred.transcript_path, sessionId: pred.id, project: pred.project, now });
        // A read that found nothing new leaves the prepared push good.
        if (contentGeneration(db) !== before) trace.ingested = true;
      } catch (err) {
        trace.ingested = true;
        warnings.push(`could not finish ingesting ${pred.id}: ${(err as Error).message}`);
      }
    const skip = predId.cycle
      ? "chain_cycle"
      : mergeSkipReason({
          sessionId,
          sessionCreatedAt: bornAt,
          predecessor: pred ? getSession(db, pred.id) : null,
          predecessorId: predId.id,
        });
    if (skip) {
      reason = [reason, `merge skipped: ${skip}`].filter(Boolean).join("; ");
      path = "none";
    } else {
      upsertSession(db, {
        id: sessionId,
        project,
        transcriptPath: depth === 0 ? ctx.transcriptPath : null,
        createdAt: bornAt,
        updatedAt: now,
      });
      const turns = mergeChain(db, predId.id, sessionId);
      trace.merged.push(predId.id);
      merged = true;
      if (depth === 0 && turns === 0)
        reason = [reason, "predecessor chain holds no turns"].filter(Boolean).join("; ");
    }
  }
  recordHandoff(db, {
    session_id: sessionId,
    path,
    predecessor: decision.predecessor,
    reason,
    created_at: now,
    chosen_by: chosenBy,
    evidence,
  });
  return merged;
}

/** The renderer and its reads load only when no prepared push stands in (~2 ms of modules cold). */
function renderPush(db: HookContext["db"], live: string, invocation: string) {
  const { renderContext } = require("../core/context.ts") as typeof import("../core/context.ts");
  const { loadContextInput } = require("../db/queries/chain.ts") as typeof import("../db/queries/chain.ts");
  return renderContext(loadContextInput(db, live), invocation);
}
