/**
 * Codex rollouts (docs/hosts.md): `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`, one
 * `{timestamp, type, payload}` per line (`session_meta`, `turn_context`, `response_item`,
 * `event_msg`, `compacted`). Each line is translated, on its own, into the transcript entries
 * the assembler already reads (src/core/assemble.ts): a prompt becomes a `user` entry, the
 * assistant's text and reasoning summaries an `assistant` entry, a shell call a `Bash` tool_use
 * and its output a tool_result with the exit code, `apply_patch` a tool_use holding the patch.
 * The translated lines keep their byte range, so the cursor, the re-read of the open turn and the
 * skipped-line count work on the rollout's own bytes. Pure.
 *
 * Never stored: developer messages (the base prompt, permissions, and every hook's
 * additionalContext, throughline's push included), the environment block, and user messages the
 * harness marked as its own (`content_item_metadata[].provenance.type !== "user"`).
 */
import { isObject, type Json, type JsonObject, parseLine, type RawLine, str } from "./jsonl.ts";

export { type Host, hostOfPath, isRolloutPath, rolloutSessionId } from "./host.ts";

/** What older rollouts (without provenance) put in user messages that no person typed. */
const HARNESS_USER_TEXT = /^\s*<(environment_context|user_instructions|user_shell_command|turn_aborted)\b/;

function textOf(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c) => (isObject(c) ? (str(c.text) ?? "") : ""))
    .filter((t) => t.length > 0)
    .join("\n");
}

/** A user message a person wrote: marked `user` where the rollout says, else not a harness block. */
function isRealPrompt(p: JsonObject, text: string): boolean {
  const meta = isObject(p.internal_chat_message_metadata_passthrough)
    ? p.internal_chat_message_metadata_passthrough
    : null;
  const items = meta && Array.isArray(meta.content_item_metadata) ? meta.content_item_metadata : null;
  if (items && items.length > 0)
    return items.every((m) => isObject(m) && isObject(m.provenance) && m.provenance.type === "user");
  const kinds = meta && Array.isArray(meta.content_item_kinds) ? meta.content_item_kinds : null;
  if (kinds && kinds.length > 0) return kinds.every((k) => k === "user.text");
  return !HARNESS_USER_TEXT.test(text);
}

interface Ctx {
  sessionId: string | undefined;
  timestamp: string | undefined;
}

/**
 * What translating a rollout remembers from line to line: the turn id of the newest prompt. A
 * compaction's own reply is written as an assistant message of the *next* turn, before that
 * turn's prompt; it is not the previous turn's text (the summary is kept from `compacted`).
 */
export interface RolloutState {
  promptTurn: string | undefined;
}

function turnIdOf(p: JsonObject): string | undefined {
  const meta = p.internal_chat_message_metadata_passthrough;
  return isObject(meta) ? str(meta.turn_id) : undefined;
}

function entry(ctx: Ctx, type: string, fields: JsonObject): JsonObject {
  const e: JsonObject = { type, ...fields };
  if (ctx.sessionId) e.sessionId = ctx.sessionId;
  if (ctx.timestamp) e.timestamp = ctx.timestamp;
  return e;
}

function assistant(ctx: Ctx, id: string, content: Json[]): JsonObject {
  return entry(ctx, "assistant", { message: { id, role: "assistant", content } });
}

function toolResult(ctx: Ctx, callId: string, text: string, exitCode: number | null): JsonObject {
  const bad = exitCode !== null && exitCode !== 0;
  const content = bad ? `Exit code ${exitCode}\n${text}` : text;
  const e = entry(ctx, "user", {
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: callId, content, is_error: bad }],
    },
  });
  if (exitCode !== null) e.toolUseResult = { exitCode };
  return e;
}

/** The command a shell call ran: `exec_command {cmd}`, `shell_command {command}`, `shell {command: [...]}`. */
export function shellCommandOf(name: string, args: JsonObject): string | null {
  if (name === "exec_command") return str(args.cmd) ?? null;
  if (name === "shell_command") return str(args.command) ?? null;
  if (name === "shell" || name === "container.exec") {
    const c = args.command;
    if (!Array.isArray(c)) return str(c) ?? null;
    const words = c.filter((w): w is string => typeof w === "string");
    // ["bash", "-lc", "<script>"]: the script is what ran.
    if (words.length === 3 && /^-l?c$/.test(words[1]!)) return words[2]!;
    return words.join(" ");
  }
  return null;
}

/**
 * A shell call's output as Codex hands it to the model: a header (`Chunk ID`, `Wall time`,
 * `Process exited with code N`, `Original token count`), then `Output:` and the output itself.
 * apply_patch's reads `Exit code: N` … `Output:`. Anything else is kept whole.
 */
export function parseToolOutput(raw: string): { text: string; exitCode: number | null } {
  const at = raw.indexOf("Output:\n");
  const head = at >= 0 ? raw.slice(0, at) : raw.slice(0, 400);
  const m = /(?:Process exited with code|Exit code:)\s*(-?\d+)/.exec(head);
  if (at < 0 || !m) return { text: raw, exitCode: m ? Number(m[1]) : null };
  return { text: raw.slice(at + "Output:\n".length), exitCode: Number(m[1]) };
}

function parseArgs(v: Json | undefined): JsonObject {
  if (isObject(v)) return v;
  if (typeof v !== "string") return {};
  try {
    const o = JSON.parse(v) as unknown;
    return isObject(o) ? o : { arguments: v };
  } catch {
    return { arguments: v };
  }
}

function functionCall(ctx: Ctx, p: JsonObject): JsonObject[] {
  const name = str(p.name) ?? "tool";
  const id = str(p.call_id) ?? str(p.id) ?? "";
  const args = parseArgs(p.arguments);
  const cmd = shellCommandOf(name, args);
  const use =
    cmd !== null
      ? { type: "tool_use", id, name: "Bash", input: { command: cmd, codex_tool: name } }
      : { type: "tool_use", id, name, input: args };
  return [assistant(ctx, str(p.id) ?? id, [use])];
}

function customCall(ctx: Ctx, p: JsonObject): JsonObject[] {
  const name = str(p.name) ?? "tool";
  const id = str(p.call_id) ?? str(p.id) ?? "";
  const input = str(p.input) ?? "";
  const args: JsonObject = name === "apply_patch" ? { patch: input } : { input };
  const use: JsonObject = { type: "tool_use", id, name, input: args };
  return [assistant(ctx, str(p.id) ?? id, [use])];
}

function message(ctx: Ctx, p: JsonObject, state: RolloutState): JsonObject[] {
  const role = str(p.role);
  const text = textOf(p.content);
  const turn = turnIdOf(p);
  if (role === "assistant") {
    const otherTurn = turn !== undefined && state.promptTurn !== undefined && turn !== state.promptTurn;
    return text.trim() && !otherTurn ? [assistant(ctx, str(p.id) ?? "", [{ type: "text", text }])] : [];
  }
  if (role !== "user" || !text.trim() || !isRealPrompt(p, text)) return [];
  state.promptTurn = turn;
  // The message id (else the turn id) is the turn's uuid: a fork's link names it (forkBaseOf).
  const uuid = str(p.id) ?? turn;
  const fields: JsonObject = { message: { role: "user", content: [{ type: "text", text }] } };
  if (uuid) fields.uuid = uuid;
  return [entry(ctx, "user", fields)];
}

function reasoning(ctx: Ctx, p: JsonObject): JsonObject[] {
  const parts = [textOf(p.summary), textOf(p.content)].filter((t) => t.trim().length > 0);
  if (parts.length === 0) return [];
  return [assistant(ctx, str(p.id) ?? "", [{ type: "thinking", thinking: parts.join("\n\n") }])];
}

function responseItem(ctx: Ctx, p: JsonObject, state: RolloutState): JsonObject[] {
  switch (str(p.type)) {
    case "message":
      return message(ctx, p, state);
    case "reasoning":
      return reasoning(ctx, p);
    case "function_call":
      return functionCall(ctx, p);
    case "custom_tool_call":
      return customCall(ctx, p);
    case "local_shell_call": {
      const action = isObject(p.action) ? p.action : {};
      const cmd = shellCommandOf("shell", action) ?? "";
      const id = str(p.call_id) ?? str(p.id) ?? "";
      const use = { type: "tool_use", id, name: "Bash", input: { command: cmd, codex_tool: "local_shell" } };
      return [assistant(ctx, id, [use])];
    }
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output": {
      const raw = typeof p.output === "string" ? p.output : textOf(p.output);
      const out = parseToolOutput(raw);
      return [toolResult(ctx, str(p.call_id) ?? "", out.text, out.exitCode)];
    }
    default:
      return [];
  }
}

/** One rollout record as zero or more transcript entries; null when it is no rollout record. */
export function translateRecord(
  record: JsonObject,
  state: RolloutState = { promptTurn: undefined },
): JsonObject[] | null {
  const type = str(record.type);
  const p = isObject(record.payload) ? record.payload : null;
  if (!type || !p) return null;
  const ctx: Ctx = { sessionId: undefined, timestamp: str(record.timestamp) };
  switch (type) {
    case "session_meta": {
      ctx.sessionId = str(p.id) ?? str(p.session_id);
      const cwd = str(p.cwd);
      // A record the assembler does not read but learns the session, its start and its cwd from.
      return [entry(ctx, "codex-session", cwd ? { cwd } : {})];
    }
    case "turn_context": {
      const cwd = str(p.cwd);
      return cwd ? [entry(ctx, "codex-turn-context", { cwd })] : [];
    }
    case "response_item":
      return responseItem(ctx, p, state);
    case "compacted": {
      const text = str(p.message) ?? "";
      return text.trim()
        ? [entry(ctx, "user", { isCompactSummary: true, message: { role: "user", content: text } })]
        : [];
    }
    case "event_msg":
    case "world_state":
    case "token_usage_record":
      // Progress, usage and the item_completed copies of what the response items already hold.
      return [];
    default:
      return null;
  }
}

/**
 * A rollout's lines as transcript lines, each keeping its byte range (a record that yields two
 * entries gives two lines with the same range). A line that is not JSON, or not a rollout record,
 * is passed on as it is: the assembler skips or reads it as it would any line.
 */
export function* rolloutLines(lines: Iterable<RawLine>): Generator<RawLine> {
  const state: RolloutState = { promptTurn: undefined };
  for (const line of lines) {
    const record = parseLine(line.text);
    const entries = record === null ? null : translateRecord(record, state);
    if (entries === null) {
      yield line;
      continue;
    }
    for (const e of entries) yield { text: JSON.stringify(e), start: line.start, end: line.end };
  }
}

/**
 * A fork's rollout does not copy its parent's history (../shared/docs/codex-HARNESS.md): its
 * `session_meta` names the parent and where its history ends, `history_base: {thread_id,
 * end_ordinal_exclusive, end_byte_offset}` (older: `forked_from_id`, `forked_from_ordinal_exclusive`).
 */
export interface ForkBase {
  parent: string;
  /** The parent's bytes before this offset are the fork's history (null: by ordinal only). */
  endByte: number | null;
  endOrdinal: number | null;
}

const num = (v: Json | undefined): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The fork base of a rollout's first line, or null when it is no fork's `session_meta`. */
export function forkBaseOf(firstLine: string): ForkBase | null {
  const record = parseLine(firstLine);
  if (record?.type !== "session_meta" || !isObject(record.payload)) return null;
  const p = record.payload;
  const base = isObject(p.history_base) ? p.history_base : {};
  const parent = str(base.thread_id) ?? str(p.forked_from_id);
  if (!parent) return null;
  return {
    parent,
    endByte: num(base.end_byte_offset),
    endOrdinal: num(base.end_ordinal_exclusive) ?? num(p.forked_from_ordinal_exclusive),
  };
}

/**
 * The uuid of the newest prompt a person wrote in a parent's lines before the fork `base` (the
 * fork point, as `sessions.fork_uuid`); null when there is none.
 */
export function lastPromptBefore(lines: Iterable<RawLine>, base: ForkBase): string | null {
  const state: RolloutState = { promptTurn: undefined };
  let last: string | null = null;
  for (const line of lines) {
    if (base.endByte !== null && line.end > base.endByte) break;
    const record = parseLine(line.text);
    if (record === null) continue;
    const ordinal = num(record.ordinal);
    if (base.endByte === null && base.endOrdinal !== null && ordinal !== null && ordinal >= base.endOrdinal)
      break;
    for (const e of translateRecord(record, state) ?? [])
      if (e.type === "user" && !e.isCompactSummary && typeof e.uuid === "string") last = e.uuid;
  }
  return last;
}
