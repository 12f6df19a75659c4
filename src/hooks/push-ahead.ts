/**
 * The push printed ahead (docs/hooks.md, "The push printed ahead"). After a /clear, SessionStart
 * asks for a follow-up that runs behind the client: it rehearses the handoff the session's first
 * prompt would do (the same code, rolled back) and keeps the push it would print, with the state
 * of everything that handoff reads (src/db/pending-marks.ts handoffState). The first prompt, when
 * that state has not changed, prints the kept push without opening the database and asks for a
 * follow-up that does the handoff itself; the handoff then prints nothing. Any change, or no
 * rehearsal yet, and the prompt does the handoff as before: the same text either way.
 */
import { isBatonPrompt } from "../core/handoff.ts";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath } from "../core/paths.ts";
import {
  handoffState,
  hasPrinted,
  readAhead,
  readIntents,
  writeAhead,
  writePrinted,
} from "../db/pending-marks.ts";
import { VERSION } from "../version.ts";
import type { HookContext, HookPayload } from "./context.ts";
import { HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "./run.ts";

/** How long the rehearsal waits for the files to settle before it gives up (a busy machine or window). */
const SETTLE_LIMIT_MS = 2000;

const str = (x: unknown): string | null => (typeof x === "string" && x !== "" ? x : null);

/**
 * The follow-up: once nothing was written for a while (settleMsFor: so a later write cannot share
 * a modification time), rehearse, and keep the push only if the state is still settled after it,
 * that is nothing wrote while it ran. The transcripts the handoff reads are known once it has run:
 * a write to one of them during the rehearsal (the client finishing the old session's transcript
 * after the /clear) sends it round again, within SETTLE_LIMIT_MS.
 */
export async function prepareAhead(ctx: HookContext): Promise<void> {
  const path = databasePath(ctx.env);
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  let transcripts: string[] = [];
  while (Date.now() < deadline) {
    const before = handoffState(path, transcripts);
    const wait = before.newest + before.settledMs - Date.now();
    if (wait > 0) {
      if (Date.now() + wait > deadline) return;
      await Bun.sleep(wait + 1);
      continue;
    }
    const { intents, unreadable } = await readIntents(path, ctx.sessionId);
    if (unreadable.length > 0 || intents.length === 0) return;
    const { rehearseHandoff } = await import("./handoff.ts");
    const rehearsed = await rehearseHandoff(ctx, intents);
    if (!rehearsed) return;
    const state = handoffState(path, rehearsed.transcripts);
    transcripts = rehearsed.transcripts;
    if (Date.now() - state.newest < state.settledMs) continue; // a write landed meanwhile
    await writeAhead(path, ctx.sessionId, {
      key: state.key,
      transcripts,
      text: rehearsed.text,
      version: VERSION,
      invocation: selfInvocation(),
      cwd: str(ctx.payload.cwd),
      transcript_path: ctx.transcriptPath,
    });
    return;
  }
}

/**
 * The first prompt: the kept push when everything it was rehearsed from is as it was, recorded
 * as printed; null otherwise (the handoff runs here, as before). Not in a follow-up itself, and
 * not for `/tl`, which stores a baton after its handoff.
 */
export async function printAhead(ctx: HookContext): Promise<string | null> {
  if (ctx.env[HOOK_WORKER_ENV] === "1" || ctx.env[PUSH_AHEAD_ENV] === "0") return null;
  const prompt = typeof ctx.payload.prompt === "string" ? ctx.payload.prompt.trim() : "";
  if (isBatonPrompt(prompt)) return null;
  const path = databasePath(ctx.env);
  // Printed once already, its handoff not done yet (its follow-up never ran): the handoff runs here.
  if (hasPrinted(path, ctx.sessionId)) return null;
  const kept = await readAhead(path, ctx.sessionId);
  if (
    !kept ||
    kept.version !== VERSION ||
    kept.cwd !== str(ctx.payload.cwd) ||
    kept.transcript_path !== ctx.transcriptPath ||
    kept.invocation !== selfInvocation() ||
    handoffState(path, kept.transcripts).key !== kept.key
  )
    return null;
  if (!(await writePrinted(path, ctx.sessionId, kept.text))) return null;
  // The handoff itself, behind the client: it finds the printed record and prints nothing.
  const payload: HookPayload = {
    session_id: ctx.sessionId,
    transcript_path: ctx.transcriptPath,
    cwd: str(ctx.payload.cwd),
    hook_event_name: "UserPromptSubmit",
    prompt: "",
  };
  ctx.followUp?.({ event: "user-prompt-submit", payload, env: {} });
  return kept.text;
}
