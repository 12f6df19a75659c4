/**
 * Builders for Claude Code transcript entries, shaped like the real files (see
 * ../shared/corpus/FORMAT_NOTES.md): envelope fields, one content block per assistant line,
 * tool results as user entries carrying `toolUseResult`.
 */
type Obj = Record<string, unknown>;

export class TranscriptBuilder {
  readonly lines: string[] = [];
  private n = 0;
  private last: string | null = null;
  private clock: number;
  readonly sessionId: string;
  /** The working directory the next entries carry (`cd` moves it, as the model's Bash does). */
  cwd: string;
  readonly version: string;
  constructor(
    sessionId: string,
    cwd = "/home/dev/project",
    start = "2026-03-01T09:00:00.000Z",
    version = "2.1.39",
  ) {
    this.sessionId = sessionId;
    this.cwd = cwd;
    this.version = version;
    this.clock = Date.parse(start);
  }

  /** Later entries carry `dir` as their cwd: what Claude Code writes after the model `cd`s. */
  cd(dir: string): this {
    this.cwd = dir;
    return this;
  }

  /** Advance the transcript clock (ms). */
  tick(ms = 1000): this {
    this.clock += ms;
    return this;
  }
  at(iso: string): this {
    this.clock = Date.parse(iso);
    return this;
  }
  get time(): string {
    return new Date(this.clock).toISOString();
  }

  private envelope(type: string, extra: Obj = {}): Obj {
    const uuid = `${this.sessionId.slice(0, 8)}-u${++this.n}`;
    const e: Obj = {
      parentUuid: this.last,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: "main",
      type,
      uuid,
      timestamp: this.time,
      ...extra,
    };
    this.last = uuid;
    return e;
  }

  raw(entry: Obj | string): this {
    this.lines.push(typeof entry === "string" ? entry : JSON.stringify(entry));
    return this;
  }

  user(content: string | Obj[], extra: Obj = {}): this {
    this.tick();
    return this.raw(this.envelope("user", { message: { role: "user", content }, ...extra }));
  }

  /** One assistant response; each block is its own line sharing the message id (streaming split). */
  assistant(blocks: Obj[], extra: Obj = {}): this {
    this.tick();
    const id = `msg_${this.sessionId.slice(0, 6)}_${++this.n}`;
    for (const block of blocks)
      this.raw(
        this.envelope("assistant", {
          requestId: `req_${id}`,
          message: {
            id,
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [block],
            stop_reason: null,
          },
          ...extra,
        }),
      );
    return this;
  }

  say(text: string): this {
    return this.assistant([{ type: "text", text }]);
  }

  /** A tool call and its result (the result as a user entry with toolUseResult). */
  tool(
    name: string,
    input: Obj,
    output: string,
    opts: { isError?: boolean; result?: unknown; id?: string } = {},
  ): this {
    const id = opts.id ?? `toolu_${this.sessionId.slice(0, 4)}${++this.n}`;
    this.assistant([{ type: "tool_use", id, name, input }]);
    this.tick();
    const block: Obj = { tool_use_id: id, type: "tool_result", content: output };
    if (opts.isError !== undefined) block.is_error = opts.isError;
    return this.raw(
      this.envelope("user", {
        message: { role: "user", content: [block] },
        toolUseResult: opts.result ?? { stdout: output, stderr: "", interrupted: false, isImage: false },
      }),
    );
  }

  system(subtype: string, extra: Obj = {}): this {
    this.tick();
    return this.raw(this.envelope("system", { subtype, isMeta: false, level: "info", ...extra }));
  }

  text(): string {
    return `${this.lines.join("\n")}\n`;
  }

  /**
   * What `claude --resume <id> --fork-session` writes (Claude Code 2.1.197 and 2.1.332): a new
   * file whose first lines are its own (a queue-operation at the fork's time), then every entry
   * of this transcript so far with the same uuids and timestamps and the new `sessionId`. The
   * fork's clock starts at `at`; its own entries follow the copied ones. `lines`: fork after
   * that many lines only (a fork made inside a turn).
   */
  fork(sessionId: string, at: string, lines = this.lines.length): TranscriptBuilder {
    const f = new TranscriptBuilder(sessionId, this.cwd, at, this.version);
    f.raw({ type: "queue-operation", operation: "enqueue", timestamp: f.time, sessionId });
    for (const line of this.lines.slice(0, lines)) {
      let entry: Obj | null = null;
      try {
        entry = JSON.parse(line) as Obj;
      } catch {}
      f.raw(entry && typeof entry === "object" && "sessionId" in entry ? { ...entry, sessionId } : line);
      if (entry && typeof entry.uuid === "string") f.last = entry.uuid;
    }
    return f;
  }
}

/**
 * A transcript's text with every `"timestamp"` moved by the same amount, so that its newest is
 * `last` (epoch ms): the session as if it had just been active then. A live session's last
 * activity is the time its transcript records, not the file's mtime (issue 45, item 9).
 */
export function shiftTimestamps(text: string, last: number): string {
  const TS = /"timestamp":"([^"]+)"/g;
  const times = [...text.matchAll(TS)].map((m) => Date.parse(m[1]!)).filter(Number.isFinite);
  if (times.length === 0) return text;
  const delta = last - Math.max(...times);
  return text.replace(TS, (whole, iso: string) => {
    const t = Date.parse(iso);
    return Number.isFinite(t) ? `"timestamp":"${new Date(t + delta).toISOString()}"` : whole;
  });
}
