/**
 * Codex rollouts written the way Codex 0.171 writes them (test/fixtures/codex/ holds two real
 * ones): `session_meta`, then per turn `task_started`, `turn_context`, a hook's developer message,
 * the prompt, the shell call and its output, the reply, `task_complete`.
 */
let seq = 0;

export interface ShellStep {
  cmd: string;
  output: string;
  exit: number;
}

export class RolloutBuilder {
  readonly lines: string[] = [];
  private ordinal = 0;
  private clock: number;
  readonly sessionId: string;
  readonly cwd: string;

  constructor(sessionId: string, cwd: string, start = Date.UTC(2026, 11, 6, 4, 0, 0)) {
    this.sessionId = sessionId;
    this.cwd = cwd;
    this.clock = start;
    this.push("session_meta", {
      id: sessionId,
      session_id: sessionId,
      cwd,
      originator: "codex_exec",
      cli_version: "0.171.0",
      source: "exec",
    });
  }

  private push(type: string, payload: Record<string, unknown>): void {
    this.clock += 1000;
    this.lines.push(
      JSON.stringify({
        timestamp: new Date(this.clock).toISOString(),
        ordinal: this.ordinal++,
        type,
        payload,
      }),
    );
  }

  /** One turn; `injected` is what a hook added as developer context (never to be stored). */
  turn(
    prompt: string,
    reply: string,
    opts: { shell?: ShellStep; injected?: string; reasoning?: string; turnId?: string } = {},
  ): this {
    // Codex's turn and call ids are unique across sessions; several builders in one database need `turnId`.
    const turnId = opts.turnId ?? `turn-${++seq}`;
    const meta = { turn_id: turnId };
    this.push("event_msg", { type: "task_started", turn_id: turnId });
    this.push("turn_context", { turn_id: turnId, cwd: this.cwd, approval_policy: "never" });
    if (opts.injected)
      this.push("response_item", {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: opts.injected }],
        internal_chat_message_metadata_passthrough: {
          ...meta,
          content_item_kinds: ["hooks.additional_context"],
          content_item_metadata: [{ provenance: { type: "harness", hook: true } }],
        },
      });
    this.push("response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: prompt }],
      internal_chat_message_metadata_passthrough: {
        ...meta,
        content_item_kinds: ["user.text"],
        content_item_metadata: [{ provenance: { type: "user" } }],
      },
    });
    if (opts.reasoning)
      this.push("response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: opts.reasoning }],
      });
    if (opts.shell) {
      const callId = `call_${turnId}`;
      this.push("response_item", {
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: opts.shell.cmd, yield_time_ms: 5000 }),
        call_id: callId,
        internal_chat_message_metadata_passthrough: meta,
      });
      this.push("response_item", {
        type: "function_call_output",
        call_id: callId,
        output: `Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code ${opts.shell.exit}\nOriginal token count: 3\nOutput:\n${opts.shell.output}`,
      });
    }
    this.push("response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: reply }],
      internal_chat_message_metadata_passthrough: { ...meta, content_item_kinds: ["unknown"] },
    });
    this.push("event_msg", { type: "task_complete", turn_id: turnId, last_agent_message: reply });
    return this;
  }

  text(): string {
    return `${this.lines.join("\n")}\n`;
  }
}

/** `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl` under `home`. */
export function rolloutPath(home: string, sessionId: string, day = "2026/12/06"): string {
  return `${home}/sessions/${day}/rollout-${day.replaceAll("/", "-")}T04-00-00-${sessionId}.jsonl`;
}
