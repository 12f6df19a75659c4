/**
 * A scriptable stand-in for the Anthropic Messages API, so the real Claude Code CLI runs fully
 * offline on loopback. It records every request and answers the conversation from a script.
 *
 * What Claude Code 2.1.197 sends (observed by logging, see docs/testing.md):
 * - `HEAD /` once at startup (a reachability probe): any 200 will do.
 * - `POST /v1/messages?beta=true` with `"stream": true` for the conversation: system is an array
 *   of text blocks, `tools` lists ~24 built-in tools, the header `x-claude-code-session-id`
 *   carries the session id. The prompt is the last `text` block of the newest user message;
 *   SessionStart/UserPromptSubmit hook output arrives in a `role: "system"` entry of `messages`
 *   (`UserPromptSubmit hook success: <stdout>`), and stays there in later requests as history.
 * - Side requests in interactive mode (the session title, asked of a haiku model with no tools
 *   and a system prompt wanting `{"title": …}`): answered with JSON or plain text, never from
 *   the main script.
 * - `/compact`: a main-shaped request whose last user message asks for a summary of the
 *   conversation; answered with a fixed `<analysis>`/`<summary>` text, never from the script.
 */

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** Defaults to a unique `toolu_e2e_<n>`. */
  id?: string;
}

/** One model reply: optional text, then optional tool calls (stop_reason follows from them). */
export interface Reply {
  text?: string;
  tools?: ToolCall[];
}

export interface ContentBlock {
  type: string;
  text?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  [key: string]: unknown;
}

export interface ApiMessage {
  role: string;
  content: string | ContentBlock[];
}

export interface MessagesBody {
  model?: string;
  max_tokens?: number;
  stream?: boolean;
  system?: string | { type: string; text: string }[];
  messages?: ApiMessage[];
  tools?: { name: string }[];
  [key: string]: unknown;
}

/**
 * `main`: the conversation (agent system prompt and tools); `compact`: the summary request of
 * `/compact` (same shape as main, recognised by its instructions); `side`: helpers without
 * tools (session title and the like); the rest by path.
 */
export type RequestKind = "main" | "compact" | "side" | "count_tokens" | "other";

export interface RecordedRequest {
  seq: number;
  method: string;
  path: string;
  kind: RequestKind;
  /** From the `x-claude-code-session-id` header, when present. */
  sessionId: string | null;
  headers: Record<string, string>;
  body: MessagesBody | null;
  receivedAt: number;
  /**
   * `performance.now()` when the request reached the handler, before its body is read: the
   * arrival bench/client.ts times a prompt against (same clock as the harness's own reads).
   */
  arrivedAt: number;
}

/**
 * Decides the reply to a main request. Return `undefined` to fall through to the queue, and
 * then to the default reply.
 */
export type ScriptFn = (req: RecordedRequest, body: MessagesBody) => Reply | string | undefined;

export interface StandInOptions {
  script?: ScriptFn;
  /** Text of the reply when neither the script nor the queue has one. */
  defaultText?: string;
  /** Text of every side request's reply (default: a JSON title where one is asked for). */
  sideText?: string;
  /** When set, every request is also written there as `<seq>-<kind>.json` (debugging). */
  logDir?: string;
  /**
   * Milliseconds before a main or compact reply starts, like a real model's time to first
   * token. 0 (the default) answers at once.
   */
  latencyMs?: number;
  /**
   * Milliseconds before a compact reply starts (default: latencyMs). A real model takes seconds to
   * write a conversation's summary; the client runs PreCompact before it and SessionStart after.
   */
  compactLatencyMs?: number;
  /**
   * The `input_tokens` a main reply reports (default 10), fixed or per request: what the client
   * measures its context by, so a large value drives its auto-compaction.
   */
  inputTokens?: number | ((body: MessagesBody) => number);
}

export interface StandIn {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Append replies consumed in order by main requests the script does not answer. */
  enqueue(...replies: (Reply | string)[]): void;
  /** Replace the script function. */
  setScript(fn: ScriptFn | undefined): void;
  /** The script function in use (to wrap it, and put it back after). */
  getScript(): ScriptFn | undefined;
  mainRequests(sessionId?: string): RecordedRequest[];
  /** Resolves once `pred` holds over the recorded requests (polled), or rejects after `timeoutMs`. */
  waitFor(pred: (reqs: RecordedRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  stop(): Promise<void>;
}

/** The text blocks of one message, joined by newlines. */
export function messageText(m: ApiMessage | undefined): string {
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  return m.content
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

/** The newest `user` message of a request. */
export function lastUserMessage(body: MessagesBody): ApiMessage | undefined {
  const msgs = body.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i]?.role === "user") return msgs[i];
  return undefined;
}

/** `tool_result` blocks of the newest user message: a tool loop is in progress when non-empty. */
export function toolResults(body: MessagesBody): ContentBlock[] {
  const m = lastUserMessage(body);
  if (!m || typeof m.content === "string") return [];
  return m.content.filter((b) => b.type === "tool_result");
}

/** Plain text of a tool_result's content (a string or an array of text blocks). */
export function toolResultText(b: ContentBlock): string {
  if (typeof b.content === "string") return b.content;
  if (Array.isArray(b.content))
    return b.content
      .map((c) => (c && typeof c === "object" && "text" in c ? String((c as { text: unknown }).text) : ""))
      .join("\n");
  return "";
}

/**
 * The newest human-typed text of a request: the last user message without tool_result blocks,
 * with `<system-reminder>` blocks removed. Hook stdout (UserPromptSubmit) arrives in the same
 * message as a separate block, so use `lastUserMessage` to see it.
 */
export function lastPrompt(body: MessagesBody): string {
  const m = (body.messages ?? [])[lastPromptIndex(body.messages ?? [])];
  if (!m) return "";
  const blocks: ContentBlock[] =
    typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
  const texts = blocks
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => (b.text as string).trim())
    .filter((t) => t !== "" && !t.startsWith("<system-reminder>"));
  return texts.at(-1) ?? "";
}

/** Index of the newest human prompt: the last user message that carries no tool_result. */
function lastPromptIndex(msgs: ApiMessage[]): number {
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m?.role !== "user") continue;
    if (typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result")) continue;
    return i;
  }
  return -1;
}

/**
 * How many model replies this turn already has: 0 for the first request after a prompt, 1
 * after the first tool round trip, and so on. Depends only on the request, so a script built
 * on it is deterministic whatever else Claude Code sends.
 */
export function stepInTurn(body: MessagesBody): number {
  const msgs = body.messages ?? [];
  return msgs.slice(lastPromptIndex(msgs) + 1).filter((m) => m.role === "assistant").length;
}

/**
 * A script from a table: the first key found in the newest prompt picks the list of replies,
 * and `stepInTurn` picks the reply in it (the last one repeats). Prompts that match no key
 * fall through to the queue and the default reply.
 */
export function scriptedTurns(table: Record<string, (Reply | string)[]>): ScriptFn {
  return (_req, body) => {
    const prompt = lastPrompt(body);
    const key = Object.keys(table).find((k) => prompt.includes(k));
    if (key === undefined) return undefined;
    const replies = table[key]!;
    return replies[Math.min(stepInTurn(body), replies.length - 1)];
  };
}

/** Occurrences of `needle` in `haystack` (non-overlapping). */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Everything the model can read in a request (system, every message, tool results), as one string. */
export function requestText(body: MessagesBody): string {
  const parts: string[] = [];
  const sys = body.system;
  if (typeof sys === "string") parts.push(sys);
  else if (Array.isArray(sys)) for (const b of sys) parts.push(b.text);
  for (const m of body.messages ?? []) {
    if (typeof m.content === "string") parts.push(m.content);
    else
      for (const b of m.content) {
        if (typeof b.text === "string") parts.push(b.text);
        if (b.type === "tool_result") parts.push(toolResultText(b));
      }
  }
  return parts.join("\n");
}

function systemText(body: MessagesBody): string {
  const sys = body.system;
  if (typeof sys === "string") return sys;
  if (Array.isArray(sys)) return sys.map((b) => b.text).join("\n");
  return "";
}

/**
 * The conversation request carries the tool list and the agent system prompt; helper requests
 * (session titles, topic detection, summaries) carry neither. Subagents also have tools but a
 * different system prompt; none of our scenarios start one.
 */
export function classify(path: string, method: string, body: MessagesBody | null): RequestKind {
  const p = path.split("?")[0] ?? path;
  if (method === "POST" && p === "/v1/messages/count_tokens") return "count_tokens";
  if (method !== "POST" || p !== "/v1/messages" || !body) return "other";
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (!hasTools) return "side";
  if (!/interactive agent|Claude Code|Claude Agent SDK/.test(systemText(body))) return "side";
  if (COMPACT_MARKER.test(messageText(lastUserMessage(body)))) return "compact";
  return "main";
}

/** Claude Code's `/compact` instructions, appended to the last user message. */
const COMPACT_MARKER = /create a detailed summary of the conversation so far/;

/** What `/compact` gets back: the `<analysis>` + `<summary>` shape Claude Code asks for. */
export const COMPACT_SUMMARY_TEXT =
  "<analysis>Stand-in analysis.</analysis>\n<summary>Stand-in compaction summary: the user and the assistant exchanged numbered prompts.</summary>";

/** Helper requests that ask for JSON (session titles) get JSON; anything else plain text. */
function sideReply(body: MessagesBody, text: string | undefined): string {
  if (text !== undefined) return text;
  if (/"title"/.test(systemText(body))) return JSON.stringify({ title: "Stand-in session" });
  return "Stand-in side reply";
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

interface BuiltBlock {
  type: "text" | "tool_use";
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
}

const USAGE = {
  input_tokens: 10,
  output_tokens: 1,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

export async function startStandIn(opts: StandInOptions = {}): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const queue: (Reply | string)[] = [];
  let script = opts.script;
  let toolSeq = 0;
  let msgSeq = 0;

  const toBlocks = (r: Reply | string): BuiltBlock[] => {
    const reply = typeof r === "string" ? { text: r } : r;
    const blocks: BuiltBlock[] = [];
    if (reply.text !== undefined && reply.text !== "") blocks.push({ type: "text", text: reply.text });
    for (const t of reply.tools ?? [])
      blocks.push({ type: "tool_use", id: t.id ?? `toolu_e2e_${++toolSeq}`, name: t.name, input: t.input });
    if (blocks.length === 0) blocks.push({ type: "text", text: "" });
    return blocks;
  };

  const pickMain = (rec: RecordedRequest, body: MessagesBody): Reply | string => {
    const fromScript = script?.(rec, body);
    if (fromScript !== undefined) return fromScript;
    const next = queue.shift();
    if (next !== undefined) return next;
    return opts.defaultText ?? "OK.";
  };

  const respond = (body: MessagesBody, blocks: BuiltBlock[]): Response => {
    const id = `msg_e2e_${++msgSeq}`;
    const tokens = typeof opts.inputTokens === "function" ? opts.inputTokens(body) : opts.inputTokens;
    const usage = { ...USAGE, input_tokens: tokens ?? USAGE.input_tokens };
    const model = body.model ?? "claude-stand-in";
    const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    if (!body.stream) {
      return Response.json({
        id,
        type: "message",
        role: "assistant",
        model,
        content: blocks.map((b) =>
          b.type === "text"
            ? { type: "text", text: b.text ?? "" }
            : { type: "tool_use", id: b.id, name: b.name, input: b.input },
        ),
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      });
    }
    let out = sse("message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    });
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        out += sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        });
        out += sse("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: b.text ?? "" },
        });
      } else {
        out += sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
        });
        out += sse("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input ?? {}) },
        });
      }
      out += sse("content_block_stop", { type: "content_block_stop", index });
    });
    out += sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    });
    out += sse("message_stop", { type: "message_stop" });
    return new Response(out, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const arrivedAt = performance.now();
      const url = new URL(req.url);
      const path = url.pathname + url.search;
      const raw = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
      let body: MessagesBody | null = null;
      if (raw) {
        try {
          body = JSON.parse(raw) as MessagesBody;
        } catch {
          body = null;
        }
      }
      const kind = classify(path, req.method, body);
      const rec: RecordedRequest = {
        seq: requests.length + 1,
        method: req.method,
        path,
        kind,
        sessionId: req.headers.get("x-claude-code-session-id"),
        headers: Object.fromEntries(req.headers),
        body,
        receivedAt: Date.now(),
        arrivedAt,
      };
      requests.push(rec);
      if (opts.logDir)
        await Bun.write(
          `${opts.logDir}/${String(rec.seq).padStart(3, "0")}-${kind}.json`,
          JSON.stringify(rec, null, 2),
        );

      switch (kind) {
        case "count_tokens":
          return Response.json({ input_tokens: 100 });
        case "side":
          return respond(body ?? {}, toBlocks(sideReply(body ?? {}, opts.sideText)));
        case "compact": {
          const wait = opts.compactLatencyMs ?? opts.latencyMs;
          if (wait) await Bun.sleep(wait);
          return respond(body ?? {}, toBlocks(COMPACT_SUMMARY_TEXT));
        }
        case "main":
          if (opts.latencyMs) await Bun.sleep(opts.latencyMs);
          return respond(body ?? {}, toBlocks(pickMain(rec, body ?? {})));
        case "other":
          // HEAD / at startup and anything unforeseen: harmless and empty.
          return req.method === "HEAD" ? new Response(null, { status: 200 }) : Response.json({});
      }
    },
  });

  const port = server.port ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setScript: (fn) => {
      script = fn;
    },
    getScript: () => script,
    mainRequests: (sessionId) =>
      requests.filter((r) => r.kind === "main" && (sessionId === undefined || r.sessionId === sessionId)),
    waitFor: async (pred, timeoutMs = 30_000, what = "stand-in condition") => {
      const deadline = Date.now() + timeoutMs;
      while (!pred(requests)) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await Bun.sleep(50);
      }
    },
    stop: () => server.stop(true),
  };
}
