/**
 * Steps and checks shared by the end-to-end scenarios: what the database holds for a session,
 * waiting for a stored turn, holding a `claude -p` open, `/clear` in the TUI, and the push as
 * Claude Code recorded it.
 */

import { chainKeyOf } from "../../src/db/queries/sessions.ts";
import {
  type E2EHome,
  hookEvents,
  queryDb,
  readHookLog,
  type TmuxClaude,
  type TranscriptEntry,
  waitUntil,
} from "./driver.ts";
import { type MessagesBody, type RecordedRequest, type Reply, requestText } from "./stand-in.ts";

/** A short random tag, so every scenario's text is its own. */
export function nonce(): string {
  return Math.random().toString(36).slice(2, 8);
}

export interface TurnRow {
  turn_number: number;
  session_id: string;
  user: string | null;
  assistant: string | null;
}

/** The key under which the chain holding `sessionId` stores its rows (docs/architecture.md, "Chains"). */
export function chainKeyIn(h: E2EHome, sessionId: string): string | undefined {
  return queryDb(
    h,
    (db) => (db.query(`SELECT ${chainKeyOf("$s")} AS k`).get({ $s: sessionId }) as { k: string }).k,
  );
}

/** Stored turns whose origin is `sessionId`, oldest first, with their L2 text. */
export function storedTurns(h: E2EHome, sessionId: string): TurnRow[] {
  return (
    queryDb(
      h,
      (db) =>
        db
          .query(
            `SELECT t.turn_number, t.session_id,
                  (SELECT text FROM bodies b WHERE b.turn_id = t.id AND b.role = 'user') AS user,
                  (SELECT text FROM bodies b WHERE b.turn_id = t.id AND b.role = 'assistant') AS assistant
             FROM turns t WHERE t.origin_session_id = ? ORDER BY t.turn_number`,
          )
          .all(sessionId) as TurnRow[],
    ) ?? []
  );
}

/** The turn whose prompt contains `prompt` is stored and holds `reply` (its Stop has run). */
export function turnStored(h: E2EHome, sessionId: string, prompt: string, reply: string): boolean {
  return storedTurns(h, sessionId).some((t) => t.user?.includes(prompt) && t.assistant?.includes(reply));
}

/**
 * Hold a `claude -p` run open until its turn is stored and the recorder saw its Stop (both
 * are async hooks, which `claude -p` would otherwise cancel on exit: PrintOptions.holdUntil).
 */
export function held(h: E2EHome, prompt: string, reply: string) {
  return {
    holdUntil: (sid: string) =>
      turnStored(h, sid, prompt, reply) &&
      hookEvents(h, "Stop", sid).some((r) => String(r.payload.last_assistant_message ?? "").includes(reply)),
    explainHold: (sid: string) => diagnose(h, sid),
  };
}

/** What the database and the recorder saw, for a timeout message. */
export function diagnose(h: E2EHome, sessionId: string): string {
  const errors =
    queryDb(h, (db) => db.query("SELECT event, session_id, message FROM hook_errors").all()) ?? [];
  const batons = queryDb(h, (db) => db.query("SELECT * FROM handoff_batons").all()) ?? [];
  const hooks = readHookLog(h).map((r) => ({
    event: r.event,
    sid: r.payload.session_id,
    source: r.payload.source,
    prompt: r.payload.prompt,
    last: r.payload.last_assistant_message,
  }));
  return JSON.stringify(
    { session: sessionId, turns: storedTurns(h, sessionId), hook_errors: errors, batons, hooks },
    null,
    1,
  );
}

export async function waitStored(
  h: E2EHome,
  sessionId: string,
  prompt: string,
  reply: string,
): Promise<void> {
  try {
    await waitUntil(() => turnStored(h, sessionId, prompt, reply), `turn "${prompt}" stored with its reply`);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${diagnose(h, sessionId)}`);
  }
}

export function sessionRequests(h: E2EHome, sessionId: string): RecordedRequest[] {
  return h.standIn.mainRequests(sessionId);
}

/** The texts UserPromptSubmit printed for a session, as Claude Code recorded them (the push). */
export function promptHookOutputs(transcript: TranscriptEntry[]): string[] {
  return transcript
    .map((e) => e.attachment as Record<string, unknown> | undefined)
    .filter((a) => a?.type === "hook_success" && a.hookEvent === "UserPromptSubmit")
    .map((a) => String(a?.content ?? ""))
    .filter((c) => c.trim() !== "");
}

/**
 * `/clear`, then the new session's id from the recorder's SessionStart(clear). `previousText`
 * is something on screen that the clear removes.
 */
export async function clearSession(h: E2EHome, tmux: TmuxClaude, previousText: string): Promise<string> {
  const since = Date.now();
  await tmux.clear(previousText);
  const start = await waitUntil(
    () => hookEvents(h, "SessionStart").find((r) => r.payload.source === "clear" && r.at >= since),
    "SessionStart(clear) for a new session",
  );
  return String(start.payload.session_id);
}

/** The push as the model received it: the UserPromptSubmit hook output inside the request. */
export function pushIn(body: MessagesBody): string {
  const text = requestText(body);
  const at = text.indexOf("# Resume context (throughline)");
  return at < 0 ? "" : text.slice(at);
}

/** A command the push shows in backquotes, found by what it does (`recall --l2 `…). */
export function printed(push: string, marker: string): string | null {
  return new RegExp(`\`([^\`\\n]* ${marker}[^\`\\n]*)\``).exec(push)?.[1] ?? null;
}

/** The stand-in model's reply that runs `command` with Claude Code's own Bash tool. */
export function bash(command: string): Reply {
  return { tools: [{ name: "Bash", input: { command, description: "throughline pull" } }] };
}

/** A reply of about `words` × 7 characters, so a handful of turns fill the 9,500-character push. */
export function filler(i: number, tag: string, words = 280): string {
  return `Reply ${i} ${tag}: ${Array.from({ length: words }, (_, k) => `w${(k * 7 + i) % 89}`).join(" ")}.`;
}

/**
 * Type `prompts` into the TUI one at a time, each waited for until its turn is stored with
 * `reply(i, prompt)`. Returns the session id, taken from the first request (no recorder needed).
 */
export async function typeTurns(
  h: E2EHome,
  tmux: TmuxClaude,
  prompts: readonly string[],
  reply: (i: number, prompt: string) => string,
): Promise<string> {
  let sessionId = "";
  for (const [i, prompt] of prompts.entries()) {
    await tmux.submit(prompt);
    if (!sessionId) {
      await h.standIn.waitFor((reqs) => reqs.some((r) => r.kind === "main"), 30_000, "the first request");
      sessionId = h.standIn.mainRequests()[0]!.sessionId!;
    }
    await waitStored(h, sessionId, prompt, reply(i, prompt));
  }
  return sessionId;
}
