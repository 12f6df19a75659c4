import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openForWrite } from "../../src/db/open.ts";
import { HOOK_WORKER_ENV, type HookOutcome, runHook } from "../../src/hooks/run.ts";
import type { TranscriptBuilder } from "./transcript.ts";

/** Drives hooks in-process with Claude Code-shaped payloads against one temp database. */
export class HookDriver {
  readonly env: Record<string, string>;
  clock: number;
  readonly dir: string;
  /** `marksKept`: a writer has opened the database before, so SessionStart only writes its intent. */
  constructor(
    dir: string,
    start = Date.parse("2026-03-01T12:00:00.000Z"),
    opts: { marksKept?: boolean } = {},
  ) {
    this.dir = dir;
    this.env = {
      ...(process.env as Record<string, string>),
      THROUGHLINE_DB: join(dir, "tl.db"),
      THROUGHLINE_FLUSH_WAIT_MS: "0",
    };
    this.clock = start;
    if (opts.marksKept) openForWrite(this.dbPath).close();
  }
  get dbPath(): string {
    return this.env.THROUGHLINE_DB!;
  }
  advance(ms: number): this {
    this.clock += ms;
    return this;
  }
  transcriptPath(sessionId: string): string {
    return join(this.dir, `${sessionId}.jsonl`);
  }
  write(b: TranscriptBuilder): string {
    const p = this.transcriptPath(b.sessionId);
    writeFileSync(p, b.text());
    return p;
  }
  async fire(
    event: string,
    sessionId: string,
    extra: Record<string, unknown> = {},
    cwd = "/home/dev/project",
  ) {
    const payload = {
      session_id: sessionId,
      transcript_path: this.transcriptPath(sessionId),
      cwd,
      hook_event_name: event,
      permission_mode: "default",
      ...extra,
    };
    const out = await runHook(event, JSON.stringify(payload), this.env, () => this.clock);
    if (out.stderr) throw new Error(`hook ${event} failed: ${out.stderr}`);
    return out;
  }
  /**
   * Runs what a hook asked to run after it (HookContext.followUp), as its detached process
   * would: the same event, its payload, its environment additions; null when it asked for none.
   */
  async followUp(out: HookOutcome): Promise<HookOutcome | null> {
    const f = out.followUp;
    if (!f) return null;
    const env = { ...this.env, ...f.env, [HOOK_WORKER_ENV]: "1" };
    const done = await runHook(f.event, JSON.stringify(f.payload), env, () => this.clock);
    if (done.stderr) throw new Error(`follow-up ${f.event} failed: ${done.stderr}`);
    return done;
  }
  read<T>(fn: (db: Database) => T): T {
    const db = new Database(this.dbPath, { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }
}
