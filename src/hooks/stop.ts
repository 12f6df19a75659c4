import { existsSync } from "node:fs";
import { hasLastMessage, ingestSession } from "../capture/session.ts";
import { redact } from "../core/redact.ts";
import { sessionIndexEnabled } from "../core/session-index.ts";
import { WINDOW_TURNS } from "../core/turn-block.ts";
import { storedFinalText } from "../db/queries/capture.ts";
import { countChainTurns } from "../db/queries/chain.ts";
import { resolveLive } from "../db/queries/sessions.ts";
import { ThroughlineError } from "../errors.ts";
import type { HookContext } from "./context.ts";
import { HOOK_WORKER_ENV } from "./flags.ts";

/** docs/contract.md#capture flush race: Claude Code may fire Stop before the last text reaches the file. */
export const FLUSH_WAIT_MS = 2000;
/**
 * The same wait in the detached worker (src/cli.ts), which nobody waits for: on a loaded
 * 2-core machine Claude Code 2.1.197 was seen writing the reply more than 2 s after Stop fired.
 * Waiting costs nothing while the text is there, and holds no lock while it is not.
 */
export const DETACHED_FLUSH_WAIT_MS = 10_000;
const POLL_MS = 50;

export default async function stop(ctx: HookContext): Promise<undefined> {
  const path = ctx.transcriptPath;
  if (!path) throw new ThroughlineError("E_PAYLOAD", "payload has no transcript_path");
  // Claude Code writes the transcript on a short timer: after a very fast reply, Stop can fire
  // before the file exists. Wait for it within the same bounded allowance as the flush race.
  // Real elapsed time, not ctx.now(): tests drive a frozen clock.
  const fileDeadline = performance.now() + FLUSH_WAIT_MS;
  while (!existsSync(path) && performance.now() < fileDeadline) await Bun.sleep(POLL_MS);
  const opts = { path, sessionId: ctx.sessionId, project: ctx.project, now: ctx.now() };
  const res = ingestSession(ctx.db, opts);
  await waitForFlush(ctx, opts, res.newestFinalText);
  const live = resolveLive(ctx.db, ctx.sessionId).id;
  await summarizeOne(ctx, live);
  // Behind the client, with the chain just read: what a /clear would push (docs/contract.md,
  // "The prepared push"), so the first prompt after it need not render.
  const { preparePush } = await import("./prepared-push.ts");
  const { selfInvocation } = await import("../core/invocation.ts");
  preparePush(ctx.db, live, selfInvocation(), ctx.now());
  // Still behind the client: merge the segment this turn added to each full-text index.
  const { tidyIndexes } = await import("../db/queries/fts-deferral.ts");
  tidyIndexes(ctx.db);
  // The worker's commit changed what the status line reads: it reads it again once this process
  // has closed the database (docs/monitor.md, "Kept facts"), so the next line need not.
  if (ctx.env[HOOK_WORKER_ENV] === "1") {
    const { refreshStatus } = await import("../db/status-facts.ts");
    const { databasePath } = await import("../core/paths.ts");
    ctx.afterClose?.(() => refreshStatus(databasePath(ctx.env), ctx.sessionId));
  }
  // Opt-in (docs/monitor.md): rewrite the session-index files, summary.md included.
  if (sessionIndexEnabled(ctx.env)) {
    const { refreshSessionIndex } = await import("../capture/session-index.ts");
    await refreshSessionIndex(ctx.env, ctx.sessionId);
  }
}

/** Only chains past the 20-turn window have turns to summarise; the summarizer loads only then. */
async function summarizeOne(ctx: HookContext, live: string): Promise<void> {
  if (countChainTurns(ctx.db, live) <= WINDOW_TURNS) return;
  const { summarizeNext } = await import("../capture/summarize.ts");
  summarizeNext(ctx.db, live, ctx.env, ctx.now());
}

async function waitForFlush(
  ctx: HookContext,
  opts: { path: string; sessionId: string; project: string | null; now: number },
  fromFirstRead: string | null,
): Promise<void> {
  const last = ctx.payload.last_assistant_message;
  if (typeof last !== "string" || last.trim() === "") return;
  // Nothing new in the file: compare with what an earlier Stop already stored (redacted).
  let newest = fromFirstRead ?? storedFinalText(ctx.db, ctx.sessionId);
  const wanted = fromFirstRead === null ? redact(last) : last;
  const allowance = ctx.env.THROUGHLINE_HOOK_WORKER === "1" ? DETACHED_FLUSH_WAIT_MS : FLUSH_WAIT_MS;
  const waitMs = Number(ctx.env.THROUGHLINE_FLUSH_WAIT_MS ?? allowance);
  const deadline = performance.now() + (Number.isFinite(waitMs) ? Math.min(waitMs, allowance) : allowance);
  while (!hasLastMessage(newest, wanted) && !hasLastMessage(newest, last)) {
    if (performance.now() >= deadline) {
      // Store what is there; the next Stop or the next session's handoff finishes the turn.
      const { recordHookError } = await import("../db/queries/hook-errors.ts");
      recordHookError(
        ctx.db,
        "stop",
        ctx.sessionId,
        `last assistant message not in the transcript after ${waitMs} ms; stored what was there`,
        ctx.now(),
      );
      return;
    }
    await Bun.sleep(POLL_MS);
    const again = ingestSession(ctx.db, { ...opts, now: ctx.now() });
    if (again.newestFinalText !== null) newest = again.newestFinalText;
  }
}
