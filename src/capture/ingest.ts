/**
 * Capture (docs/contract.md#capture): the I/O shell around the pure assembler. Reads a transcript from where
 * the last ingest stopped, re-reading only the open (last) turn, and writes turns, L2 and L3
 * in one short transaction. Every run is idempotent: a turn is upserted by its key and its L3
 * rows are replaced, so a crash at any point converges on the next run.
 */
import type { Database } from "bun:sqlite";
import type { NotTranscript, SkippedLines } from "../core/transcript-file.ts";
import {
  type CursorRow,
  deleteTurnsAfter,
  ownTurnCount,
  replaceDetails,
  saveCursor,
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
import { chainKey, getSession, setSessionProject, upsertSession } from "../db/queries/sessions.ts";
import { writeTransaction } from "../db/tx.ts";
import {
  type IngestOptions,
  type PlannedRun,
  planTranscript,
  type TranscriptPlan,
  type TurnWritePlan,
} from "./ingest-plan.ts";
import { observe, sameObserved, sessionIdFromPath } from "./transcript-read.ts";

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
  // A Codex fork copies nothing: its rollout names the parent's turn it was forked after.
  if (p.forkUuid) setForkPoint(db, origin, p.forkUuid, Number.MAX_SAFE_INTEGER);
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

/**
 * The result of a run that wrote nothing: the file at `path` (a transcript, or a subagent's
 * under its parent `sessionId`) as its cursor left it.
 */
export function unchanged(
  opts: { path: string; sessionId?: string | undefined },
  cursor: CursorRow | null,
): IngestResult {
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
