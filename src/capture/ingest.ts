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
import { extractEvents, redactEvent } from "../core/events.ts";
import { splitLines } from "../core/jsonl.ts";
import type { DetailDraft } from "../core/model.ts";
import { normalizeProject } from "../core/paths.ts";
import { redact, redactNullable } from "../core/redact.ts";
import {
  type CursorRow,
  deleteTurnsAfter,
  getCursor,
  replaceDetails,
  saveCursor,
  turnAt,
  upsertSubagentDetail,
  upsertTurn,
} from "../db/queries/capture.ts";
import { insertEvents } from "../db/queries/events.ts";
import { getSession, resolveLive, upsertSession } from "../db/queries/sessions.ts";
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
  try {
    return statSync(path);
  } catch {
    throw new ThroughlineError("E_NO_TRANSCRIPT", `transcript not found: ${path}`);
  }
}

function redactDetail(d: DetailDraft): DetailDraft {
  return { ...d, input: redactNullable(d.input), output: redactNullable(d.output) };
}

export function sessionIdFromPath(path: string): string {
  return basename(path).replace(/\.jsonl$/, "");
}

export function ingestTranscript(db: Database, opts: IngestOptions): IngestResult {
  const st = statOrThrow(opts.path);
  const identity = `${st.dev}:${st.ino}`;
  const size = st.size;
  const cursor = getCursor(db, opts.path);
  const resume = cursor !== null && cursor.identity === identity && size >= cursor.offset;
  const start = resume ? cursor.turn_offset : 0;
  const firstNumber = resume ? Math.max(1, cursor.turn_number) : 1;

  const empty: IngestResult = {
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
  if (resume && size === cursor.size) return empty;

  const bytes = readRange(opts.path, start, size);
  const { lines, consumedTo } = splitLines(bytes, start);
  if (resume && consumedTo <= cursor.offset) return empty; // only an unterminated tail is new
  const res = assemble(lines, { firstTurnNumber: firstNumber });

  const origin = opts.sessionId ?? res.sessionId ?? cursor?.session_id ?? sessionIdFromPath(opts.path);
  const project = opts.project ?? (res.cwd ? normalizeProject(res.cwd) : null);
  const live = resolveLive(db, origin).id;
  // Lines before the resume point were already counted as skipped in earlier runs.
  const skippedBefore = resume ? countSkippedBefore(cursor, lines) : 0;
  const skipped = skippedBefore + res.skippedLines;

  let details = 0;
  let events = 0;
  db.transaction(() => {
    upsertSession(db, {
      id: origin,
      project,
      transcriptPath: opts.path,
      createdAt: res.firstTimestamp ?? opts.now,
      updatedAt: Math.max(res.lastTimestamp ?? 0, opts.now),
      title: res.title ? redact(res.title) : null,
    });
    if (start === 0) {
      replaceDetails(
        db,
        { turnId: null, turnNumber: 0, sessionId: live, originSessionId: origin },
        res.preamble.map(redactDetail),
      );
      details += res.preamble.length;
      events += insertEvents(
        db,
        { sessionId: live, originSessionId: origin, project, turnNumber: null },
        res.preambleCalls.flatMap(extractEvents).map(redactEvent),
      );
    }
    for (const t of res.turns) {
      const turnId = upsertTurn(db, {
        sessionId: live,
        originSessionId: origin,
        number: t.number,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        user: redact(t.prompt),
        assistant: redact(t.assistant),
        finalText: redactNullable(t.finalText),
      });
      replaceDetails(
        db,
        { turnId, turnNumber: t.number, sessionId: live, originSessionId: origin },
        t.details.map(redactDetail),
      );
      details += t.details.length;
      events += insertEvents(
        db,
        { sessionId: live, originSessionId: origin, project, turnNumber: t.number },
        t.toolCalls.flatMap(extractEvents).map(redactEvent),
      );
    }
    const last = res.turns[res.turns.length - 1];
    if (start === 0) deleteTurnsAfter(db, origin, last?.number ?? 0);
    saveCursor(db, {
      transcript_path: opts.path,
      session_id: origin,
      offset: consumedTo,
      turn_offset: last?.startOffset ?? start,
      turn_number: last?.number ?? firstNumber,
      identity,
      size,
      skipped_lines: skipped,
      updated_at: opts.now,
    });
  })();

  let newestFinalText: string | null = null;
  for (let i = res.turns.length - 1; i >= 0 && newestFinalText === null; i--)
    newestFinalText = res.turns[i]!.finalText;

  return {
    sessionId: origin,
    file: opts.path,
    turns: res.turns.length,
    bodies: res.turns.length * 2,
    details,
    events,
    skippedLines: skipped,
    bytes: consumedTo - (resume ? cursor.offset : 0),
    newestFinalText,
  };
}

/**
 * Skipped lines inside the re-read open turn were already counted by the run that first read
 * them; only bad lines past the previous cursor are new. Cheap: the open turn is small.
 */
function countSkippedBefore(cursor: CursorRow, lines: readonly { end: number; text: string }[]): number {
  let again = 0;
  for (const l of lines) {
    if (l.end > cursor.offset) break;
    const t = l.text.trim();
    if (!t.startsWith("{")) again++;
    else
      try {
        JSON.parse(t);
      } catch {
        again++;
      }
  }
  return cursor.skipped_lines - again;
}

/** `<dir>/<session>.jsonl` → `<dir>/<session>/subagents/agent-*.jsonl` (Claude Code 2.1+ layout). */
export function subagentFiles(transcriptPath: string): string[] {
  const dir = join(dirname(transcriptPath), sessionIdFromPath(transcriptPath), "subagents");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith("agent-") && f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f));
}

/** A subagent transcript becomes one L3 row of the parent turn during which it ran. */
export function ingestSubagent(
  db: Database,
  path: string,
  now: number,
  parentSessionId?: string,
): IngestResult {
  const st = statOrThrow(path);
  const identity = `${st.dev}:${st.ino}`;
  const cursor = getCursor(db, path);
  const origin0 = parentSessionId ?? cursor?.session_id;
  const result: IngestResult = {
    sessionId: origin0 ?? sessionIdFromPath(path),
    file: path,
    turns: 0,
    bodies: 0,
    details: 0,
    events: 0,
    skippedLines: cursor?.skipped_lines ?? 0,
    bytes: 0,
    newestFinalText: null,
  };
  if (cursor && cursor.identity === identity && cursor.size === st.size) return result;
  const { lines, consumedTo } = splitLines(readRange(path, 0, st.size), 0);
  const sub = assembleSubagent(lines);
  const origin = parentSessionId ?? sub.sessionId ?? sessionIdFromPath(path);
  const agent = sub.agentId ?? basename(path).replace(/\.jsonl$/, "");
  let events = 0;
  db.transaction(() => {
    const turn = turnAt(db, origin, sub.firstTimestamp ?? now);
    const live = turn?.session_id ?? resolveLive(db, origin).id;
    upsertSubagentDetail(db, {
      turnId: turn?.id ?? null,
      sessionId: live,
      originSessionId: origin,
      key: `${origin}:agent:${agent}`,
      detail: redactDetail(sub.detail),
    });
    events = insertEvents(
      db,
      {
        sessionId: live,
        originSessionId: origin,
        project: getSession(db, origin)?.project ?? null,
        turnNumber: turn?.turn_number ?? null,
      },
      sub.toolCalls.flatMap(extractEvents).map(redactEvent),
    );
    saveCursor(db, {
      transcript_path: path,
      session_id: origin,
      offset: consumedTo,
      turn_offset: 0,
      turn_number: 0,
      identity,
      size: st.size,
      skipped_lines: sub.skippedLines,
      updated_at: now,
    });
  })();
  return {
    ...result,
    sessionId: origin,
    details: 1,
    events,
    skippedLines: sub.skippedLines,
    bytes: consumedTo,
  };
}
