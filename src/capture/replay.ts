/**
 * `replay`: ingest recorded transcripts as if every Stop had fired. Main transcripts go
 * first so that subagent files (flat `*.sub-agent-*.jsonl` or `<session>/subagents/agent-*.jsonl`)
 * find the turn that started them.
 */
import type { Database } from "bun:sqlite";
import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { notTranscriptReason, ownFileKind, type SkippedLines } from "../core/transcript-file.ts";
import { getCursor } from "../db/queries/capture.ts";
import { originCounts } from "../db/queries/counts.ts";
import { beginDeferral, type DeferralOwner, endDeferral, indexDeferred } from "../db/queries/fts-deferral.ts";
import { ThroughlineError } from "../errors.ts";
import { type IngestResult, ingestTranscript } from "./ingest.ts";
import type { IngestOptions } from "./ingest-plan.ts";
import { ingestSubagent } from "./ingest-subagent.ts";
import { PlanAhead } from "./plan-ahead.ts";
import { headEntries } from "./transcript-head.ts";

export interface ReplaySession {
  session_id: string;
  file: string;
  /** What the session holds from its transcript after this run (turns, L2 rows, L3 rows, events). */
  turns: number;
  bodies: number;
  details: number;
  events: number;
  /** Of `turns`, those this run added; the rest were already in memory. */
  new_turns: number;
  /** The session was not in memory before this run. */
  new_session: boolean;
  skipped_lines: number;
  /** The lines this run skipped: how many, and the first (SKIPS_KEPT at most) by number with why. */
  skipped: SkippedLines;
  bytes: number;
}

/** A file replay or import made no session of: throughline's own, or no transcript entry in it. */
export interface SkippedFile {
  file: string;
  reason: string;
}

type Counted = "turns" | "bodies" | "details" | "events" | "new_turns" | "skipped_lines" | "bytes";

export interface ReplayReport {
  schema: "throughline.replay.v1";
  sessions: ReplaySession[];
  totals: Pick<ReplaySession, Counted> & { files: number; sessions: number; new_sessions: number };
  skipped_files: SkippedFile[];
  /** Transcripts planned on the second thread (src/capture/plan-ahead.ts); the rest were planned here. */
  planned_ahead: number;
  elapsed_ms: number;
}

/**
 * Files to replay. A named path must be a regular file or a directory: opening a FIFO (or a
 * terminal) would block forever. Inside a directory, anything else is passed over, and a
 * directory reached twice (a symlink loop) is walked once.
 */
function collect(path: string, out: string[], seen = new Set<string>()): void {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (err) {
    // Only a missing path is "not found"; a permission or I/O error says what it is.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new ThroughlineError("E_NOT_FOUND", `no such file or directory: ${path}`);
    throw new ThroughlineError(
      "E_READ",
      `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`,
      {
        cause: err,
      },
    );
  }
  if (st.isFile()) out.push(resolve(path));
  else if (st.isDirectory()) walk(path, out, seen);
  else throw new ThroughlineError("E_NOT_FILE", `not a regular file or directory: ${path}`);
}

function walk(dir: string, out: string[], seen: Set<string>): void {
  const real = realpathSync(dir);
  if (seen.has(real)) return;
  seen.add(real);
  for (const name of readdirSync(dir).sort()) {
    const child = join(dir, name);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(child);
    } catch {
      continue; // a dangling symlink
    }
    if (st.isDirectory()) walk(child, out, seen);
    else if (st.isFile() && name.endsWith(".jsonl")) out.push(resolve(child));
  }
}

/**
 * What a file is, from its first lines: throughline's own (an export, a session index: skipped,
 * with why), a subagent's own transcript (the first entry that carries a uuid tells), or a main one.
 */
function classify(path: string): { own: string | null; subagent: boolean } {
  const head = headEntries(path);
  const own = ownFileKind(head[0]);
  if (own !== null) return { own, subagent: false };
  if (path.includes("/subagents/") || /\.sub-agent-[^/]*\.jsonl$/.test(basename(path)))
    return { own, subagent: true };
  const e = head.find((x) => typeof x.uuid === "string");
  return { own, subagent: e !== undefined && e.isSidechain === true && typeof e.agentId === "string" };
}

export interface ReplayOptions {
  now?: () => number;
  /** Keep only the files this accepts (import's --project and --since). */
  filter?: (file: string) => boolean;
  /** Called after each file: how many are done out of how many. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Index the full text in one pass per chunk instead of row by row (docs/search.md, "During a
   * bulk ingest"); default true. False keeps the per-row triggers (the tests' reference).
   */
  deferIndex?: boolean;
  /** Files per chunk (default CHUNK_FILES; tests make chunks small). */
  chunkFiles?: number;
  /**
   * Plan the next transcripts on a second thread while this one writes (src/capture/plan-ahead.ts);
   * default: when there are two or more and PLAN_AHEAD_BYTES in all. The rows are the same either way.
   */
  planAhead?: boolean;
}

/** A pass made while waiting for a plan covers at least this much transcript (fewer, larger segments). */
const IDLE_PASS_BYTES = 4 << 20;

/** Below this much transcript, starting a worker thread costs more than it saves. */
export const PLAN_AHEAD_BYTES = 2 << 20;

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * A chunk ends after this many files or bytes of transcript: its rows become searchable then,
 * and an import killed mid-way loses no index work done before its chunk.
 */
export const CHUNK_FILES = 64;
export const CHUNK_BYTES = 64 << 20;

export function replay(db: Database, paths: string[], opts: ReplayOptions = {}): ReplayReport {
  const now = opts.now ?? Date.now;
  const t0 = performance.now();
  const all: string[] = [];
  for (const p of paths) collect(p, all);
  const files = opts.filter ? all.filter(opts.filter) : all;
  let done = 0;
  const tick = () => opts.onProgress?.(++done, files.length);
  const skippedFiles: SkippedFile[] = [];
  const subagents: string[] = [];
  const mains: string[] = [];
  for (const file of files) {
    const kind = classify(file);
    if (kind.own !== null) {
      skippedFiles.push({ file, reason: kind.own });
      tick();
    } else (kind.subagent ? subagents : mains).push(file);
  }
  const sessions: ReplaySession[] = [];
  let plannedAhead = 0;
  const owner: DeferralOwner | null =
    opts.deferIndex === false || files.length === 0 ? null : { pid: process.pid, startedAt: Date.now() };
  let chunkFiles = 0;
  let chunkBytes = 0;
  const fileDone = (bytes: number) => {
    chunkFiles++;
    chunkBytes += bytes;
    if (owner && (chunkFiles >= (opts.chunkFiles ?? CHUNK_FILES) || chunkBytes >= CHUNK_BYTES)) {
      indexDeferred(db, owner, Date.now());
      chunkFiles = 0;
      chunkBytes = 0;
    }
    tick();
  };
  // Waiting for the next plan, this thread indexes what it wrote so far instead of sleeping:
  // the passes then run beside the planning instead of after it.
  const indexWhileWaiting = (): boolean => {
    if (!owner || chunkBytes < IDLE_PASS_BYTES) return false;
    indexDeferred(db, owner, Date.now());
    chunkFiles = 0;
    chunkBytes = 0;
    return true;
  };
  const ingestAll = () => {
    // One clock reading per transcript, in file order, taken when it is handed to the planner
    // or, planned here, written: the same sequence either way.
    const runs: IngestOptions[] = [];
    const runOf = (i: number): IngestOptions => {
      runs[i] ??= { path: mains[i]!, now: now(), requireEntries: true };
      return runs[i]!;
    };
    if (mains.length > 0) runOf(0);
    const planner = plannerFor(runOf);
    try {
      for (let i = 0; i < mains.length; i++) {
        const run = runOf(i);
        const r = ingestTranscript(db, run, planner?.take(i, indexWhileWaiting) ?? undefined);
        const bytes = statSync(run.path).size;
        if (r.notTranscript !== null)
          skippedFiles.push({ file: run.path, reason: notTranscriptReason(r.notTranscript) });
        else sessions.push(sessionOf(db, r, bytes));
        fileDone(bytes);
      }
    } finally {
      plannedAhead = planner?.used ?? 0;
      planner?.close();
    }
    ingestSubagents();
  };
  /** A planner for the main transcripts when there is enough to plan ahead (or the caller says so). */
  const plannerFor = (optsOf: (i: number) => IngestOptions): PlanAhead | null => {
    if (opts.planAhead === false) return null;
    const sizes = mains.map(sizeOf);
    const wanted =
      opts.planAhead ?? (mains.length >= 2 && sizes.reduce((a, b) => a + b, 0) >= PLAN_AHEAD_BYTES);
    if (!wanted) return null;
    return PlanAhead.start({
      count: mains.length,
      optsOf,
      bytesOf: (i) => sizes[i]!,
      cursorOf: (path) => getCursor(db, path),
    });
  };
  const ingestSubagents = () => {
    for (const file of subagents) {
      const r = ingestSubagent(db, file, now());
      const bytes = statSync(file).size;
      sessions.push({
        session_id: r.sessionId,
        file,
        turns: 0,
        bodies: 0,
        details: 1,
        events: r.events,
        new_turns: 0,
        new_session: false,
        skipped_lines: r.skippedLines,
        skipped: r.skipped,
        bytes,
      });
      fileDone(bytes);
    }
  };
  if (owner === null) ingestAll();
  else {
    const since = beginDeferral(db, owner, Date.now());
    try {
      ingestAll();
    } catch (err) {
      // Also when a file failed: what was written is indexed, and this ingest no longer defers.
      // Its own error says more than one of this pass (the next writer completes it then).
      try {
        endDeferral(db, owner, Date.now());
      } catch {}
      throw err;
    }
    endDeferral(db, owner, Date.now(), since);
  }
  return {
    schema: "throughline.replay.v1",
    sessions,
    totals: totalsOf(sessions),
    skipped_files: skippedFiles,
    planned_ahead: plannedAhead,
    elapsed_ms: Math.round(performance.now() - t0),
  };
}

/** One main transcript's line of the report: what its session holds now, and what this run added. */
function sessionOf(db: Database, r: IngestResult, bytes: number): ReplaySession {
  const c = originCounts(db, r.sessionId);
  return {
    session_id: r.sessionId,
    file: r.file,
    turns: c.turns,
    bodies: c.turns * 2,
    details: c.details,
    events: c.events,
    new_turns: r.newTurns,
    new_session: r.newSession,
    skipped_lines: r.skippedLines,
    skipped: r.skipped,
    bytes,
  };
}

function totalsOf(sessions: readonly ReplaySession[]): ReplayReport["totals"] {
  const sum = (k: Counted) => sessions.reduce((a, s) => a + s[k], 0);
  return {
    files: sessions.length,
    sessions: new Set(sessions.map((s) => s.session_id)).size,
    new_sessions: new Set(sessions.filter((s) => s.new_session).map((s) => s.session_id)).size,
    turns: sum("turns"),
    bodies: sum("bodies"),
    details: sum("details"),
    events: sum("events"),
    new_turns: sum("new_turns"),
    skipped_lines: sum("skipped_lines"),
    bytes: sum("bytes"),
  };
}
