/**
 * The push printed ahead (docs/hooks.md, "The push printed ahead"). After a /clear, SessionStart
 * asks for a follow-up that runs behind the client: it rehearses the handoff the session's first
 * prompt would do (the same code, rolled back) and keeps the push it would print, with the state
 * of everything that handoff reads (src/db/marks/ahead.ts handoffState). The first prompt, when
 * that state has not changed, prints the kept push without opening the database and asks for a
 * follow-up that does the handoff itself; the handoff then prints nothing. Any change, or no
 * rehearsal yet, and the prompt does the handoff as before: the same text either way.
 *
 * The push after compaction goes the same way (docs/contract.md, "After compaction"): PreCompact
 * asks for the rehearsal, SessionStart(compact) prints the kept push, and its follow-up records it.
 */
import { isBatonPrompt } from "../core/handoff.ts";
import { selfInvocation } from "../core/invocation.ts";
import { carriesNothing, parseLine } from "../core/jsonl.ts";
import { databasePath } from "../core/paths.ts";
import {
  type AheadRecord,
  handoffState,
  hasPrinted,
  readAhead,
  writeAhead,
  writePrinted,
} from "../db/marks/ahead.ts";
import { readCompaction, writeCompaction } from "../db/marks/compaction.ts";
import { readIntents } from "../db/marks/pending.ts";
import { VERSION } from "../version.ts";
import type { HookContext, HookPayload } from "./context.ts";
import { HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "./flags.ts";

/** How long the rehearsal waits for the files to settle before it gives up (a busy machine or window). */
const SETTLE_LIMIT_MS = 2000;

const str = (x: unknown): string | null => (typeof x === "string" && x !== "" ? x : null);

/**
 * Once nothing was written for a while (settleMsFor: so a later write cannot share a modification
 * time), rehearse, and keep what it found only if the state is still settled after it, that is
 * nothing wrote while it ran. The transcripts a handoff reads are known once it has run: a write
 * to one of them during the rehearsal (the client finishing the old session's transcript after
 * the /clear) sends it round again, within SETTLE_LIMIT_MS. `rehearse` returns null to give up.
 */
async function keepSettled<T>(
  path: string,
  transcripts: string[],
  rehearse: () => Promise<{ found: T; transcripts: string[] } | null>,
  keep: (found: T, state: ReturnType<typeof handoffState>, transcripts: string[]) => Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  while (Date.now() < deadline) {
    const before = handoffState(path, transcripts);
    const wait = before.newest + before.settledMs - Date.now();
    if (wait > 0) {
      if (Date.now() + wait > deadline) return;
      await Bun.sleep(wait + 1);
      continue;
    }
    const rehearsed = await rehearse();
    if (!rehearsed) return;
    transcripts = rehearsed.transcripts;
    const state = handoffState(path, transcripts);
    if (Date.now() - state.newest < state.settledMs) continue; // a write landed meanwhile
    await keep(rehearsed.found, state, transcripts);
    return;
  }
}

/** What a kept push was rendered for, beside the state: the same program, place and transcript. */
function renderedFor(ctx: HookContext) {
  return {
    version: VERSION,
    invocation: selfInvocation(),
    cwd: str(ctx.payload.cwd),
    transcript_path: ctx.transcriptPath,
  };
}

/** Whether a kept push was rendered by this program for this hook's place and transcript. */
function renderedHere(ctx: HookContext, kept: Omit<AheadRecord, "key" | "text" | "transcripts">): boolean {
  const now = renderedFor(ctx);
  return (
    kept.version === now.version &&
    kept.cwd === now.cwd &&
    kept.transcript_path === now.transcript_path &&
    kept.invocation === now.invocation
  );
}

/** Whether a kept push was rendered for this hook, from the state the files are in now. */
function stillFor(ctx: HookContext, path: string, kept: AheadRecord): boolean {
  return renderedHere(ctx, kept) && handoffState(path, kept.transcripts).key === kept.key;
}

/** The follow-up of SessionStart(clear): the first prompt's handoff, rehearsed and kept. */
export async function prepareAhead(ctx: HookContext): Promise<void> {
  const path = databasePath(ctx.env);
  await keepSettled(
    path,
    [],
    async () => {
      const { intents, unreadable } = await readIntents(path, ctx.sessionId);
      if (unreadable.length > 0 || intents.length === 0) return null;
      const { rehearseHandoff } = await import("./handoff.ts");
      const rehearsed = await rehearseHandoff(ctx, intents);
      return rehearsed && { found: rehearsed.text, transcripts: rehearsed.transcripts };
    },
    (text, state, transcripts) =>
      writeAhead(path, ctx.sessionId, { key: state.key, transcripts, text, ...renderedFor(ctx) }),
  );
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
  if (!kept || !stillFor(ctx, path, kept)) return null;
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

/**
 * The follow-up of PreCompact: the push SessionStart(compact) would print, rehearsed once the
 * files settle and kept with the state of the database, the marks and the session's transcript
 * (the client writes the boundary only after SessionStart returns: docs/contract.md, "After
 * compaction"; what it does write meanwhile carries nothing: grewByNothing). A push printed
 * ahead whose row no writer recorded yet is left for that SessionStart, which records it before
 * it renders (src/hooks/compacted.ts).
 */
export async function prepareCompactionAhead(ctx: HookContext): Promise<void> {
  if (!ctx.transcriptPath) return;
  const path = databasePath(ctx.env);
  await keepSettled(
    path,
    [ctx.transcriptPath],
    async () => {
      if ((await readCompaction(path, ctx.sessionId))?.form === "printed") return null;
      const { rehearseCompaction } = await import("./compacted.ts");
      const push = rehearseCompaction(ctx);
      return push && { found: push, transcripts: [ctx.transcriptPath as string] };
    },
    (push, state, transcripts) =>
      writeCompaction(path, ctx.sessionId, {
        form: "ahead",
        key: state.key,
        base: state.base,
        size: state.sizes[0] ?? 0,
        transcripts,
        text: push.text,
        stats: push.stats,
        ...renderedFor(ctx),
      }),
  );
}

/**
 * SessionStart(compact): the kept push when everything it was rehearsed from is as it was; its
 * row is left as a "printed" record for the follow-up this asks for (src/hooks/compacted.ts
 * settleCompaction). Null otherwise: the hook renders it, as before.
 */
export async function printCompactionAhead(ctx: HookContext): Promise<string | null> {
  if (ctx.env[HOOK_WORKER_ENV] === "1" || ctx.env[PUSH_AHEAD_ENV] === "0") return null;
  const path = databasePath(ctx.env);
  const kept = await readCompaction(path, ctx.sessionId);
  if (kept?.form !== "ahead" || !renderedHere(ctx, kept)) return null;
  if (!stillFor(ctx, path, kept) && !(await grewByNothing(ctx.sessionId, path, kept))) return null;
  const printed = { form: "printed" as const, at: ctx.now(), stats: kept.stats };
  if (!(await writeCompaction(path, ctx.sessionId, printed))) return null;
  ctx.followUp?.({ event: "session-start", payload: ctx.payload, env: { [PUSH_AHEAD_ENV]: "1" } });
  return kept.text;
}

/**
 * Whether only the transcript moved since the rehearsal, by whole lines the assembler takes
 * nothing from (carriesNothing): 2.1.332 writes its `queue-operation`, `mode` and `atis-latch`
 * lines while it compacts. Reading them, SessionStart would store nothing and render the same
 * push. A transcript is only ever appended to, so the bytes before the kept size are as they were.
 */
async function grewByNothing(
  sessionId: string,
  path: string,
  kept: { base: string; size: number; transcripts: string[] },
): Promise<boolean> {
  const [t, ...more] = kept.transcripts;
  if (t === undefined || more.length > 0) return false;
  const state = handoffState(path, kept.transcripts);
  const size = state.sizes[0] ?? 0;
  // Past 64 KiB it is no longer a line or two of the client's bookkeeping.
  if (state.base !== kept.base || size <= kept.size || size - kept.size > 65_536) return false;
  const added = await Bun.file(t).slice(kept.size, size).text();
  if (!added.endsWith("\n")) return false;
  for (const line of added.split("\n")) {
    if (line === "") continue;
    const entry = parseLine(line);
    if (entry === null || !carriesNothing(entry, sessionId)) return false;
  }
  return true;
}
