/**
 * Token usage of a live session, read from its transcript (docs/monitor.md). Pure: the caller
 * reads bytes from its own offset and feeds them here, so a 20 MB transcript is read once and
 * then only its new tail, however often the monitor redraws.
 *
 * The context a session holds is the prompt side of its newest API response:
 * `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`, never a length
 * estimate. Claude Code writes one line per content block and repeats the response's `usage`
 * on each, so a response is taken once, keyed on message id + request id.
 */
import { isObject, type JsonObject, parseLine, splitLines, str } from "./jsonl.ts";
import { activityTime } from "./transcript-blocks.ts";

export const DEFAULT_WINDOW = 200_000;
export const LARGE_WINDOW = 1_000_000;

export type WindowReason = "model_suffix" | "display_name" | "payload" | "observed" | "default";

/** One live session in `monitor` and the web view: its context use, read from its transcript. */
export interface MonitorRow {
  sessionId: string;
  /** Short project name (the last part of its directory). */
  project: string;
  /** Absolute project directory, when the transcript said it. */
  projectDir: string | null;
  transcriptPath: string;
  /** Context tokens of the newest response; null before the first one. */
  used: number | null;
  window: number;
  windowReason: WindowReason;
  model: string | null;
  /**
   * The session's last activity (epoch ms): the newest time the transcript itself records
   * (core/transcript-blocks.ts `activityTime`), not the file's mtime; null when it records none.
   */
  lastActivity: number | null;
  responses: number;
}

export interface UsageState {
  /** Bytes consumed so far (just after the last complete line). */
  offset: number;
  sessionId: string | null;
  cwd: string | null;
  /** The model of the newest counted response (`claude-opus-4-6`, or with `[1m]`). */
  model: string | null;
  /** Context tokens of the newest counted response; null before the first one. */
  used: number | null;
  /** Output tokens of that response. */
  output: number | null;
  /** Largest context seen in this transcript: past 200k, the window must be 1M. */
  peak: number;
  /** Distinct responses counted. */
  responses: number;
  /** Keys of the responses counted, so their repeated lines are skipped. */
  seen: Set<string>;
  /** Key of the newest counted response: its later lines may carry the final output count. */
  lastKey: string | null;
  /** The session's last activity (epoch ms): the newest `activityTime`; null before one. */
  lastTs: number | null;
}

export function emptyUsage(): UsageState {
  return {
    offset: 0,
    sessionId: null,
    cwd: null,
    model: null,
    used: null,
    output: null,
    peak: 0,
    responses: 0,
    seen: new Set(),
    lastKey: null,
    lastTs: null,
  };
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** `input + cache_creation + cache_read`, as Claude Code itself counts the context. */
export function contextTokens(usage: JsonObject): number {
  return (
    num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens)
  );
}

/** One transcript entry into the state (mutates it). */
export function applyEntry(state: UsageState, e: JsonObject): void {
  const at = activityTime(e);
  if (at !== undefined && (state.lastTs === null || at > state.lastTs)) state.lastTs = at;
  if (state.sessionId === null && typeof e.sessionId === "string") state.sessionId = e.sessionId;
  if (typeof e.cwd === "string" && e.cwd && e.isSidechain !== true) state.cwd = e.cwd;
  // Subagents run in their own context; their usage says nothing about the main one.
  if (e.type !== "assistant" || e.isSidechain === true) return;
  const m = e.message;
  if (!isObject(m) || !isObject(m.usage)) return;
  const model = str(m.model) ?? null;
  // Locally generated error lines carry an all-zero usage: not a response of the model.
  if (model === "<synthetic>" || e.isApiErrorMessage === true) return;
  const key = `${str(m.id) ?? ""}|${str(e.requestId) ?? ""}`;
  if (key !== "|" && state.seen.has(key)) {
    if (key === state.lastKey) state.output = Math.max(state.output ?? 0, num(m.usage.output_tokens));
    return;
  }
  const used = contextTokens(m.usage);
  if (used === 0 && num(m.usage.output_tokens) === 0) return;
  if (key !== "|") state.seen.add(key);
  state.lastKey = key === "|" ? null : key;
  state.responses++;
  state.used = used;
  state.output = num(m.usage.output_tokens);
  if (model) state.model = model;
  if (used > state.peak) state.peak = used;
}

/** Only lines that can change the state are parsed: a 20 MB transcript is mostly tool output. */
function relevant(text: string): boolean {
  return text.includes('"usage"') || text.includes('"timestamp"');
}

/**
 * Feed bytes that start at `state.offset`. An unterminated last line is not consumed: it is
 * read again, whole, with the next chunk.
 */
export function feedUsage(state: UsageState, bytes: Uint8Array): void {
  const { lines, consumedTo } = splitLines(bytes, state.offset);
  for (const l of lines) {
    if (!relevant(l.text)) continue;
    const e = parseLine(l.text);
    if (e) applyEntry(state, e);
  }
  state.offset = consumedTo;
}

export interface ContextWindow {
  size: number;
  reason: WindowReason;
}

/**
 * The window of a session: a `[1m]` model suffix or a "1M context" display name says 1M; so
 * does any observed context past 200k (no 200k model can hold it); otherwise 200k.
 */
export function detectWindow(opts: {
  model?: string | null;
  displayName?: string | null;
  peak?: number;
  /** What Claude Code itself reported (status line payload), when it did. */
  reported?: number | null;
}): ContextWindow {
  if (opts.reported && opts.reported > 0)
    return {
      size: (opts.peak ?? 0) > opts.reported ? LARGE_WINDOW : opts.reported,
      reason: "payload",
    };
  if (opts.model && /\[1m\]/i.test(opts.model)) return { size: LARGE_WINDOW, reason: "model_suffix" };
  if (opts.displayName && /\b1M context\b/i.test(opts.displayName))
    return { size: LARGE_WINDOW, reason: "display_name" };
  if ((opts.peak ?? 0) > DEFAULT_WINDOW) return { size: LARGE_WINDOW, reason: "observed" };
  return { size: DEFAULT_WINDOW, reason: "default" };
}

/** `123.4k`, `1.2M`, `950`: short enough for a status line. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${trim(n / 1_000_000)}M`;
  if (n >= 1000) return `${trim(n / 1000)}k`;
  return String(n);
}

function trim(x: number): string {
  const s = x >= 100 ? x.toFixed(0) : x.toFixed(1);
  return s.endsWith(".0") ? s.slice(0, -2) : s;
}

/** `just now`, `24m ago`, `3h ago`, `2d ago`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/** Per cent of the window used, 0–100 (more when a window was guessed too small). */
export function percentOf(used: number, window: number): number {
  return window > 0 ? Math.round((used / window) * 1000) / 10 : 0;
}

/** Claude Code's directory name for a project under `projects/`: every non-alphanumeric is `-`. */
export function projectDirName(dir: string): string {
  return dir.replace(/[^a-zA-Z0-9]/g, "-");
}

/**
 * Whether a `projects/<name>` directory is the one of `dir`. Claude Code shortens names past
 * 200 characters and appends a hash: those match on the first 200.
 */
export function dirNameMatches(name: string, dir: string): boolean {
  const enc = projectDirName(dir);
  return name === enc || (enc.length > 200 && name.startsWith(`${enc.slice(0, 200)}-`));
}

export interface PayloadUsage {
  /** Context tokens Claude Code reported; null before the first reply (or an older client). */
  used: number | null;
  /** `context_window.context_window_size`, when sent (Claude Code 2.1.x). */
  reported: number | null;
  modelId: string | null;
  displayName: string | null;
}

/** The context facts of a `statusLine` payload (recorded ones are in test/fixtures/statusline). */
export function payloadUsage(p: JsonObject): PayloadUsage {
  const model = isObject(p.model) ? p.model : {};
  const cw = isObject(p.context_window) ? p.context_window : null;
  const size = cw && typeof cw.context_window_size === "number" ? cw.context_window_size : null;
  return {
    used: cw && isObject(cw.current_usage) ? contextTokens(cw.current_usage) : null,
    reported: size !== null && size > 0 ? size : null,
    modelId: str(model.id) ?? (typeof p.model === "string" ? p.model : null),
    displayName: str(model.display_name) ?? null,
  };
}
