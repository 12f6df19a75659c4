/**
 * Steps and checks shared by the end-to-end scenarios: what the database holds for a session,
 * waiting for a stored turn, holding a `claude -p` open, `/clear` in the TUI, and the push as
 * Claude Code recorded it.
 */

import { chainKeyOf } from "../../src/db/queries/sessions.ts";
import {
  type E2EHome,
  hookEvents,
  type PrintOptions,
  queryDb,
  readHookLog,
  runPrint,
  type TmuxClaude,
  type TranscriptEntry,
  waitUntil,
} from "./driver.ts";
import {
  type ContentBlock,
  lastPrompt,
  type MessagesBody,
  type RecordedRequest,
  type Reply,
  requestText,
  stepInTurn,
  toolResults,
  toolResultText,
} from "./stand-in.ts";

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

/** The session whose request carried the prompt holding `words` (a new session's first prompt). */
export function sessionPrompted(h: E2EHome, words: string): string {
  return h.standIn.mainRequests().find((r) => r.body && lastPrompt(r.body).includes(words))!.sessionId!;
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

// ---------------------------------------------------------------------------------------------
// Bash output as the model receives it (output-limit.test.ts), and paged pulls

/** One Bash call as the model got its result back: the command it ran and what arrived. */
export interface BashResult {
  toolUseId: string;
  command: string;
  /** The tool_result text, exactly as it reached the model. */
  output: string;
  isError: boolean;
}

/**
 * The Bash results a request carries back to the model (the tool_result blocks of its newest
 * user message), each joined with the command of its `tool_use` in the assistant message before.
 */
export function bashResults(body: MessagesBody): BashResult[] {
  const msgs = body.messages ?? [];
  const commands = new Map<string, string>();
  for (const m of msgs)
    if (m.role === "assistant" && typeof m.content !== "string")
      for (const b of m.content)
        if (b.type === "tool_use" && b.name === "Bash" && typeof b.id === "string")
          commands.set(b.id, String((b.input as { command?: unknown } | undefined)?.command ?? ""));
  return toolResults(body)
    .filter((b: ContentBlock) => typeof b.tool_use_id === "string" && commands.has(b.tool_use_id))
    .map((b) => ({
      toolUseId: b.tool_use_id as string,
      command: commands.get(b.tool_use_id as string)!,
      output: toolResultText(b),
      isError: b.is_error === true,
    }));
}

/**
 * Every Bash result of these requests as it first arrived (read from the request right after the
 * call, not from later history, which the client may shorten), in the order the requests came.
 */
export function arrivedBashResults(requests: RecordedRequest[]): BashResult[] {
  return requests.flatMap((r) => (r.body ? bashResults(r.body) : []));
}

export interface PersistedOutput {
  /** As the client words it: `29.3KB`, `119KB`. */
  size: string;
  /** Where the client saved the whole output (under `$CLAUDE_CONFIG_DIR/projects/…/tool-results/`). */
  path: string;
  preview: string;
}

/**
 * What Claude Code hands the model in place of a Bash output over its limit (30,000 UTF-8 bytes
 * in 2.1.197 and 2.1.332, output-limit.test.ts): the saved file's path and a preview of the first
 * ≤ 2,000 characters, cut at a line break:
 *
 *     <persisted-output>
 *     Output too large (29.3KB). Full output saved to: <path>
 *
 *     Preview (first 2KB):
 *     <preview>
 *     ...
 *     </persisted-output>
 *
 * Returns null for anything else (an output that arrived whole).
 */
export function persistedOutput(output: string): PersistedOutput | null {
  if (!output.includes("<persisted-output>")) return null;
  const m =
    /<persisted-output>\nOutput too large \(([^)]*)\)\. Full output saved to: ([^\n]+)\n\nPreview \([^)]*\):\n([\s\S]*)\n\.\.\.\n<\/persisted-output>\s*$/.exec(
      output,
    );
  // A shape we do not know yet still counts as persisted: a preview must never pass for whole.
  return m ? { size: m[1]!, path: m[2]!, preview: m[3]! } : { size: "", path: "", preview: output };
}

/** The line a paged pull prints when more follows (the product's wording, once paging exists). */
export const NEXT_PAGE_MARKER = "next page:";

/**
 * The command a paged pull's output names after `next page:` (in backquotes, or the rest of the
 * line), or null when there is none: the last page. The last such line counts.
 */
export function nextPage(output: string, marker = NEXT_PAGE_MARKER): string | null {
  const at = output.lastIndexOf(marker);
  if (at < 0) return null;
  const rest = output
    .slice(at + marker.length)
    .split("\n")[0]!
    .trim();
  const quoted = /^`([^`]+)`/.exec(rest);
  const command = quoted ? quoted[1]!.trim() : rest;
  return command === "" ? null : command;
}

export interface FollowPagesOptions {
  marker?: string;
  /** The model's answer once a page names no next page (default `Read every page.`). */
  done?: string;
  /** A safety stop: after this many pages the model answers `done` anyway (default 50). */
  maxPages?: number;
}

/**
 * The stand-in model's side of a paged pull, for one request of the turn: the first request runs
 * `first` with the Bash tool; each later one runs the command the newest result names after
 * `next page:`, until a result names none (or `maxPages` were read), then answers `done`. Use it
 * inside a script, for the prompt that starts the pull: `(r, body) => followPages(body, cmd)`.
 */
export function followPages(
  body: MessagesBody,
  first: string,
  opts: FollowPagesOptions = {},
): Reply | string {
  const step = stepInTurn(body);
  if (step === 0) return bash(first);
  const done = opts.done ?? "Read every page.";
  if (step >= (opts.maxPages ?? 50)) return done;
  const newest = toolResults(body).map(toolResultText).join("\n");
  const next = nextPage(newest, opts.marker);
  return next === null ? done : bash(next);
}

export interface PagedPull {
  sessionId: string;
  /** Every page as it reached the model, in order: `pages[0]` is `first`'s output. */
  pages: BashResult[];
  /** The model's final answer (`done`). */
  result: string;
}

/**
 * One `claude -p` turn in which the stand-in model pages through a pull: `first`, then every
 * `next page:` command, to the last page (followPages). It replaces the stand-in's script for
 * that prompt only (other prompts still reach the previous script). Pass `print.allowedTools`
 * when the commands have no allow rule of their own (an install writes them for real pulls).
 */
export async function runPagedPull(
  h: E2EHome,
  first: string,
  opts: FollowPagesOptions & { print?: PrintOptions } = {},
): Promise<PagedPull> {
  const go = `page through ${nonce()}`;
  const previous = h.standIn.getScript();
  h.standIn.setScript((r, body) =>
    lastPrompt(body).includes(go) ? followPages(body, first, opts) : previous?.(r, body),
  );
  try {
    const r = await runPrint(h, go, opts.print);
    if (r.exitCode !== 0) throw new Error(`claude -p exited ${r.exitCode}: ${r.stderr || r.stdout}`);
    return {
      sessionId: r.sessionId,
      pages: arrivedBashResults(sessionRequests(h, r.sessionId)),
      result: r.result,
    };
  } finally {
    h.standIn.setScript(previous);
  }
}

/** The product's page line, the last line of a page that has a next one (src/render/pull.ts). */
const PAGE_LINE = /\nNext page \(([^)\n]*)\): `([^`\n]+)`\s*$/;

/**
 * The next page a pull names, as the product prints it on the page's last line:
 * `Next page (<what>): \`<command>\`` (`recall --l2/--l1`, `detail`, `detail --item`); null on
 * the last page. `what` is the parenthesised part (`3 older turns`, `chars 23,739–`).
 */
export function pageLine(output: string): { what: string; command: string } | null {
  const m = PAGE_LINE.exec(output);
  return m ? { what: m[1]!, command: m[2]! } : null;
}

/**
 * A `detail` page's cut marks, `[… 12,345 chars cut · --item <ref>]`, in order, each with the command
 * that shows it whole: the page's footer (`A cut item in full: \`<command> --item <ref>\``) with
 * the mark's ref filled in, as the model would.
 */
export function cutMarkers(output: string): { cut: number; command: string }[] {
  const template = /^A cut item in full: `([^`\n]+)`/m.exec(output)?.[1];
  if (!template) return [];
  return [...output.matchAll(/\[… ([\d,]+) chars cut · --item (\S+)\]/g)].map((m) => ({
    cut: Number(m[1]!.replaceAll(",", "")),
    command: template.replace("<ref>", m[2]!),
  }));
}
