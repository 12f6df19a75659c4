import { hasLastMessage, ingestSession } from "../capture/session.ts";
import { recordHookError } from "../db/queries/sessions.ts";
import { ThroughlineError } from "../errors.ts";
import type { HookContext } from "./run.ts";

/** SPEC §3 flush race: Claude Code may fire Stop before the last text reaches the file. */
export const FLUSH_WAIT_MS = 2000;
const POLL_MS = 50;

export default async function stop(ctx: HookContext): Promise<undefined> {
  const path = ctx.transcriptPath;
  if (!path) throw new ThroughlineError("E_PAYLOAD", "payload has no transcript_path");
  const opts = { path, sessionId: ctx.sessionId, project: ctx.project, now: ctx.now() };
  let res = ingestSession(ctx.db, opts);
  const last = ctx.payload.last_assistant_message;
  if (typeof last !== "string" || last.trim() === "") return;
  let newest = res.newestFinalText;
  const waitMs = Number(ctx.env.THROUGHLINE_FLUSH_WAIT_MS ?? FLUSH_WAIT_MS);
  const deadline = ctx.now() + (Number.isFinite(waitMs) ? Math.min(waitMs, FLUSH_WAIT_MS) : FLUSH_WAIT_MS);
  while (!hasLastMessage(newest, last)) {
    if (ctx.now() >= deadline) {
      // Store what is there; the next Stop or the next session's handoff finishes the turn.
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
    res = ingestSession(ctx.db, { ...opts, now: ctx.now() });
    if (res.newestFinalText !== null) newest = res.newestFinalText;
  }
}
