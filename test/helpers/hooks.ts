import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { openForWrite } from "../../src/db/open.ts";
import { FOLLOW_UP_PAYLOAD_ENV, HOOK_WORKER_ENV } from "../../src/hooks/flags.ts";
import { type HookOutcome, runHook } from "../../src/hooks/run.ts";

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

/** A turn of another window, stored by its Stop: a write between a rehearsal and its use. */
export async function otherWindowsTurn(h: HookDriver, sessionId: string, project: string): Promise<void> {
  const o = new TranscriptBuilder(sessionId, project, new Date(h.clock - 30 * 60_000).toISOString());
  o.user("other window: what is in README.md").say("other answer: the readme");
  h.write(o);
  await h.fire("stop", sessionId, { stop_hook_active: false }, project);
}

/**
 * Runs hooks as real processes (`bun src/cli.ts hook <event>`) in the driver's environment, as a
 * client starts them (not as a follow-up): their own follow-ups start detached, as in use.
 * Returns what the hook printed; a non-zero exit or any stderr fails the test.
 */
export function hookProcess(h: HookDriver, base: Record<string, unknown>) {
  const env = { ...h.env };
  delete env[HOOK_WORKER_ENV];
  delete env[FOLLOW_UP_PAYLOAD_ENV];
  return (event: string, payload: Record<string, unknown>): string => {
    const r = Bun.spawnSync(["bun", join(REPO, "src", "cli.ts"), "hook", event], {
      env,
      stdin: Buffer.from(JSON.stringify({ ...base, ...payload })),
      stdout: "pipe",
      stderr: "pipe",
    });
    // Everything the process left, so a failure seen only in CI says which it was (a signal, a line).
    const seen = { event, exit: r.exitCode, signal: r.signalCode ?? null, stderr: r.stderr.toString() };
    expect(seen).toEqual({ event, exit: 0, signal: null, stderr: "" });
    return r.stdout.toString();
  };
}

/** Whether `what` holds within 5 s (what a detached follow-up does is waited for). */
export async function eventually(what: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !what(); i++) await Bun.sleep(25);
  return what();
}
