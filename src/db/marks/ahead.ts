import { dirOf, filesIn, sessionRecord, settleMsFor, timeOf, writeRecord } from "./store.ts";

// ---------------------------------------------------------------------------------------------
// The push printed ahead (docs/hooks.md, "The push printed ahead"): what a rehearsal of a session's
// first handoff would print, in `ahead/<session>`, with the state of everything the handoff reads
// outside the database's own pages; `printed/<session>` says a prompt printed it, so the handoff
// that follows prints nothing.

/** One file as a state: its size and modification time (0 for a missing or empty one). */
function fileState(f: ReturnType<typeof Bun.file>): { part: string; time: number; size: number } {
  const size = f.size;
  // An empty file (a log with no frames, a mark being written) says no more than a missing one.
  const time = size > 0 ? timeOf(f) : 0;
  return { part: `${size}.${time}`, time, size };
}

/**
 * The state a handoff reads: the database file and its log, the marks (this directory's files
 * and its clear marks), and the transcripts it may read further. Any write to one of them
 * changes its size or modification time; `newest` is the latest of those times, `settledMs` how
 * long after it a later write is sure to have a later time (settleMsFor).
 */
export function handoffState(
  dbPath: string,
  transcripts: readonly string[],
): { key: string; base: string; sizes: number[]; newest: number; settledMs: number } {
  const parts: string[] = [];
  const times: number[] = [];
  const add = (name: string, f: ReturnType<typeof Bun.file>) => {
    const s = fileState(f);
    parts.push(`${name}:${s.part}`);
    times.push(s.time);
    return s.size;
  };
  add("db", Bun.file(dbPath));
  add("wal", Bun.file(`${dbPath}-wal`));
  for (const sub of ["", "clear/"] as const)
    for (const name of filesIn(dbPath, sub)) add(`${sub}${name}`, Bun.file(`${dirOf(dbPath)}/${sub}${name}`));
  const base = parts.join("|");
  const sizes = transcripts.map((t) => add(`t:${t}`, Bun.file(t)));
  return { key: parts.join("|"), base, sizes, newest: Math.max(0, ...times), settledMs: settleMsFor(times) };
}

/** A rehearsed push and what it was rehearsed from (src/hooks/push-ahead.ts). */
export interface AheadRecord {
  key: string;
  transcripts: string[];
  text: string;
  version: string;
  invocation: string;
  cwd: string | null;
  transcript_path: string | null;
}

export async function writeAhead(dbPath: string, sessionId: string, record: AheadRecord): Promise<boolean> {
  return writeRecord(dbPath, sessionId, `ahead/${sessionId}`, record);
}

/** The session's rehearsed push, or null (none, or not readable as one). */
export async function readAhead(dbPath: string, sessionId: string): Promise<AheadRecord | null> {
  const f = sessionRecord(dbPath, "ahead", sessionId);
  if (!f || f.size === 0) return null;
  try {
    const v = JSON.parse(await f.text()) as Partial<AheadRecord>;
    if (typeof v?.key !== "string" || typeof v.text !== "string" || !Array.isArray(v.transcripts))
      return null;
    return v as AheadRecord;
  } catch {
    return null;
  }
}

/** What a printed record holds of the push: a hash, so no copy of a turn stays behind it. */
export function printedHash(text: string): string {
  return Bun.hash(text).toString(36);
}

/** Before a prompt prints a rehearsed push: the handoff that follows then prints nothing. */
export async function writePrinted(dbPath: string, sessionId: string, text: string): Promise<boolean> {
  return writeRecord(dbPath, sessionId, `printed/${sessionId}`, { hash: printedHash(text) });
}

/**
 * The hash of the push a prompt printed ahead of the session's handoff, or null when none was. A
 * record that does not parse still says one was printed (the handoff must not print it twice).
 */
export async function readPrinted(dbPath: string, sessionId: string): Promise<string | null> {
  const f = sessionRecord(dbPath, "printed", sessionId);
  if (!f || f.size === 0) return null;
  try {
    const v = JSON.parse(await f.text()) as { hash?: unknown };
    return typeof v?.hash === "string" ? v.hash : "";
  } catch {
    return "";
  }
}

/**
 * `forget`: every rehearsed push goes, after `/clear` and before a compaction (each is a copy of
 * turns). A prompt or SessionStart that finds none renders itself; the printed records of `printed/`
 * hold no text and stay for their handoffs.
 */
export function dropAllAhead(dbPath: string): void {
  const { rmSync } = require("node:fs") as typeof import("node:fs");
  for (const sub of ["ahead", "compacted"])
    rmSync(`${dirOf(dbPath)}/${sub}`, { recursive: true, force: true });
}

/** Once the handoff is committed: the session's rehearsal and its printed record go (native). */
export async function dropAhead(dbPath: string, sessionId: string): Promise<void> {
  for (const sub of ["ahead", "printed"] as const) {
    try {
      await sessionRecord(dbPath, sub, sessionId)?.unlink();
    } catch {
      // never written, or gone already
    }
  }
}

/** Whether a prompt printed the session's push ahead of its handoff (one native stat). */
export function hasPrinted(dbPath: string, sessionId: string): boolean {
  return (sessionRecord(dbPath, "printed", sessionId)?.size ?? 0) > 0;
}

/** Whether a rehearsed push is kept for the session (one native stat). */
export function hasAhead(dbPath: string, sessionId: string): boolean {
  return (sessionRecord(dbPath, "ahead", sessionId)?.size ?? 0) > 0;
}
