/**
 * One-pass full-text indexing for a bulk ingest (docs/search.md, "During a bulk ingest"). While
 * the `fts_deferral` row exists, the insert triggers leave every new row with an id above its
 * watermarks unindexed, whoever writes it (the ingest, a hook firing meanwhile); a pass indexes
 * every such row in one statement per index and raises the watermarks to the newest ids, in the
 * same transaction, so a row is indexed exactly once. Rows at or below the watermarks keep their
 * per-row triggers (an update of an indexed row re-indexes it at once). Each ingest registers as
 * an owner; the last to end removes the row, and a writer that finds only owners that are gone
 * (a killed import) runs the pass and removes it (`settleDeferral`, from openForWrite). Also the
 * merge step the Stop worker takes behind the client, which keeps the indexes in few segments
 * (`tidyIndexes`; docs/search.md, "After each Stop, one merge step").
 */
import type { Database } from "bun:sqlite";
import { DETAIL_FTS_TEXT, EVENT_FTS_TEXT, UNINDEXED_ATTACHMENT } from "../schema.ts";
import { writeTransaction } from "../tx.ts";

export interface DeferralOwner {
  pid: number;
  startedAt: number;
}

/**
 * FTS5's own `automerge` (docs/search.md, "During a bulk ingest"): what each index is set back to
 * when a deferral ends. While one is on, it is 0: an ingest's passes would otherwise merge
 * segments over and over that its end merges again (`optimize`, or `mergeSettled`);
 * `crisismerge` (16 segments on a level) still bounds them meanwhile.
 */
export const AUTOMERGE = 4;

/** The newest id of each indexed table: where the rows written from now on start. */
export interface NewestIds {
  bodies: number;
  details: number;
  events: number;
}

/** Each indexed table's full-text index. */
const FTS_OF: Record<keyof NewestIds, string> = {
  bodies: "bodies_fts",
  details: "details_fts",
  events: "events_fts",
};

/** The newest id of bodies, details and events, in that order: one definition for every statement here. */
const NEWEST_IDS = `(SELECT coalesce(max(id), 0) FROM bodies), (SELECT coalesce(max(id), 0) FROM details),
  (SELECT coalesce(max(id), 0) FROM events)`;

function setAutomerge(db: Database, value: number): void {
  for (const t of Object.values(FTS_OF))
    db.query(`INSERT INTO ${t}(${t}, rank) VALUES ('automerge', $v)`).run({ v: value });
}

/** An owner not seen for this long is taken for gone even if its pid is alive (a reused pid). */
export const STALE_OWNER_MS = 15 * 60_000;

interface Marks {
  bodies_from: number;
  details_from: number;
  events_from: number;
}

function marks(db: Database): Marks | null {
  return db
    .query<Marks, []>("SELECT bodies_from, details_from, events_from FROM fts_deferral WHERE id = 1")
    .get();
}

/** The hot path of every writer's open: whether a deferral is on (one lookup of a 0- or 1-row table). */
export function deferralOn(db: Database): boolean {
  return db.query("SELECT 1 AS x FROM fts_deferral WHERE id = 1").get() !== null;
}

/** Whether the process is alive: signal 0 checks without sending (EPERM: alive, someone else's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(o: { pid: number; seen_at: number }, now: number, alive: (pid: number) => boolean): boolean {
  return now - o.seen_at > STALE_OWNER_MS || !alive(o.pid);
}

function ownerRows(db: Database): { pid: number; started_at: number; seen_at: number }[] {
  return db
    .query<{ pid: number; started_at: number; seen_at: number }, []>(
      "SELECT pid, started_at, seen_at FROM fts_deferral_owners",
    )
    .all();
}

/** Index every row above the watermarks and raise them to the newest ids (inside the caller's transaction). */
function pass(db: Database, m: Marks): void {
  db.query("INSERT INTO bodies_fts(rowid, text) SELECT id, text FROM bodies WHERE id > $from").run({
    from: m.bodies_from,
  });
  db.query(
    `INSERT INTO details_fts(rowid, text) SELECT d.id, ${DETAIL_FTS_TEXT("d")} FROM details d
     WHERE d.id > $from AND NOT ${UNINDEXED_ATTACHMENT("d")}`,
  ).run({ from: m.details_from });
  db.query(
    `INSERT INTO events_fts(rowid, text) SELECT e.id, ${EVENT_FTS_TEXT("e")} FROM events e WHERE e.id > $from`,
  ).run({ from: m.events_from });
  db.run(
    `UPDATE fts_deferral SET (bodies_from, details_from, events_from) = (SELECT ${NEWEST_IDS}) WHERE id = 1`,
  );
}

/**
 * The deferral row with the watermarks of now, unless one is on already (its lower marks cover
 * more); turning it on holds FTS5's merges until it ends (AUTOMERGE).
 */
function ensureOn(db: Database): void {
  const on = db.run(
    `INSERT OR IGNORE INTO fts_deferral (id, bodies_from, details_from, events_from)
     SELECT 1, ${NEWEST_IDS}`,
  );
  if (on.changes > 0) setAutomerge(db, 0);
}

function upsertOwner(db: Database, o: DeferralOwner, now: number): void {
  db.query(
    `INSERT INTO fts_deferral_owners (pid, started_at, seen_at) VALUES ($pid, $started, $now)
     ON CONFLICT(pid, started_at) DO UPDATE SET seen_at = excluded.seen_at`,
  ).run({ pid: o.pid, started: o.startedAt, now });
}

/** Owners that are gone leave; with none left, the pass runs and the deferral ends. */
function settle(db: Database, now: number, alive: (pid: number) => boolean, keep?: DeferralOwner): void {
  for (const o of ownerRows(db))
    if (!(keep && o.pid === keep.pid && o.started_at === keep.startedAt) && isStale(o, now, alive))
      db.query("DELETE FROM fts_deferral_owners WHERE pid = $pid AND started_at = $started").run({
        pid: o.pid,
        started: o.started_at,
      });
  const m = marks(db);
  const left = (db.query("SELECT count(*) AS n FROM fts_deferral_owners").get() as { n: number }).n;
  if (m !== null && left === 0) {
    pass(db, m);
    db.run("DELETE FROM fts_deferral WHERE id = 1");
    setAutomerge(db, AUTOMERGE);
  }
}

function newestIds(db: Database): NewestIds {
  const [bodies, details, events] = db.query(`SELECT ${NEWEST_IDS}`).values()[0] as [number, number, number];
  return { bodies, details, events };
}

/**
 * A bulk ingest starts: its rows (and anyone's) wait for its passes. Returns the newest ids as it
 * starts, for its `endDeferral`.
 */
export function beginDeferral(db: Database, owner: DeferralOwner, now: number): NewestIds {
  return writeTransaction(db, () => {
    settle(db, now, pidAlive);
    upsertOwner(db, owner, now);
    ensureOn(db);
    return newestIds(db);
  });
}

/**
 * After an ingest that wrote at least half of an index's rows (a first import, say), that index is
 * rebuilt into one segment (FTS5 'optimize'): its passes left it in many, and every search walks
 * each term in each segment (docs/search.md, "During a bulk ingest"). Only once the deferral has
 * ended: a bulk ingest still running would add segments again. One transaction per index.
 */
function optimizeWritten(db: Database, since: NewestIds): void {
  if (marks(db) !== null) return;
  const newest = newestIds(db);
  for (const k of ["bodies", "details", "events"] as const)
    if (newest[k] > 0 && newest[k] - since[k] >= newest[k] / 2)
      writeTransaction(db, () => db.run(`INSERT INTO ${FTS_OF[k]}(${FTS_OF[k]}) VALUES ('optimize')`));
    else mergeSettled(db, FTS_OF[k]);
}

/** Leaf pages one `merge` step writes at most: a transaction of a few MiB. */
const MERGE_STEP_PAGES = 1000;

/** Leaf pages the Stop worker's step writes at most per index: ~30 ms of write lock for the three. */
export const TIDY_STEP_PAGES = 100;

/** Rows changed so far on this connection: a `merge` that merged something changes at least two. */
function totalChanges(db: Database): number {
  return (db.query("SELECT total_changes() AS n").get() as { n: number }).n;
}

/** One FTS5 `merge` command of at most `pages` pages, in the caller's transaction; whether it merged anything. */
function mergeOnce(db: Database, table: string, pages: number): boolean {
  const before = totalChanges(db);
  db.query(`INSERT INTO ${table}(${table}, rank) VALUES ('merge', $pages)`).run({ pages });
  return totalChanges(db) - before >= 2;
}

/**
 * The merging `automerge` held back during the deferral, done at its end: FTS5 `merge` steps, each
 * in its own transaction, until no level holds `usermerge` segments (2: schema.ts USERMERGE). Left
 * to later writes, it would fall on hooks, a little at a time, and searches would walk the extra
 * segments meanwhile.
 */
function mergeSettled(db: Database, table: string): void {
  while (writeTransaction(db, () => mergeOnce(db, table, MERGE_STEP_PAGES)));
}

/**
 * The Stop worker's step, once its turn is written (behind the client): one `merge` step per index,
 * so that the small segment each write adds is merged level by level into few, most of the pages
 * in one (docs/search.md, "After each Stop, one merge step"). A step with nothing to merge reads
 * the index's structure and writes nothing. Not during a bulk ingest: its passes add segments its
 * end merges. Whether any index merged something.
 */
export function tidyIndexes(db: Database, pages = TIDY_STEP_PAGES): boolean {
  if (deferralOn(db)) return false;
  // One transaction for the three: a Stop pays for one commit, and a hook waits ~30 ms at most.
  return writeTransaction(db, () => {
    let merged = false;
    for (const t of Object.values(FTS_OF)) merged = mergeOnce(db, t, pages) || merged;
    return merged;
  });
}

/**
 * The end of a chunk: index what waits, and say the owner is still at work. An owner taken for
 * gone meanwhile (its deferral ended by another writer) registers again.
 */
export function indexDeferred(db: Database, owner: DeferralOwner, now: number): void {
  writeTransaction(db, () => {
    upsertOwner(db, owner, now);
    const m = marks(db);
    if (m === null) ensureOn(db);
    else pass(db, m);
  });
}

/**
 * The end of a bulk ingest (also when it failed): the last pass, and the deferral ends with its
 * last owner. `since` (what `beginDeferral` returned; not after a failure) lets the indexes it
 * mostly wrote be optimized.
 */
export function endDeferral(db: Database, owner: DeferralOwner, now: number, since?: NewestIds): void {
  writeTransaction(db, () => {
    db.query("DELETE FROM fts_deferral_owners WHERE pid = $pid AND started_at = $started").run({
      pid: owner.pid,
      started: owner.startedAt,
    });
    const m = marks(db);
    if (m !== null) pass(db, m);
    settle(db, now, pidAlive);
  });
  if (since) optimizeWritten(db, since);
  // The passes merged index segments into new ones: the old ones' pages are free now. A database
  // made with incremental auto-vacuum (src/db/open.ts) gives them back to the file system.
  if ((db.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum === 2)
    db.run("PRAGMA incremental_vacuum");
  // A read after the last commit takes a read mark on the newest frame, as a replay's last
  // statement always did: a reader that follows finds it and leaves the -shm as it was
  // (test/reliability/read-only.test.ts).
  marks(db);
}

/**
 * For any writer that found the deferral on: when every owner is gone, run the pass and end it.
 * Owners are read first without the write lock, so a hook beside a live import only reads.
 */
export function settleDeferral(
  db: Database,
  now = Date.now(),
  alive: (pid: number) => boolean = pidAlive,
): void {
  const owners = ownerRows(db);
  if (owners.length > 0 && !owners.some((o) => isStale(o, now, alive))) return;
  writeTransaction(db, () => settle(db, now, alive));
}

/** For tests and doctor: what waits for a pass, per index. */
export function deferredCounts(db: Database): { bodies: number; details: number; events: number } | null {
  const m = marks(db);
  if (m === null) return null;
  const n = (sql: string, from: number) => (db.query(sql).get({ from }) as { n: number }).n;
  return {
    bodies: n("SELECT count(*) AS n FROM bodies WHERE id > $from", m.bodies_from),
    details: n("SELECT count(*) AS n FROM details WHERE id > $from", m.details_from),
    events: n("SELECT count(*) AS n FROM events WHERE id > $from", m.events_from),
  };
}
