import { fstatSync } from "node:fs";
import { type Assembled, assemble } from "../core/assemble.ts";
import { type EventDraft, extractEvents, redactEvent } from "../core/events.ts";
import { type RawLine, splitLines } from "../core/jsonl.ts";
import type { DetailDraft, ToolCall, TurnDraft } from "../core/model.ts";
import { redact, redactNullable, withHintBatch } from "../core/redact.ts";
import type { NotTranscript, SkippedLines } from "../core/transcript-file.ts";
import { projectOf } from "../db/project.ts";
import type { CursorRow, TurnWrite } from "../db/queries/capture.ts";
import type { SessionUpsert } from "../db/queries/sessions.ts";
import {
  codexRollout,
  fingerprintAfterRead,
  type Observed,
  observeWith,
  readRange,
  sessionIdFromPath,
  withFile,
} from "./transcript-read.ts";

export interface IngestOptions {
  path: string;
  /** Session id from the hook payload; else the entries' `sessionId`, else the file name. */
  sessionId?: string;
  /**
   * The session's project as the caller knows it (a hook: the session row's, else its payload's
   * `cwd`). The transcript's first `cwd` wins when it is read from byte 0, and a project the
   * session row holds is never moved otherwise (docs/project-identity.md).
   */
  project?: string;
  now: number;
  /**
   * replay and import: a file with no transcript entry (`isTranscriptEntry`) read from its start
   * is no session; nothing is written and the result says why (`notTranscript`). The lines this
   * run skipped are reported by number.
   */
  requireEntries?: boolean;
}

export function redactDetail(d: DetailDraft): DetailDraft {
  return { ...d, input: redactNullable(d.input), output: redactNullable(d.output) };
}

/**
 * A turn's reply and rows, redacted, each row's `textAt` still pointing where it happened in the
 * stored reply. A redaction that changes the reply's length is rare: only then is the reply
 * redacted piece by piece between those points (they fall between text blocks, which no secret
 * spans) and the points moved by what each piece gained or lost.
 */
function redactReply(
  text: string,
  details: readonly DetailDraft[],
): { text: string; details: DetailDraft[] } {
  const out = redact(text);
  const redacted = details.map(redactDetail);
  if (out.length === text.length || !details.some((d) => d.textAt !== undefined))
    return { text: out, details: redacted };
  const points = [...new Set(details.map((d) => d.textAt ?? 0))].sort((a, b) => a - b);
  const moved = new Map<number, number>();
  let stored = "";
  let from = 0;
  for (const at of [...points, text.length]) {
    stored += redact(text.slice(from, at));
    moved.set(at, stored.length);
    from = at;
  }
  return {
    text: stored,
    details: redacted.map((d) => (d.textAt === undefined ? d : { ...d, textAt: moved.get(d.textAt) ?? 0 })),
  };
}

/**
 * Events of one call; a call whose shape makes extraction throw loses its events, never the
 * turn it belongs to.
 */
export function eventsOf(calls: readonly ToolCall[]): EventDraft[] {
  return calls.flatMap((c) => {
    try {
      return extractEvents(c).map(redactEvent);
    } catch {
      return [];
    }
  });
}

/**
 * A run's plan made ahead, without the database: the file observed against `cursor` (what the
 * database held when the caller read it) and what would be written. `ingestTranscript` takes it
 * only if the same observation holds under its lock, so a plan made from a stale cursor is
 * made again there (src/capture/plan-ahead.ts).
 */
export interface PlannedRun {
  observed: Observed;
  plan: TranscriptPlan | null;
}

export function planAhead(opts: IngestOptions, cursor: CursorRow | null): PlannedRun {
  const observed = observeWith(opts.path, cursor);
  return { observed, plan: planTranscript(opts, observed) };
}

export interface TurnWritePlan {
  turn: TurnWrite;
  startOffset: number;
  details: DetailDraft[];
  events: EventDraft[];
}

/** One turn's rows as they will be written: redacted, each row still in its place in the reply. */
function turnPlan(t: TurnDraft, origin: string): TurnWritePlan {
  const reply = redactReply(t.assistant, t.details);
  return {
    turn: {
      sessionId: "", // the key of the chain, resolved under the write lock
      originSessionId: origin,
      number: t.number,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      user: redact(t.prompt),
      assistant: reply.text,
      finalText: redactNullable(t.finalText),
      uuid: t.uuid,
    },
    startOffset: t.startOffset,
    details: reply.details,
    events: eventsOf(t.toolCalls),
  };
}

/** Everything one run will write, computed (read, assembled, redacted) before taking the lock. */
export interface TranscriptPlan {
  observed: Observed;
  /** Fingerprint of the bytes up to `consumedTo`, saved with the cursor. */
  identity: string;
  start: number;
  firstNumber: number;
  consumedTo: number;
  resumedFrom: number;
  origin: string;
  /** The identity of the transcript's first `cwd` when this run reads it from byte 0: fixes the project. */
  startProject: string | null;
  /** Otherwise: the session row's project if it has one, else this. */
  project: string | null;
  session: SessionUpsert;
  preamble: { details: DetailDraft[]; events: EventDraft[] } | null;
  turns: TurnWritePlan[];
  skipped: number;
  /** The lines this run skipped (not those an earlier run counted), the first by number with why. */
  skippedNow: SkippedLines;
  /** Read from byte 0 and no line is a transcript entry: what the file holds instead. */
  notTranscript: NotTranscript | null;
  newestFinalText: string | null;
  /** A Codex fork read from its start: the parent's prompt uuid it was forked after (codex-fork.ts). */
  forkUuid: string | null;
}

/** The first line number of each of `offsets` (ascending, within `buf`, which starts at byte `start`). */
function lineNumbers(path: string, buf: Uint8Array, start: number, offsets: readonly number[]): number[] {
  if (offsets.length === 0) return [];
  let line = 1;
  // A re-read from inside the file: the lines before it are counted once.
  if (start > 0)
    withFile(path, (fd) => {
      for (let at = 0; at < start; at += 1 << 20) {
        const block = readRange(fd, at, Math.min(start, at + (1 << 20)));
        for (let nl = block.indexOf(0x0a); nl >= 0; nl = block.indexOf(0x0a, nl + 1)) line++;
      }
    });
  let pos = 0;
  return offsets.map((off) => {
    for (let nl = buf.indexOf(0x0a, pos); nl >= 0 && nl < off - start; nl = buf.indexOf(0x0a, pos)) {
      line++;
      pos = nl + 1;
    }
    return line;
  });
}

/**
 * What replay and import (`requireEntries`) say about the lines: the new skips by number, and
 * whether the file is no transcript. Every caller gets the count of the lines skipped.
 */
function lineNotes(
  opts: IngestOptions,
  read: { buf: Uint8Array; start: number; lines: readonly RawLine[]; after: number },
  res: Assembled,
): { skippedNow: SkippedLines; notTranscript: NotTranscript | null } {
  const lines = res.skippedEnds.filter((end) => end > read.after).length;
  // A hook reports no line: it is spared finding their numbers.
  if (!opts.requireEntries) return { skippedNow: { lines, first: [] }, notTranscript: null };
  const path = opts.path;
  const skips = res.skippedAt.filter((k) => k.end > read.after);
  const line1 = read.lines[0];
  const noEntries = read.start === 0 && res.transcriptEntries === 0;
  const firstObject = noEntries && line1 !== undefined && skips[0]?.start !== line1.start ? line1 : undefined;
  const numbers = lineNumbers(path, read.buf, read.start, [
    ...(firstObject ? [firstObject.start] : []),
    ...skips.map((k) => k.start),
  ]);
  const first = skips.map((k, i) => ({ line: numbers[i + (firstObject ? 1 : 0)]!, reason: k.reason }));
  const skippedNow = { lines, first };
  if (!noEntries) return { skippedNow, notTranscript: null };
  const firstLine = firstObject ? { line: numbers[0]!, reason: null } : (first[0] ?? null);
  return {
    skippedNow,
    notTranscript: { bytes: read.buf.length, lines: read.lines.length, first: firstLine },
  };
}

/**
 * Bytes `start`..`size` split into lines, and the fingerprint of what they consume. It is taken
 * through the same descriptor as the bytes: a file replaced in between cannot give the cursor
 * another file's fingerprint.
 */
export function readLines(path: string, start: number, size: number, cursor: CursorRow | null) {
  return withFile(path, (fd) => {
    const buf = readRange(fd, start, size);
    const split = splitLines(buf, start);
    const st = fstatSync(fd);
    return { buf, ...split, identity: fingerprintAfterRead(fd, st, buf, start, split.consumedTo, cursor) };
  });
}

/** A Codex fork's link (codex-fork.ts), loaded only for a rollout read from its start. */
function forkPointOf(path: string, firstLine: string): string | null {
  const m = require("./codex-fork.ts") as typeof import("./codex-fork.ts");
  return m.codexForkPoint(path, firstLine);
}

export function planTranscript(opts: IngestOptions, observed: Observed): TranscriptPlan | null {
  const { cursor, size } = observed;
  const resume = cursor !== null && observed.valid;
  if (resume && size === cursor.size) return null;
  const start = resume ? cursor.turn_offset : 0;
  const firstNumber = resume ? Math.max(1, cursor.turn_number) : 1;

  const { buf, lines, consumedTo, identity } = readLines(opts.path, start, size, cursor);
  if (resume && consumedTo <= cursor.offset) return null; // only an unterminated tail is new
  // A Codex rollout is read as the transcript entries it translates to (src/core/codex-rollout.ts).
  const codex = codexRollout(opts.path);
  const res = assemble(codex ? codex.rolloutLines(lines) : lines, { firstTurnNumber: firstNumber });
  const notes = lineNotes(opts, { buf, start, lines, after: resume ? cursor.offset : -1 }, res);

  const origin = opts.sessionId ?? res.sessionId ?? cursor?.session_id ?? sessionIdFromPath(opts.path);
  // A session's project is where it started: the first cwd of its transcript, resolved to the
  // identity the hooks use (docs/project-identity.md), so replay, import and hooks agree. A
  // later `cd` (the entries' cwd, the hook payload's) does not move it.
  const startProject = start === 0 && res.firstCwd ? projectOf(res.firstCwd) : null;
  const project = startProject ?? opts.project ?? (res.firstCwd ? projectOf(res.firstCwd) : null);
  // Lines of the re-read open turn were already counted as skipped by the run that first read them.
  const skipped = (resume ? cursor.skipped_lines : 0) + notes.skippedNow.lines;

  let newestFinalText: string | null = null;
  for (let i = res.turns.length - 1; i >= 0 && newestFinalText === null; i--)
    newestFinalText = res.turns[i]!.finalText;

  // The redactor looks for its hints once over everything this run stores (core/redact.ts).
  const texts: (string | null | undefined)[] = [res.title];
  for (const d of start === 0 ? res.preamble : []) texts.push(d.input, d.output);
  for (const t of res.turns) {
    texts.push(t.prompt, t.assistant, t.finalText);
    for (const d of t.details) texts.push(d.input, d.output);
  }
  return withHintBatch(texts, () => ({
    observed,
    identity,
    start,
    firstNumber,
    consumedTo,
    resumedFrom: resume ? cursor.offset : 0,
    origin,
    startProject,
    project,
    session: {
      id: origin,
      project,
      transcriptPath: opts.path,
      createdAt: res.firstTimestamp ?? opts.now,
      updatedAt: Math.max(res.lastTimestamp ?? 0, opts.now),
      title: res.title ? redact(res.title) : null,
      host: codex ? "codex" : "claude",
    },
    preamble:
      start === 0 ? { details: res.preamble.map(redactDetail), events: eventsOf(res.preambleCalls) } : null,
    turns: res.turns.map((t) => turnPlan(t, origin)),
    skipped,
    ...notes,
    newestFinalText,
    forkUuid: codex && start === 0 && lines[0] ? forkPointOf(opts.path, lines[0].text) : null,
  }));
}
