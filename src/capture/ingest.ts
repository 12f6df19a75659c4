/**
 * Capture (SPEC §3): the I/O shell around the pure assembler. Reads a transcript from where
 * the last ingest stopped, re-reading only the open (last) turn, and writes turns, L2 and L3
 * in one short transaction. Every run is idempotent: a turn is upserted by its key and its L3
 * rows are replaced, so a crash at any point converges on the next run.
 */
import type { Database } from "bun:sqlite";
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { assemble, assembleSubagent } from "../core/assemble.ts";
import { type EventDraft, extractEvents, redactEvent } from "../core/events.ts";
import { splitLines } from "../core/jsonl.ts";
import type { DetailDraft, ToolCall } from "../core/model.ts";
import { redact, redactNullable } from "../core/redact.ts";
import { projectOf } from "../db/project.ts";
import {
  type CursorRow,
  deleteTurnsAfter,
  getCursor,
  replaceDetails,
  saveCursor,
  type TurnWrite,
  turnAt,
  upsertSubagentDetail,
  upsertTurn,
} from "../db/queries/capture.ts";
import { insertEvents } from "../db/queries/events.ts";
import { getSession, resolveLive, type SessionUpsert, upsertSession } from "../db/queries/sessions.ts";
import { ThroughlineError } from "../errors.ts";

export interface IngestOptions {
  path: string;
  /** Session id from the hook payload; else the entries' `sessionId`, else the file name. */
  sessionId?: string;
  /** Project from the hook payload's `cwd`; else the entries' `cwd`. */
  project?: string;
  now: number;
}

export interface IngestResult {
  sessionId: string;
  file: string;
  /** Turns written (new or updated) by this run. */
  turns: number;
  bodies: number;
  details: number;
  events: number;
  skippedLines: number;
  bytes: number;
  /** Raw (unredacted) final assistant text of the newest turn that has one, if this run read it. */
  newestFinalText: string | null;
}

function readRange(path: string, start: number, end: number): Uint8Array {
  const len = end - start;
  const buf = new Uint8Array(len);
  if (len === 0) return buf;
  const fd = openSync(path, "r");
  try {
    let off = 0;
    while (off < len) {
      const n = readSync(fd, buf, off, len - off, start + off);
      if (n <= 0) break;
      off += n;
    }
    return off === len ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

function statOrThrow(path: string) {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new ThroughlineError("E_NO_TRANSCRIPT", `transcript not found: ${path}`);
  }
  // A FIFO or device would block the read or never end; a directory cannot be read as lines.
  if (!st.isFile()) throw new ThroughlineError("E_NOT_FILE", `transcript is not a regular file: ${path}`);
  return st;
}

function redactDetail(d: DetailDraft): DetailDraft {
  return { ...d, input: redactNullable(d.input), output: redactNullable(d.output) };
}

export function sessionIdFromPath(path: string): string {
  return basename(path).replace(/\.jsonl$/, "");
}

/** What a run decides from: the file's identity and size, and the cursor of earlier runs. */
interface Observed {
  identity: string;
  size: number;
  cursor: CursorRow | null;
}

function observe(db: Database, path: string): Observed {
  const st = statOrThrow(path);
  return { identity: `${st.dev}:${st.ino}`, size: st.size, cursor: getCursor(db, path) };
}

function sameObserved(a: Observed, b: Observed): boolean {
  if (a.identity !== b.identity || a.size !== b.size) return false;
  if (a.cursor === null || b.cursor === null) return a.cursor === b.cursor;
  const x = a.cursor;
  const y = b.cursor;
  return (
    x.offset === y.offset &&
    x.turn_offset === y.turn_offset &&
    x.turn_number === y.turn_number &&
    x.identity === y.identity &&
    x.size === y.size &&
    x.skipped_lines === y.skipped_lines &&
    x.session_id === y.session_id
  );
}

/**
 * Events of one call; a call whose shape makes extraction throw loses its events, never the
 * turn it belongs to.
 */
function eventsOf(calls: readonly ToolCall[]): EventDraft[] {
  return calls.flatMap((c) => {
    try {
      return extractEvents(c).map(redactEvent);
    } catch {
      return [];
    }
  });
}

interface TurnWritePlan {
  turn: TurnWrite;
  startOffset: number;
  details: DetailDraft[];
  events: EventDraft[];
}

/** Everything one run will write, computed (read, assembled, redacted) before taking the lock. */
interface TranscriptPlan {
  observed: Observed;
  start: number;
  firstNumber: number;
  consumedTo: number;
  resumedFrom: number;
  origin: string;
  project: string | null;
  session: SessionUpsert;
  preamble: { details: DetailDraft[]; events: EventDraft[] } | null;
  turns: TurnWritePlan[];
  skipped: number;
  newestFinalText: string | null;
}

function planTranscript(opts: IngestOptions, observed: Observed): TranscriptPlan | null {
  const { cursor, identity, size } = observed;
  const resume = cursor !== null && cursor.identity === identity && size >= cursor.offset;
  if (resume && size === cursor.size) return null;
  const start = resume ? cursor.turn_offset : 0;
  const firstNumber = resume ? Math.max(1, cursor.turn_number) : 1;

  const { lines, consumedTo } = splitLines(readRange(opts.path, start, size), start);
  if (resume && consumedTo <= cursor.offset) return null; // only an unterminated tail is new
  const res = assemble(lines, { firstTurnNumber: firstNumber });

  const origin = opts.sessionId ?? res.sessionId ?? cursor?.session_id ?? sessionIdFromPath(opts.path);
  // Same identity as the hooks give (docs/project-identity.md): replay and import agree with them.
  const project = opts.project ?? (res.cwd ? projectOf(res.cwd) : null);
  // Lines of the re-read open turn were already counted as skipped by the run that first read them.
  const skipped = resume
    ? cursor.skipped_lines + res.skippedEnds.filter((end) => end > cursor.offset).length
    : res.skippedLines;

  let newestFinalText: string | null = null;
  for (let i = res.turns.length - 1; i >= 0 && newestFinalText === null; i--)
    newestFinalText = res.turns[i]!.finalText;

  return {
    observed,
    start,
    firstNumber,
    consumedTo,
    resumedFrom: resume ? cursor.offset : 0,
    origin,
    project,
    session: {
      id: origin,
      project,
      transcriptPath: opts.path,
      createdAt: res.firstTimestamp ?? opts.now,
      updatedAt: Math.max(res.lastTimestamp ?? 0, opts.now),
      title: res.title ? redact(res.title) : null,
    },
    preamble:
      start === 0 ? { details: res.preamble.map(redactDetail), events: eventsOf(res.preambleCalls) } : null,
    turns: res.turns.map((t) => ({
      turn: {
        sessionId: "", // the live end of the chain, resolved under the write lock
        originSessionId: origin,
        number: t.number,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        user: redact(t.prompt),
        assistant: redact(t.assistant),
        finalText: redactNullable(t.finalText),
      },
      startOffset: t.startOffset,
      details: t.details.map(redactDetail),
      events: eventsOf(t.toolCalls),
    })),
    skipped,
    newestFinalText,
  };
}

function writeTranscript(db: Database, opts: IngestOptions, p: TranscriptPlan): IngestResult {
  const { origin, project } = p;
  // Inside the lock: a handoff may have merged this chain since the plan was made.
  const live = resolveLive(db, origin).id;
  let details = 0;
  let events = 0;
  upsertSession(db, p.session);
  if (p.preamble) {
    replaceDetails(
      db,
      { turnId: null, turnNumber: 0, sessionId: live, originSessionId: origin },
      p.preamble.details,
    );
    details += p.preamble.details.length;
    events += insertEvents(
      db,
      { sessionId: live, originSessionId: origin, project, turnNumber: null },
      p.preamble.events,
    );
  }
  for (const t of p.turns) {
    const turnId = upsertTurn(db, { ...t.turn, sessionId: live });
    replaceDetails(
      db,
      { turnId, turnNumber: t.turn.number, sessionId: live, originSessionId: origin },
      t.details,
    );
    details += t.details.length;
    events += insertEvents(
      db,
      { sessionId: live, originSessionId: origin, project, turnNumber: t.turn.number },
      t.events,
    );
  }
  const last = p.turns[p.turns.length - 1];
  if (p.start === 0) deleteTurnsAfter(db, origin, last?.turn.number ?? 0);
  saveCursor(db, {
    transcript_path: opts.path,
    session_id: origin,
    offset: p.consumedTo,
    turn_offset: last?.startOffset ?? p.start,
    turn_number: last?.turn.number ?? p.firstNumber,
    identity: p.observed.identity,
    size: p.observed.size,
    skipped_lines: p.skipped,
    updated_at: opts.now,
  });
  return {
    sessionId: origin,
    file: opts.path,
    turns: p.turns.length,
    bodies: p.turns.length * 2,
    details,
    events,
    skippedLines: p.skipped,
    bytes: p.consumedTo - p.resumedFrom,
    newestFinalText: p.newestFinalText,
  };
}

function unchanged(opts: IngestOptions, cursor: CursorRow | null): IngestResult {
  return {
    sessionId: opts.sessionId ?? cursor?.session_id ?? sessionIdFromPath(opts.path),
    file: opts.path,
    turns: 0,
    bodies: 0,
    details: 0,
    events: 0,
    skippedLines: cursor?.skipped_lines ?? 0,
    bytes: 0,
    newestFinalText: null,
  };
}

export function ingestTranscript(db: Database, opts: IngestOptions): IngestResult {
  const first = observe(db, opts.path);
  const plan = planTranscript(opts, first);
  if (plan === null) return unchanged(opts, first.cursor);
  // IMMEDIATE: the cursor and chain read inside decide the writes. A deferred transaction
  // would take its snapshot on the first read and then fail at once with SQLITE_BUSY when it
  // upgrades to write behind a parallel writer, instead of waiting for busy_timeout.
  return db
    .transaction(() => {
      // Another writer (a parallel Stop, SubagentStop) may have moved the cursor, or the file
      // grown, since the plan was made: plan again from what holds now, under the lock.
      const now = observe(db, opts.path);
      const p = sameObserved(first, now) ? plan : planTranscript(opts, now);
      return p === null ? unchanged(opts, now.cursor) : writeTranscript(db, opts, p);
    })
    .immediate();
}

/** `<dir>/<session>.jsonl` → `<dir>/<session>/subagents/agent-*.jsonl` (Claude Code 2.1+ layout). */
export function subagentFiles(transcriptPath: string): string[] {
  const dir = join(dirname(transcriptPath), sessionIdFromPath(transcriptPath), "subagents");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith("agent-") && f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f))
    .filter(isRegularFile);
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

interface SubagentPlan {
  observed: Observed;
  origin: string;
  agent: string;
  firstTimestamp: number | undefined;
  detail: DetailDraft;
  events: EventDraft[];
  consumedTo: number;
  skipped: number;
}

function planSubagent(path: string, observed: Observed, parentSessionId: string | undefined): SubagentPlan {
  const { lines, consumedTo } = splitLines(readRange(path, 0, observed.size), 0);
  const sub = assembleSubagent(lines);
  return {
    observed,
    origin: parentSessionId ?? sub.sessionId ?? sessionIdFromPath(path),
    agent: sub.agentId ?? basename(path).replace(/\.jsonl$/, ""),
    firstTimestamp: sub.firstTimestamp,
    detail: redactDetail(sub.detail),
    events: eventsOf(sub.toolCalls),
    consumedTo,
    skipped: sub.skippedLines,
  };
}

function subagentDone(o: Observed): boolean {
  return o.cursor !== null && o.cursor.identity === o.identity && o.cursor.size === o.size;
}

/** A subagent transcript becomes one L3 row of the parent turn during which it ran. */
export function ingestSubagent(
  db: Database,
  path: string,
  now: number,
  parentSessionId?: string,
): IngestResult {
  const first = observe(db, path);
  const result = (o: Observed): IngestResult => ({
    sessionId: parentSessionId ?? o.cursor?.session_id ?? sessionIdFromPath(path),
    file: path,
    turns: 0,
    bodies: 0,
    details: 0,
    events: 0,
    skippedLines: o.cursor?.skipped_lines ?? 0,
    bytes: 0,
    newestFinalText: null,
  });
  if (subagentDone(first)) return result(first);
  const plan = planSubagent(path, first, parentSessionId);
  // IMMEDIATE for the same reason as ingestTranscript: the turn lookup decides the write.
  return db
    .transaction((): IngestResult => {
      const again = observe(db, path);
      if (subagentDone(again)) return result(again); // a parallel hook stored this very file
      const p = sameObserved(first, again) ? plan : planSubagent(path, again, parentSessionId);
      const turn = turnAt(db, p.origin, p.firstTimestamp ?? now);
      const live = turn?.session_id ?? resolveLive(db, p.origin).id;
      upsertSubagentDetail(db, {
        turnId: turn?.id ?? null,
        sessionId: live,
        originSessionId: p.origin,
        key: `${p.origin}:agent:${p.agent}`,
        detail: p.detail,
      });
      const events = insertEvents(
        db,
        {
          sessionId: live,
          originSessionId: p.origin,
          project: getSession(db, p.origin)?.project ?? null,
          turnNumber: turn?.turn_number ?? null,
        },
        p.events,
      );
      saveCursor(db, {
        transcript_path: path,
        session_id: p.origin,
        offset: p.consumedTo,
        turn_offset: 0,
        turn_number: 0,
        identity: p.observed.identity,
        size: p.observed.size,
        skipped_lines: p.skipped,
        updated_at: now,
      });
      return {
        ...result(again),
        sessionId: p.origin,
        details: 1,
        events,
        skippedLines: p.skipped,
        bytes: p.consumedTo,
      };
    })
    .immediate();
}
