/**
 * The Responses API on loopback for the real Codex CLI (docs/testing.md; the recipe is
 * ../shared/docs/codex-HARNESS.md). `POST /v1/responses` is answered with the three SSE events
 * Codex 0.171 needs (`response.created`, `response.output_item.done`, `response.completed`);
 * every request body is kept. What the model does is a script of the request alone:
 * - `RUN:<cmd>` in the prompt, and no tool output yet in this turn: one `exec_command` call;
 * - `PULL` in the prompt, and no tool output yet: an `exec_command` running the first
 *   `<invocation> detail …` command found in the developer messages (throughline's push),
 *   exactly as printed;
 * - `SEARCH:<words>` in the prompt, and no tool output yet: an `exec_command` running the first
 *   `<invocation> search …` command found in the developer messages, up to `search`, with the words;
 * - a compaction request (no tools; Codex's checkpoint instructions as the prompt): a summary text;
 * - otherwise the text `[<tag>] done` for `TAG:<tag>`, plus ` (tool output seen)` after a tool.
 * `TOKENS:<n>` in the prompt reports n tokens of usage (with a low
 * `model_auto_compact_token_limit`, the next turn compacts first).
 */

export interface CodexRequest {
  body: Record<string, unknown>;
  /** Text of the last user message. */
  prompt: string;
  /** Every developer message's text, in order (hook context arrives as these). */
  developer: string[];
  /** Tool outputs after the last user message. */
  toolOutputs: string[];
  /** Codex's compaction request: no tools, its checkpoint instructions as the last user message. */
  compaction: boolean;
}

/** What the stand-in model answers a compaction with: the summary Codex keeps. */
export const COMPACTION_SUMMARY = "STAND-IN COMPACTION SUMMARY";

type Item = { type?: string; role?: string; content?: unknown; output?: unknown };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("\n");
}

export function readRequest(body: Record<string, unknown>): CodexRequest {
  const input = (Array.isArray(body.input) ? body.input : []) as Item[];
  let last = -1;
  input.forEach((it, i) => {
    if ((it.type ?? "message") === "message" && it.role === "user") last = i;
  });
  const prompt = last >= 0 ? textOf(input[last]!.content) : "";
  return {
    body,
    compaction:
      (!Array.isArray(body.tools) || body.tools.length === 0) &&
      prompt.includes("CONTEXT CHECKPOINT COMPACTION"),
    prompt,
    developer: input.filter((it) => it.role === "developer").map((it) => textOf(it.content)),
    toolOutputs: input
      .slice(last + 1)
      .filter((it) => it.type === "function_call_output" || it.type === "custom_tool_call_output")
      .map((it) => (typeof it.output === "string" ? it.output : textOf(it.output))),
  };
}

/** The `detail` pull a push printed: the first backquoted command holding ` detail ` and `--session`. */
export function pushedDetail(developer: readonly string[]): string | null {
  for (const text of developer) {
    const m = /`([^`\n]* detail \d{4}-[^`\n]*--session [^`\n]*)`/.exec(text);
    if (m) return m[1]!;
  }
  return null;
}

/**
 * The `search` a push's guide printed, up to and including `search` (what follows it there is a
 * placeholder), or null: the part a model keeps, adding its own words.
 */
export function pushedSearch(developer: readonly string[]): string | null {
  for (const text of developer) {
    const m = /`([^`\n]* search)(?: [^`\n]*)?`/.exec(text);
    if (m) return m[1]!;
  }
  return null;
}

type Output = { type: "message"; text: string } | { type: "shell"; cmd: string };

function decide(r: CodexRequest): Output {
  if (r.compaction) return { type: "message", text: COMPACTION_SUMMARY };
  if (r.toolOutputs.length === 0) {
    const words = /SEARCH:(\S+)/.exec(r.prompt)?.[1];
    const search = words === undefined ? null : pushedSearch(r.developer);
    if (search !== null) return { type: "shell", cmd: `${search} ${words}` };
    const run = /RUN:(?:`([^`]+)`|(.+))$/m.exec(r.prompt);
    if (run) return { type: "shell", cmd: (run[1] ?? run[2]!).trim() };
    if (r.prompt.includes("PULL")) {
      const pull = pushedDetail(r.developer);
      if (pull) return { type: "shell", cmd: pull };
    }
  }
  const tag = /TAG:(\S+)/.exec(r.prompt)?.[1] ?? "notag";
  return { type: "message", text: `[${tag}] done${r.toolOutputs.length > 0 ? " (tool output seen)" : ""}` };
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

export class CodexStandIn implements AsyncDisposable {
  readonly requests: CodexRequest[] = [];
  private server: ReturnType<typeof Bun.serve>;
  private n = 0;

  constructor() {
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => this.answer(req) });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.server.port}/v1`;
  }

  private async answer(req: Request): Promise<Response> {
    const url = new URL(req.url);
    // The built-in provider's WebSocket attempt: 426 makes Codex fall back to HTTPS at once.
    if (req.method !== "POST" || !url.pathname.endsWith("/responses"))
      return new Response(JSON.stringify({ ok: true }), { status: req.method === "GET" ? 426 : 200 });
    const body = (await req.json()) as Record<string, unknown>;
    const r = readRequest(body);
    this.requests.push(r);
    const n = ++this.n;
    const out = decide(r);
    const item =
      out.type === "message"
        ? {
            id: `msg_${n}`,
            type: "message",
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text: out.text, annotations: [] }],
          }
        : {
            id: `fc_${n}`,
            type: "function_call",
            status: "completed",
            name: "exec_command",
            call_id: `call_${n}`,
            arguments: JSON.stringify({ cmd: out.cmd }),
          };
    const tokens = Number(/TOKENS:(\d+)/.exec(r.prompt)?.[1] ?? 110);
    const usage = {
      input_tokens: tokens - 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: tokens,
    };
    const response = { id: `resp_${n}`, object: "response", status: "completed", model: "gpt-5.5" };
    const text = sse([
      { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } },
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response: { ...response, output: [item], usage } },
    ]);
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.server.stop(true);
  }
}
