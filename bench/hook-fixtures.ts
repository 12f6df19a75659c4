/** What the hook rows run on (bench/hooks.ts, bench/real.ts): transcripts, template databases, marks. */
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { TranscriptBuilder } from "../harness/transcript.ts";
import { ingestTranscript } from "../src/capture/ingest.ts";
import type { StartIntent } from "../src/db/marks/pending.ts";
import { type Database, openForRead, openForWrite } from "../src/db/open.ts";
import { tidyIndexes } from "../src/db/queries/fts-deferral.ts";
import { measure, WORK } from "./lib.ts";

export const PROJECT = "/home/dev/bench-project";

export type HookRow = {
  median_ms: number;
  p95_ms: number;
  runs: number;
  note?: string;
  paired_ratio?: number;
};

/** One hook suite's state: the binary, the runs a row, the database every run uses, its rows so far. */
export interface HookBench {
  bin: string;
  runs: number;
  runDb: string;
  env: Record<string, string>;
  out: Record<string, HookRow>;
  /** Counts the sessions made up for the rows, so each run's id is new. */
  n: number;
}

/** A chain read to its end in a template database: what a /clear hands over. */
export interface ChainFixture {
  id: string;
  transcript: string;
  template: string;
  project: string;
  /** When a new session may be born: after the chain's last activity, as a /clear is. */
  born: number;
}

export function hookBench(bin: string, runs: number): HookBench {
  const runDb = join(WORK, "run.db");
  // Measure the work itself: a detached Stop worker would still be running when the next run starts.
  // Isolated from the real home. The summarizer is the offline one: a `claude` on PATH would make
  // the Stop wait for a model call, which runs detached and bounded for a user and is not the
  // Stop's own cost (docs/benchmarks.md).
  const env = {
    THROUGHLINE_DB: runDb,
    THROUGHLINE_DETACH: "0",
    THROUGHLINE_HOME: join(WORK, "home"),
    CLAUDE_CONFIG_DIR: join(WORK, "claude"),
    THROUGHLINE_SUMMARIZER: "extractive",
  };
  return { bin, runs, runDb, env, out: {}, n: 0 };
}

/** `measure` of `throughline <args>` with the suite's runs and environment, `env` added. */
export function timeHook(
  h: HookBench,
  args: string[],
  opts: { stdin?: () => string; before?: () => void; env?: Record<string, string> },
): HookRow {
  return measure(h.runs, () => [h.bin, ...args], {
    env: { ...h.env, ...opts.env },
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    ...(opts.before ? { before: opts.before } : {}),
  });
}

/** A transcript of `turns` turns, each with a tool call: `bytesPerTurn` sets the size. */
export function bigTranscript(id: string, turns: number, bytesPerTurn: number): TranscriptBuilder {
  const b = new TranscriptBuilder(id, PROJECT, "2026-06-01T08:00:00.000Z");
  const filler = "x".repeat(Math.max(0, bytesPerTurn - 2500));
  for (let i = 1; i <= turns; i++) {
    b.user(`Step ${i}: update module ${i % 37} and run its tests`);
    b.say(`Looking at module ${i % 37}.`);
    b.tool("Read", { file_path: `/home/dev/bench-project/src/m${i % 37}.ts` }, `// module ${i}\n${filler}`);
    b.tool("Bash", { command: "bun test" }, `${i} pass, 0 fail`);
    b.say(`Module ${i % 37} updated; tests pass (${i}).`);
    b.tick(30_000);
  }
  return b;
}

export function removeDb(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  rmSync(`${path}-pending`, { recursive: true, force: true });
}

/**
 * Processes other than this one whose environment names `dbPath` (a hook's detached worker or
 * follow-up of an earlier run still going), from /proc; none where there is no /proc.
 */
function workersOf(dbPath: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid);
  } catch {
    return [];
  }
  const mark = `THROUGHLINE_DB=${dbPath}\0`;
  return pids
    .filter((pid) => {
      try {
        return `${readFileSync(`/proc/${pid}/environ`, "latin1")}\0`.includes(mark);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

/**
 * Until no earlier run's worker has `dbPath` open: a copy made under one would be opened by it half
 * written (a run once failed with "database disk image is malformed", another with EEXIST on the
 * marks directory a worker made again). A sleep was the wait before; a slow worker outlasted it.
 */
function untilNoWorker(dbPath: string, timeoutMs = 30_000): void {
  const deadline = Date.now() + timeoutMs;
  for (let w = workersOf(dbPath); w.length > 0; w = workersOf(dbPath)) {
    if (Date.now() > deadline) throw new Error(`bench: workers ${w.join(", ")} still have ${dbPath} open`);
    Bun.sleepSync(10);
  }
}

/**
 * Copy a template database and flush it to disk before the timed run: otherwise the hook's
 * checkpoint fsync pays for writing back the whole freshly copied file.
 */
export function copyDb(from: string, to: string): void {
  untilNoWorker(to);
  removeDb(to);
  for (const suffix of ["", "-wal", "-shm"])
    if (existsSync(from + suffix)) {
      copyFileSync(from + suffix, to + suffix);
      const fd = openSync(to + suffix, "r+");
      fsyncSync(fd);
      closeSync(fd);
    }
  // The pending marks go with their database (src/db/marks/).
  if (existsSync(`${from}-pending`)) cpSync(`${from}-pending`, `${to}-pending`, { recursive: true });
}

/** How the push of `sessionId` was made (`injections.prepared`: 0 rendered, 1 prepared, 2 printed ahead). */
export function pushMadeBy(dbPath: string, sessionId: string): number | undefined {
  const db = openForRead(dbPath);
  try {
    return db
      .query<{ prepared: number }, [string]>(
        "SELECT prepared FROM injections WHERE session_id = ? ORDER BY id DESC LIMIT 1",
      )
      .get(sessionId)?.prepared;
  } finally {
    db.close();
  }
}

/** Whether `newId`'s handoff merged `chainId` (a row that measured no handoff would be a wrong figure). */
export function assertMerged(dbPath: string, newId: string, chainId: string): void {
  const db = openForRead(dbPath);
  const merged = db
    .query<{ n: number }, [string, string]>(
      "SELECT count(*) AS n FROM handoffs WHERE session_id = ? AND predecessor = ? AND path = 'auto'",
    )
    .get(newId, chainId)!.n;
  db.close();
  if (merged !== 1) throw new Error(`bench: the handoff of ${newId} did not merge ${chainId}`);
}

/** When a session born after everything `template` holds would be born (its newest activity + 1 s). */
export function bornAfter(template: string): number {
  const db = openForWrite(template);
  try {
    return db.query<{ t: number }, []>("SELECT max(updated_at) AS t FROM sessions").get()!.t + 1000;
  } finally {
    db.close();
  }
}

/** What SessionStart(clear) leaves in the marks for `id`: its intent, as of `createdAt`. */
export function writeClearIntent(dbPath: string, id: string, createdAt: number, project = PROJECT): void {
  const start: StartIntent = {
    session_id: id,
    source: "clear",
    client: null,
    prompt_id: null,
    created_at: createdAt,
    cwd: project,
    transcript_path: join(WORK, `${id}.jsonl`),
  };
  writeFileSync(`${dbPath}-pending/${id}`, JSON.stringify(start));
}

/** Waits (up to 5 s) until `path` exists, or with `present` false until it is gone. */
export function waitForFile(path: string, present = true): void {
  for (let i = 0; i < 500 && existsSync(path) !== present; i++) Bun.sleepSync(10);
}

/**
 * A template's full-text indexes as the Stop worker keeps them, its merge step having run after every
 * Stop (docs/search.md, "After each Stop, one merge step"): a template filled in one ingest would make
 * the timed Stop's step merge what the earlier Stops would have merged.
 */
export function asStopsKeepIt(db: Database): void {
  while (tidyIndexes(db, 10_000));
}

/** A Stop's fixture: the template holds all but the last turn; the transcript holds them all. */
export interface StopFixture {
  template: string;
  transcript: string;
  payload: string;
  bytes: number;
}

/** Ingests all but the last turn into a template database; returns the paths a run needs. */
export function stopFixture(name: string, turns: number, bytesPerTurn: number): StopFixture {
  const id = `bench-${name}`;
  const b = bigTranscript(id, turns, bytesPerTurn);
  const lines = b.lines;
  const lastStart = lines.findLastIndex((l) => l.includes('"type":"user"') && l.includes(`Step ${turns}:`));
  const transcript = join(WORK, `${id}.jsonl`);
  writeFileSync(transcript, `${lines.slice(0, lastStart).join("\n")}\n`);
  const template = join(WORK, `${id}.template.db`);
  removeDb(template);
  const db = openForWrite(template);
  ingestTranscript(db, { path: transcript, sessionId: id, project: PROJECT, now: Date.now() });
  asStopsKeepIt(db);
  db.close();
  writeFileSync(transcript, b.text());
  const payload = JSON.stringify({
    session_id: id,
    transcript_path: transcript,
    cwd: PROJECT,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: `Module ${turns % 37} updated; tests pass (${turns}).`,
  });
  return { template, transcript, payload, bytes: Bun.file(transcript).size };
}
