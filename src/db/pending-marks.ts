/**
 * Pending-handoff marks: one small file, named after the session, per `pending_handoffs` row, in
 * `<database>-pending/`, beside the -wal and -shm files. Every prompt asks "is there a handoff
 * for me?" and almost always the answer is no: a mark that is absent answers that from one
 * native `Bun.file(..).size`, without loading bun:sqlite, opening the database or parsing its
 * schema (docs/benchmarks.md). The database stays the truth:
 *
 * - a mark is written before its row is committed, and removed only after the row is gone, so
 *   a row never lacks its mark (a mark without a row only sends one prompt the long way, which
 *   removes it);
 * - `<dir>/.marks` says the directory is kept this way. It is written once, when a writer first
 *   opens the database, after a mark for every row already in it (a database older than the
 *   marks), so its absence, an unreadable directory or a session id that is no safe file name
 *   all mean "ask the database".
 *
 * A mark holds "1", or, until a prompt folds it into its row, what SessionStart recorded (a
 * `StartIntent` as JSON): SessionStart writes only that file, so it never opens the database
 * (docs/hooks.md, "Which session a /clear continues").
 */
import type { Database } from "bun:sqlite";
import type { InjectionRow } from "./queries/handoff.ts";
import type { StatuslineFacts } from "./queries/statusline.ts";

/** What SessionStart(clear/startup) knew, kept in the session's mark until a prompt folds it in. */
export interface StartIntent {
  session_id: string;
  source: string;
  client: string | null;
  prompt_id: string | null;
  created_at: number;
  cwd: string | null;
  transcript_path: string | null;
}

const SENTINEL = ".marks";
/** Claude Code's session ids are UUIDs; anything else is asked of the database. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function dirOf(dbPath: string): string {
  return `${dbPath}-pending`;
}

/** A mark or the sentinel, written with node:fs (the writers that need it have loaded it anyway). */
function writeMark(path: string): void {
  (require("node:fs") as typeof import("node:fs")).writeFileSync(path, "1", { mode: 0o600 });
}

/** The file of a database connection, or null for an in-memory or temporary one. */
export function fileOf(db: Database): string | null {
  const f = (db as Database & { filename?: string }).filename;
  return f && f !== ":memory:" && !f.startsWith("file:") ? f : null;
}

/**
 * For the prompt's fast path: false when the marks say `sessionId` has no pending handoff,
 * true when it may have one, null when the marks cannot tell (ask the database).
 */
export function pendingMark(dbPath: string, sessionId: string): boolean | null {
  if (!SAFE_ID.test(sessionId)) return null;
  const dir = dirOf(dbPath);
  if (Bun.file(`${dir}/${SENTINEL}`).size === 0) return null;
  return Bun.file(`${dir}/${sessionId}`).size > 0;
}

/**
 * SessionStart's whole write when the directory is kept: the intent in the session's mark, with
 * one native write. False when it is not kept (or the write failed): the caller writes the row.
 */
export async function writeIntent(dbPath: string, intent: StartIntent): Promise<boolean> {
  return writeRecord(dbPath, intent.session_id, intent.session_id, intent);
}

/**
 * A hook's record in the kept directory, written natively at `name` (relative to it; Bun.write
 * makes a missing subdirectory). False when the directory is not kept, the session id is no safe
 * file name, or the write failed: the caller writes its row instead.
 */
async function writeRecord(dbPath: string, sessionId: string, name: string, value: object): Promise<boolean> {
  if (!SAFE_ID.test(sessionId) || Bun.file(`${dirOf(dbPath)}/${SENTINEL}`).size === 0) return false;
  // Files 0600 like the database's (docs/contract.md): Bun.write takes no mode, the umask does.
  const umask = process.umask(0o077);
  try {
    // One write(2) of a few hundred bytes: a reader sees the whole record or an empty file.
    await Bun.write(`${dirOf(dbPath)}/${name}`, JSON.stringify(value));
    return true;
  } catch {
    return false;
  } finally {
    process.umask(umask);
  }
}

/** A string field of a parsed record, else null. */
const stringOrNull = (x: unknown): string | null => (typeof x === "string" ? x : null);

/** Whether the session's mark still holds an intent (a plain mark is "1", one byte). */
export function hasIntent(dbPath: string, sessionId: string): boolean {
  return SAFE_ID.test(sessionId) && Bun.file(`${dirOf(dbPath)}/${sessionId}`).size > 1;
}

function parseIntent(id: string, text: string): StartIntent | null {
  try {
    const v = JSON.parse(text) as Partial<StartIntent>;
    if (v?.session_id !== id || typeof v.source !== "string" || !Number.isFinite(v.created_at)) return null;
    return {
      session_id: id,
      source: v.source,
      client: stringOrNull(v.client),
      prompt_id: stringOrNull(v.prompt_id),
      created_at: v.created_at as number,
      cwd: stringOrNull(v.cwd),
      transcript_path: stringOrNull(v.transcript_path),
    };
  } catch {
    return null;
  }
}

/**
 * What a listed mark holds when it is read: its intent, "gone" when it no longer holds one (its
 * own prompt folded it, writing "1", or consumed it, removing the file, since the listing: a
 * race between two windows, not an error), or null when it does not parse.
 */
export function markIntent(id: string, text: string): StartIntent | "gone" | null {
  return text.length <= 1 ? "gone" : parseIntent(id, text);
}

/**
 * The intents not folded yet of sessions born no later than `sessionId` (its own included), oldest
 * first: they are claimed in the order their SessionStarts ran, as if each had written its row
 * then. `unreadable` lists marks whose intent does not parse (skipped, reported by the caller).
 */
export async function readIntents(
  dbPath: string,
  sessionId: string,
): Promise<{ intents: StartIntent[]; unreadable: string[] }> {
  const intents: StartIntent[] = [];
  const unreadable: string[] = [];
  for (const name of waitingIntents(dbPath)) {
    const text = await Bun.file(`${dirOf(dbPath)}/${name}`)
      .text()
      .catch(() => "");
    const intent = markIntent(name, text);
    if (intent === "gone") continue;
    if (intent) intents.push(intent);
    else unreadable.push(name);
  }
  const own = intents.find((i) => i.session_id === sessionId);
  if (!own) return { intents: [], unreadable };
  return {
    intents: intents
      .filter((i) => i.created_at <= own.created_at)
      .sort((a, b) => a.created_at - b.created_at || (a.session_id < b.session_id ? -1 : 1)),
    unreadable,
  };
}

/** One line for `hook_errors`: marks whose SessionStart record does not parse are skipped. */
export function unreadableLine(ids: string[]): string {
  return `skipped ${ids.length} unreadable SessionStart record(s) in the pending marks: ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}`;
}

/**
 * The files of the directory (`sub` "" or one of its subdirectories, "clear/"), sorted; none when it
 * does not exist. Bun.Glob lists natively: ~1 ms where node:fs would cost ~2 ms to load
 * (docs/benchmarks.md).
 */
function filesIn(dbPath: string, sub: "" | "clear/"): string[] {
  try {
    return [...new Bun.Glob("*").scanSync({ cwd: `${dirOf(dbPath)}/${sub}`, onlyFiles: true })].sort();
  } catch {
    return [];
  }
}

/** The sessions whose SessionStart record waits for a first prompt to claim it (for `readIntents` and `doctor`). */
export function waitingIntents(dbPath: string): string[] {
  return filesIn(dbPath, "").filter(
    (name) => SAFE_ID.test(name) && Bun.file(`${dirOf(dbPath)}/${name}`).size > 1,
  );
}

/** After the commit that wrote its row: the mark says "1" again (native). */
export async function intentFolded(dbPath: string, sessionId: string): Promise<void> {
  try {
    await Bun.write(`${dirOf(dbPath)}/${sessionId}`, "1");
  } catch {
    // the mark keeps the intent: the next fold finds the row and skips it
  }
}

/**
 * Makes the directory trustworthy once per database: a mark for every pending row it holds, then
 * the sentinel. Writers call it when they open the database (a native check, node:fs only the
 * first time), so a prompt can rely on the marks from the first SessionStart on.
 */
export function ensureMarks(db: Database): void {
  const path = fileOf(db);
  if (path === null || Bun.file(`${dirOf(path)}/${SENTINEL}`).size > 0) return;
  const dir = dirOf(path);
  (require("node:fs") as typeof import("node:fs")).mkdirSync(dir, { recursive: true, mode: 0o700 });
  const rows = db.query<{ id: string }, []>("SELECT session_id AS id FROM pending_handoffs").all();
  for (const { id } of rows) if (SAFE_ID.test(id)) writeMark(`${dir}/${id}`);
  writeMark(`${dir}/${SENTINEL}`);
}

/** Called before a pending row for `sessionId` is written, inside the writer's transaction. */
export function markPending(db: Database, sessionId: string): void {
  const path = fileOf(db);
  if (path === null || !SAFE_ID.test(sessionId)) return;
  const mark = `${dirOf(path)}/${sessionId}`;
  if (Bun.file(mark).size > 0) return; // kept already (an intent being folded, or a row)
  ensureMarks(db);
  writeMark(mark);
}

/** Called once the pending row of `sessionId` is gone (committed). Native: no node:fs. */
export async function clearPendingMark(dbPath: string, sessionId: string): Promise<void> {
  if (!SAFE_ID.test(sessionId)) return;
  try {
    await Bun.file(`${dirOf(dbPath)}/${sessionId}`).unlink();
  } catch {
    // already gone, or never written
  }
}

/**
 * For `doctor` (read-only): the pending rows whose mark is missing, which an ordinary prompt would
 * skip, and the sentinel a fix removes (the next writer marks every row again); null when the
 * directory is not kept yet (every prompt then asks the database).
 */
export function unmarkedRows(
  db: Database,
  dbPath: string,
): { ids: string[]; rows: number; sentinel: string } | null {
  const sentinel = `${dirOf(dbPath)}/${SENTINEL}`;
  if (Bun.file(sentinel).size === 0) return null;
  const rows = db.query<{ id: string }, []>("SELECT session_id AS id FROM pending_handoffs").all();
  const ids = rows
    .map((r) => r.id)
    .filter((id) => SAFE_ID.test(id) && Bun.file(`${dirOf(dbPath)}/${id}`).size === 0);
  return { ids, rows: rows.length, sentinel };
}

// ---------------------------------------------------------------------------------------------
// Read marks and clear marks (docs/hooks.md, "Hooks that find nothing to write"): the same
// directory answers two more questions of a waited-for hook without SQLite. Each lives in its own
// subdirectory, so the intents' listing above (files only) never sees them.

/**
 * A transcript as a writer found it right after committing a cursor that had read it all: the
 * database would answer "nothing unread" for a file of this size and modification time. The mark
 * is a fact in a file's name, `read/<session>/<path hash>.<size>.<mtime>`, so asking it is one stat.
 */
export interface ReadState {
  path: string;
  size: number;
  mtime: number;
}

function readMarkName(s: ReadState): string {
  return `${Bun.hash(s.path).toString(36)}.${s.size}.${s.mtime}`;
}

/**
 * After the commit, outside any transaction: a mark is never ahead of the database (a crash
 * before this write leaves an older mark or none, and a mark of an older state no longer matches
 * the file: both only send a hook the long way). The session's older marks go. Best effort.
 */
export function noteRead(db: Database, sessionId: string, state: ReadState): void {
  const path = fileOf(db);
  if (path === null || db.inTransaction || !SAFE_ID.test(sessionId)) return;
  const dir = `${dirOf(path)}/read/${sessionId}`;
  const name = readMarkName(state);
  try {
    const fs = require("node:fs") as typeof import("node:fs");
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${dir}/${name}`, "1", { mode: 0o600 });
    for (const old of fs.readdirSync(dir)) if (old !== name) fs.rmSync(`${dir}/${old}`, { force: true });
  } catch {
    // the next hook asks the database
  }
}

/** Whether a writer marked this very state of the transcript read (false when the database is gone). */
export function readMarked(dbPath: string, sessionId: string, state: ReadState): boolean {
  return (
    SAFE_ID.test(sessionId) &&
    Bun.file(dbPath).size > 0 &&
    Bun.file(`${dirOf(dbPath)}/read/${sessionId}/${readMarkName(state)}`).size > 0
  );
}

/**
 * A new database (its creation won): marks a removed one left would claim reads it never had, and
 * its kept status lines facts it never held.
 */
export function dropReadMarks(dbPath: string): void {
  const fs = require("node:fs") as typeof import("node:fs");
  for (const sub of ["read", "status"])
    fs.rmSync(`${dirOf(dbPath)}/${sub}`, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Kept status lines (docs/monitor.md, "Speed"): what `statusline` read of the database for a
// session, in `status/<session>`, with the state of the database files it was read at. Claude Code
// redraws the line far more often than the database changes; an unchanged state answers from the file.

/**
 * Long enough that a write after a state was taken lands in a later modification time (Bun reads
 * it in whole ms; Linux file systems without fine-grained timestamps tick at 1-10 ms).
 */
export const SETTLED_MS = 100;

/**
 * How long after the newest of `times` a later write is sure to have a later time: SETTLED_MS, or a
 * second more where every time is a whole second (ext3 and HFS+ keep no finer ones; a missing file's
 * 0 says nothing either way).
 */
export function settleMsFor(times: readonly number[]): number {
  const known = times.filter((t) => t > 0);
  return known.length > 0 && known.every((t) => t % 1000 === 0) ? 1000 + SETTLED_MS : SETTLED_MS;
}

/**
 * The size and modification time of the database file and its log, natively: every commit writes
 * the log, every checkpoint the file, so a write changes one of them. `settled` says both were last
 * written long enough ago (settleMsFor): only then can a later write not share their time, and only
 * then is the state worth keeping.
 */
export function databaseState(dbPath: string, now = Date.now()): { key: string; settled: boolean } {
  const db = Bun.file(dbPath);
  const wal = Bun.file(`${dbPath}-wal`);
  const dbTime = timeOf(db);
  const walTime = timeOf(wal);
  return {
    key: `${db.size}.${dbTime}.${wal.size}.${walTime}`,
    settled: now - Math.max(dbTime, walTime) >= settleMsFor([dbTime, walTime]),
  };
}

/** A file's modification time in ms; 0 for a missing one (Bun answers 2^52 - 1 there). */
function timeOf(f: ReturnType<typeof Bun.file>): number {
  const t = f.lastModified;
  return t >= 2 ** 52 - 1 ? 0 : t;
}

/** The facts kept for `sessionId` at state `key`, or null (none, another state, unreadable). */
export async function keptStatus(
  dbPath: string,
  sessionId: string,
  key: string,
): Promise<StatuslineFacts | null> {
  if (!SAFE_ID.test(sessionId)) return null;
  try {
    const v = JSON.parse(await Bun.file(`${dirOf(dbPath)}/status/${sessionId}`).text()) as Partial<
      StatuslineFacts & { key: string }
    >;
    if (v?.key !== key || !Number.isInteger(v.turns)) return null;
    return { turns: v.turns as number, pending: v.pending === true, baton: v.baton === true };
  } catch {
    return null;
  }
}

/** Keeps what was read at a settled state (best effort: a failed write only costs the next line a read). */
export async function keepStatus(
  dbPath: string,
  sessionId: string,
  key: string,
  facts: StatuslineFacts,
): Promise<void> {
  await writeRecord(dbPath, sessionId, `status/${sessionId}`, { key, ...facts });
}

/**
 * The session's facts: kept ones when the database files are as they were when they were read, else
 * read on a read-only connection (bun:sqlite and the queries load only then) and kept when the files
 * have settled. The state is taken before the read, so a write during it only makes the next line read.
 */
export async function statusFacts(dbPath: string, sessionId: string): Promise<StatuslineFacts> {
  const state = databaseState(dbPath);
  const kept = await keptStatus(dbPath, sessionId, state.key);
  if (kept) return kept;
  const { withReader } = require("./open.ts") as typeof import("./open.ts");
  const { statuslineFacts } = require("./queries/statusline.ts") as typeof import("./queries/statusline.ts");
  const facts = withReader(dbPath, (db) => statuslineFacts(db, sessionId));
  if (state.settled) await keepStatus(dbPath, sessionId, state.key, facts);
  return facts;
}

/**
 * After a writer of the session closed (the Stop worker): its status line's facts read again and
 * kept once the files settle, so the next line answers without SQLite. Only for a session whose
 * line has kept facts before (a status line is set up), and not past a few seconds of writes.
 */
export async function refreshStatus(dbPath: string, sessionId: string): Promise<void> {
  if (!SAFE_ID.test(sessionId) || Bun.file(`${dirOf(dbPath)}/status/${sessionId}`).size === 0) return;
  const deadline = Date.now() + 3000;
  for (let s = databaseState(dbPath); !s.settled; s = databaseState(dbPath)) {
    if (Date.now() > deadline) return;
    await Bun.sleep(SETTLED_MS / 2);
  }
  await statusFacts(dbPath, sessionId);
}

/** A SessionEnd(clear) not folded into `clear_links` yet: `clear/<session>.<created_at>`. */
export interface ClearMark {
  session_id: string;
  /** Where the session was when it ended: its project, when the database holds none, is this cwd's. */
  cwd: string | null;
  client: string | null;
  prompt_id: string | null;
  created_at: number;
}

/**
 * SessionEnd(clear)'s whole write when the directory is kept and nothing is left to read: the
 * link, with one native write, for the next handoff to fold (src/hooks/handoff.ts). False when it is
 * not kept or the write failed: the caller writes the row.
 */
export async function writeClearMark(dbPath: string, mark: ClearMark): Promise<boolean> {
  // Under a name no other write uses: a reader that finds it empty skips it.
  return writeRecord(dbPath, mark.session_id, `clear/${mark.session_id}.${mark.created_at}`, mark);
}

function parseClearMark(text: string): ClearMark | null {
  try {
    const v = JSON.parse(text) as Partial<ClearMark>;
    if (typeof v?.session_id !== "string" || !SAFE_ID.test(v.session_id) || !Number.isFinite(v.created_at))
      return null;
    return {
      session_id: v.session_id,
      cwd: stringOrNull(v.cwd),
      client: stringOrNull(v.client),
      prompt_id: stringOrNull(v.prompt_id),
      created_at: v.created_at as number,
    };
  } catch {
    return null;
  }
}

/**
 * The clear marks waiting to be folded, with their file names; `unreadable` counts the ones that do
 * not parse (an empty file is one being written, and is left for the next fold).
 */
export async function waitingClearMarks(dbPath: string): Promise<{
  marks: { name: string; mark: ClearMark }[];
  unreadable: string[];
}> {
  const dir = `${dirOf(dbPath)}/clear`;
  const marks: { name: string; mark: ClearMark }[] = [];
  const unreadable: string[] = [];
  // None when no /clear was marked yet.
  for (const name of filesIn(dbPath, "clear/")) {
    const text = await Bun.file(`${dir}/${name}`)
      .text()
      .catch(() => ""); // folded by another writer since the listing
    if (text === "") continue;
    const mark = parseClearMark(text);
    if (mark) marks.push({ name, mark });
    else unreadable.push(name);
  }
  return { marks, unreadable };
}

/** Once the links folded from them are committed (or for marks that never parse): gone. */
export async function clearMarksFolded(dbPath: string, names: readonly string[]): Promise<void> {
  for (const name of names)
    try {
      await Bun.file(`${dirOf(dbPath)}/clear/${name}`).unlink();
    } catch {
      // another writer folded it too
    }
}

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

/** A session's record in `ahead/`, `printed/` or `compacted/`; null for an id that is no safe file name. */
function sessionRecord(
  dbPath: string,
  sub: "ahead" | "printed" | "compacted",
  sessionId: string,
): ReturnType<typeof Bun.file> | null {
  return SAFE_ID.test(sessionId) ? Bun.file(`${dirOf(dbPath)}/${sub}/${sessionId}`) : null;
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

// The push after compaction printed ahead: `compacted/<session>` holds the push a rehearsal after
// PreCompact rendered ("ahead"), then, once SessionStart(compact) printed it, what its injection
// row will say ("printed": no text), until a writer records that row.

/** What the push after compaction records (its `injections` row), kept with it. */
export type CompactionStats = Omit<InjectionRow, "session_id" | "created_at" | "moment" | "prepared">;

export type CompactionRecord =
  | ({
      form: "ahead";
      stats: CompactionStats;
      /** The state without the transcript, and the transcript's size then (handoffState). */
      base: string;
      size: number;
    } & AheadRecord)
  | { form: "printed"; at: number; stats: CompactionStats };

export async function writeCompaction(
  dbPath: string,
  sessionId: string,
  record: CompactionRecord,
): Promise<boolean> {
  return writeRecord(dbPath, sessionId, `compacted/${sessionId}`, record);
}

/** The session's compaction record, or null (none, or not readable as one). */
export async function readCompaction(dbPath: string, sessionId: string): Promise<CompactionRecord | null> {
  const f = sessionRecord(dbPath, "compacted", sessionId);
  if (!f || f.size === 0) return null;
  try {
    const v = JSON.parse(await f.text()) as Partial<CompactionRecord>;
    if (typeof v?.stats !== "object" || v.stats === null) return null;
    if (v.form === "printed") return typeof v.at === "number" ? (v as CompactionRecord) : null;
    if (v.form !== "ahead" || typeof v.key !== "string" || typeof v.text !== "string") return null;
    if (typeof v.base !== "string" || typeof v.size !== "number") return null;
    return Array.isArray(v.transcripts) ? (v as CompactionRecord) : null;
  } catch {
    return null;
  }
}

/** Whether a compaction record is kept for the session (one native stat). */
export function hasCompaction(dbPath: string, sessionId: string): boolean {
  return (sessionRecord(dbPath, "compacted", sessionId)?.size ?? 0) > 0;
}

/** Once its row is committed (or it is stale): the session's compaction record goes. */
export async function dropCompaction(dbPath: string, sessionId: string): Promise<void> {
  try {
    await sessionRecord(dbPath, "compacted", sessionId)?.unlink();
  } catch {
    // never written, or gone already
  }
}

/** Whether a rehearsed push is kept for the session (one native stat). */
export function hasAhead(dbPath: string, sessionId: string): boolean {
  return (sessionRecord(dbPath, "ahead", sessionId)?.size ?? 0) > 0;
}
