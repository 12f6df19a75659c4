/**
 * Capture (docs/contract.md#capture): the I/O shell around the pure assembler. Reads a transcript from where
 * the last ingest stopped, re-reading only the open (last) turn, and writes turns, L2 and L3
 * in one short transaction. Every run is idempotent: a turn is upserted by its key and its L3
 * rows are replaced, so a crash at any point converges on the next run.
 */
import type { Database } from "bun:sqlite";
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Assembled, assemble } from "../core/assemble.ts";
import { type EventDraft, extractEvents, redactEvent } from "../core/events.ts";
import { type RawLine, splitLines } from "../core/jsonl.ts";
import type { DetailDraft, ToolCall, TurnDraft } from "../core/model.ts";
import { redact, redactNullable, withHintBatch } from "../core/redact.ts";
import { assembleSubagent } from "../core/subagent.ts";
import type { NotTranscript, SkippedLines } from "../core/transcript-file.ts";
import { projectOf } from "../db/project.ts";
import {
  type CursorRow,
  deleteTurnsAfter,
  getCursor,
  ownTurnCount,
  replaceDetails,
  saveCursor,
  type TurnWrite,
  turnAt,
  upsertSubagentDetail,
  upsertTurn,
} from "../db/queries/capture.ts";
import { eventKeys, insertEvents } from "../db/queries/events.ts";
import {
  bornBefore,
  dropCopiedTurns,
  dropSharedEvents,
  setForkPoint,
  type UuidHolder,
  uuidHolders,
} from "../db/queries/forks.ts";
import {
  chainKey,
  getSession,
  type SessionUpsert,
  setSessionProject,
  upsertSession,
} from "../db/queries/sessions.ts";
import { writeTransaction } from "../db/tx.ts";
import { ThroughlineError } from "../errors.ts";

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
  /** Turns the session did not hold before this run. */
  newTurns: number;
  /** The session was not in the database before this run. */
  newSession: boolean;
  /** The lines this run skipped: how many, and the first by number with why. */
  skipped: SkippedLines;
  /** Set when `requireEntries` found no transcript entry (nothing was written): what the file holds. */
  notTranscript: NotTranscript | null;
}

function readAt(fd: number, buf: Uint8Array, start: number): number {
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, start + off);
    if (n <= 0) break;
    off += n;
  }
  return off;
}

function readRange(fd: number, start: number, end: number): Uint8Array {
  const buf = new Uint8Array(Math.max(0, end - start));
  const n = readAt(fd, buf, start);
  return n === buf.length ? buf : buf.subarray(0, n);
}

function withFile<T>(path: string, fn: (fd: number) => T): T {
  const fd = openSync(path, "r");
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

/** Bytes just before the cursor that every run compares (see `cursorStillValid`). */
const PROBE = 4096;

/**
 * Saved in the cursor's `identity`: `c2:<dev>:<ino>:<crc32 of bytes 0..offset>:<crc32 of the
 * PROBE bytes before offset>`. Older cursors hold `<dev>:<ino>` only.
 */
interface Fingerprint {
  file: string;
  crc: number;
  probe: number;
}

function formatFingerprint(f: Fingerprint): string {
  return `c2:${f.file}:${f.crc}:${f.probe}`;
}

function parseFingerprint(identity: string | null): Fingerprint | null {
  const m = identity ? /^c2:(\d+:\d+):(\d+):(\d+)$/.exec(identity) : null;
  return m ? { file: m[1]!, crc: Number(m[2]), probe: Number(m[3]) } : null;
}

function probeCrc(fd: number, end: number): number {
  return Bun.hash.crc32(readRange(fd, Math.max(0, end - PROBE), end));
}

/** CRC-32 of bytes 0..end, read in 1 MiB blocks. */
function prefixCrc(fd: number, end: number): number {
  let crc = 0;
  for (let at = 0; at < end; at += 1 << 20)
    crc = Bun.hash.crc32(readRange(fd, at, Math.min(end, at + (1 << 20))), crc);
  return crc;
}

/**
 * Whether the bytes before the cursor are still the ones it was saved for. The same file
 * (device and inode: Claude Code only appends) is checked on the bytes just before the cursor,
 * a few microseconds. Another file at the path (a restore, a sync tool, an editor that writes a
 * new file) is checked on all of them, once: a byte-identical copy keeps its cursor instead of
 * being read again from byte 0, and a copy whose earlier bytes differ is read again
 * (docs/benchmarks.md, "Where a Stop resumes").
 */
function cursorStillValid(
  path: string,
  cursor: CursorRow | null,
  st: { dev: number; ino: number; size: number },
): boolean {
  if (cursor === null || st.size < cursor.offset) return false;
  const file = `${st.dev}:${st.ino}`;
  const f = parseFingerprint(cursor.identity);
  if (f === null) return cursor.identity === file;
  try {
    return withFile(path, (fd) => {
      if (probeCrc(fd, cursor.offset) !== f.probe) return false;
      return f.file === file || prefixCrc(fd, cursor.offset) === f.crc;
    });
  } catch {
    return false;
  }
}

/**
 * The fingerprint of bytes 0..`end` of the file open as `fd`, of which `buf` holds `from`..:
 * the CRC continues the cursor's own when it covers the bytes before `buf`.
 */
function fingerprintAfterRead(
  fd: number,
  st: { dev: number; ino: number },
  buf: Uint8Array,
  from: number,
  end: number,
  cursor: CursorRow | null,
): string {
  const prior = from === 0 ? null : parseFingerprint(cursor?.identity ?? null);
  const crc =
    from === 0
      ? Bun.hash.crc32(buf.subarray(0, end))
      : prior !== null && cursor !== null && cursor.offset >= from && cursor.offset <= end
        ? Bun.hash.crc32(buf.subarray(cursor.offset - from, end - from), prior.crc)
        : prefixCrc(fd, end); // a cursor saved before fingerprints: computed once
  return formatFingerprint({ file: `${st.dev}:${st.ino}`, crc, probe: probeCrc(fd, end) });
}

function statOrThrow(path: string) {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (err) {
    // Only a missing file is "not found"; a permission or I/O error says what it is.
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new ThroughlineError("E_NO_TRANSCRIPT", `transcript not found: ${path}`);
    throw new ThroughlineError("E_READ", `cannot read transcript ${path}: ${(err as Error).message}`);
  }
  // A FIFO or device would block the read or never end; a directory cannot be read as lines.
  if (!st.isFile()) throw new ThroughlineError("E_NOT_FILE", `transcript is not a regular file: ${path}`);
  return st;
}

function redactDetail(d: DetailDraft): DetailDraft {
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

/** Codex's rollouts (docs/hosts.md): their reader loads only for them, off Claude Code's hooks' graph. */
function codexRollout(path: string): typeof import("../core/codex-rollout.ts") | null {
  if (!basename(path).startsWith("rollout-")) return null;
  const m = require("../core/codex-rollout.ts") as typeof import("../core/codex-rollout.ts");
  return m.isRolloutPath(path) ? m : null;
}

export function sessionIdFromPath(path: string): string {
  return codexRollout(path)?.rolloutSessionId(path) ?? basename(path).replace(/\.jsonl$/, "");
}

/** What a run decides from: the file's size, the cursor of earlier runs and whether it still holds. */
interface Observed {
  /** The file as stat saw it: tells a parallel writer's change apart under the lock. */
  stat: string;
  size: number;
  cursor: CursorRow | null;
  /** The bytes before the cursor are the ones it was saved for (see `fingerprint`). */
  valid: boolean;
}

function observe(db: Database, path: string): Observed {
  return observeWith(path, getCursor(db, path));
}

/** The file as it is now, against a cursor read from the database earlier (or by another thread's caller). */
function observeWith(path: string, cursor: CursorRow | null): Observed {
  const st = statOrThrow(path);
  return {
    stat: `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`,
    size: st.size,
    cursor,
    valid: cursorStillValid(path, cursor, st),
  };
}

function sameObserved(a: Observed, b: Observed): boolean {
  if (a.stat !== b.stat || a.size !== b.size || a.valid !== b.valid) return false;
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

interface TurnWritePlan {
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
interface TranscriptPlan {
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
function readLines(path: string, start: number, size: number, cursor: CursorRow | null) {
  return withFile(path, (fd) => {
    const buf = readRange(fd, start, size);
    const split = splitLines(buf, start);
    const st = fstatSync(fd);
    return { buf, ...split, identity: fingerprintAfterRead(fd, st, buf, start, split.consumedTo, cursor) };
  });
}

function planTranscript(opts: IngestOptions, observed: Observed): TranscriptPlan | null {
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
  }));
}

/**
 * A fork's file repeats its parent's entries with their uuids (docs/contract.md#forks). Of two
 * sessions holding a turn with the same prompt uuid, the one born first keeps it: this run's
 * turns that an older session holds are copies (returned, not to be stored; the session's fork
 * point moves to the newest of them), and turns a younger session holds were that session's
 * copies, read before their original (they are removed and that session becomes the fork).
 * Either order of reading the two files leaves the same rows.
 */
function settleCopies(db: Database, origin: string, turns: readonly TurnWritePlan[]): Set<string> {
  const copied = new Set<string>();
  const holders = uuidHolders(
    db,
    origin,
    turns.flatMap(({ turn: t }) =>
      t.uuid === null ? [] : [{ uuid: t.uuid, startedAt: t.startedAt, user: t.user, assistant: t.assistant }],
    ),
  );
  if (holders.length === 0) return copied;
  const self = { id: origin, born: getSession(db, origin)?.created_at ?? Number.POSITIVE_INFINITY };
  let forkPoint: UuidHolder | null = null;
  const younger = new Map<string, UuidHolder[]>();
  for (const h of holders) {
    const older = bornBefore({ id: h.origin_session_id, born: h.born }, self);
    if (!h.same) {
      // A fork made inside this turn: both keep their turn, and the tool calls recorded before
      // the fork are the older session's events (an older holder's stay: ours are not inserted).
      const mine = turns.find((t) => t.turn.uuid === h.uuid);
      if (!older && mine)
        dropSharedEvents(db, h.origin_session_id, h.turn_number, eventKeys(origin, mine.events));
    } else if (older) {
      copied.add(h.uuid);
      if (forkPoint === null || h.started_at >= forkPoint.started_at) forkPoint = h;
    } else younger.set(h.origin_session_id, [...(younger.get(h.origin_session_id) ?? []), h]);
  }
  // This session's own rows for turns now known to be copies (a file re-read from the start).
  const mine = turns.filter((t) => t.turn.uuid !== null && copied.has(t.turn.uuid)).map((t) => t.turn.number);
  dropCopiedTurns(db, origin, mine);
  for (const [other, held] of younger) {
    dropCopiedTurns(
      db,
      other,
      held.map((h) => h.turn_number),
    );
    const newest = held.reduce((a, b) => (b.started_at >= a.started_at ? b : a));
    setForkPoint(db, other, newest.uuid, newest.started_at);
  }
  if (forkPoint) setForkPoint(db, origin, forkPoint.uuid, forkPoint.started_at);
  return copied;
}

function writeTranscript(db: Database, opts: IngestOptions, p: TranscriptPlan): IngestResult {
  const { origin } = p;
  // Inside the lock: a handoff may have merged this chain since the plan was made.
  const key = chainKey(db, origin);
  const known = getSession(db, origin);
  const project = p.startProject ?? known?.project ?? p.project;
  const turnsBefore = known === null ? 0 : ownTurnCount(db, origin);
  let details = 0;
  let events = 0;
  upsertSession(db, { ...p.session, project });
  if (p.startProject) setSessionProject(db, origin, p.startProject);
  if (p.preamble) {
    replaceDetails(
      db,
      { turnId: null, turnNumber: 0, sessionId: key, originSessionId: origin },
      p.preamble.details,
    );
    details += p.preamble.details.length;
    events += insertEvents(
      db,
      { sessionId: key, originSessionId: origin, project, turnNumber: null },
      p.preamble.events,
    );
  }
  const copied = settleCopies(db, origin, p.turns);
  for (const t of p.turns) {
    if (t.turn.uuid !== null && copied.has(t.turn.uuid)) continue;
    const turnId = upsertTurn(db, { ...t.turn, sessionId: key });
    replaceDetails(
      db,
      { turnId, turnNumber: t.turn.number, sessionId: key, originSessionId: origin },
      t.details,
    );
    details += t.details.length;
    events += insertEvents(
      db,
      { sessionId: key, originSessionId: origin, project, turnNumber: t.turn.number },
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
    identity: p.identity,
    size: p.observed.size,
    skipped_lines: p.skipped,
    updated_at: opts.now,
  });
  return {
    sessionId: origin,
    file: opts.path,
    turns: p.turns.length - copied.size,
    bodies: (p.turns.length - copied.size) * 2,
    details,
    events,
    skippedLines: p.skipped,
    bytes: p.consumedTo - p.resumedFrom,
    newestFinalText: p.newestFinalText,
    newTurns: Math.max(0, ownTurnCount(db, origin) - turnsBefore),
    newSession: known === null,
    skipped: p.skippedNow,
    notTranscript: null,
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
    newTurns: 0,
    newSession: false,
    skipped: { lines: 0, first: [] },
    notTranscript: null,
  };
}

/** A file replay or import will not make a session of: nothing written. */
function refused(opts: IngestOptions, p: TranscriptPlan): IngestResult | null {
  if (!opts.requireEntries || p.notTranscript === null) return null;
  return {
    ...unchanged(opts, null),
    sessionId: p.origin,
    skippedLines: p.skipped,
    notTranscript: p.notTranscript,
  };
}

export function ingestTranscript(db: Database, opts: IngestOptions, ahead?: PlannedRun): IngestResult {
  const first = ahead?.observed ?? observe(db, opts.path);
  const plan = ahead ? ahead.plan : planTranscript(opts, first);
  if (plan === null) return unchanged(opts, first.cursor);
  const no = refused(opts, plan);
  if (no) return no;
  // IMMEDIATE: the cursor and chain read inside decide the writes. A deferred transaction
  // would take its snapshot on the first read and then fail at once with SQLITE_BUSY when it
  // upgrades to write behind a parallel writer, instead of waiting for busy_timeout.
  return writeTransaction(db, () => {
    // Another writer (a parallel Stop, SubagentStop) may have moved the cursor, or the file
    // grown, since the plan was made: plan again from what holds now, under the lock.
    const now = observe(db, opts.path);
    const p = sameObserved(first, now) ? plan : planTranscript(opts, now);
    return p === null ? unchanged(opts, now.cursor) : (refused(opts, p) ?? writeTranscript(db, opts, p));
  });
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
  identity: string;
  origin: string;
  agent: string;
  firstTimestamp: number | undefined;
  detail: DetailDraft;
  events: EventDraft[];
  consumedTo: number;
  skipped: number;
}

function planSubagent(path: string, observed: Observed, parentSessionId: string | undefined): SubagentPlan {
  const { lines, consumedTo, identity } = withFile(path, (fd) => {
    const buf = readRange(fd, 0, observed.size);
    const split = splitLines(buf, 0);
    return { ...split, identity: fingerprintAfterRead(fd, fstatSync(fd), buf, 0, split.consumedTo, null) };
  });
  const sub = assembleSubagent(lines);
  return {
    observed,
    identity,
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
  return o.cursor !== null && o.valid && o.cursor.size === o.size;
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
    newTurns: 0,
    newSession: false,
    skipped: { lines: 0, first: [] },
    notTranscript: null,
  });
  if (subagentDone(first)) return result(first);
  const plan = planSubagent(path, first, parentSessionId);
  // IMMEDIATE for the same reason as ingestTranscript: the turn lookup decides the write.
  return writeTransaction(db, (): IngestResult => {
    const again = observe(db, path);
    if (subagentDone(again)) return result(again); // a parallel hook stored this very file
    const p = sameObserved(first, again) ? plan : planSubagent(path, again, parentSessionId);
    const turn = turnAt(db, p.origin, p.firstTimestamp ?? now);
    const chain = turn?.session_id ?? chainKey(db, p.origin);
    upsertSubagentDetail(db, {
      turnId: turn?.id ?? null,
      sessionId: chain,
      originSessionId: p.origin,
      key: `${p.origin}:agent:${p.agent}`,
      detail: p.detail,
    });
    const events = insertEvents(
      db,
      {
        sessionId: chain,
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
      identity: p.identity,
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
  });
}
