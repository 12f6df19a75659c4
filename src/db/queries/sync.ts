/**
 * Sync's own state and the reads of what this machine publishes (docs/sync.md): the machine id
 * and recorded remote, which sessions are this machine's own, a mark of each one's rows (a
 * session whose mark moved has something to publish), and its records in the export format
 * (src/core/export-format.ts), grouped by turn. What sync writes when it applies another
 * machine's files is in sync-apply.ts.
 */
import type { Database } from "bun:sqlite";
import type {
  DetailRecord,
  EventRecord,
  SessionRecord,
  SummaryRecord,
  TurnRecord,
} from "../../core/export-format.ts";
import { type DetailRow, detailRecord, RECORD_SELECT } from "./export.ts";

export type SyncKey = "machine" | "remote" | "last_sync" | "last_error" | "republish" | "auto";

export function syncState(db: Database): Partial<Record<SyncKey, string>> {
  const out: Partial<Record<SyncKey, string>> = {};
  for (const r of db.query<{ key: SyncKey; value: string }, []>("SELECT key, value FROM sync_state").all())
    out[r.key] = r.value;
  return out;
}

export function setSyncState(db: Database, key: SyncKey, value: string | null): void {
  if (value === null) db.query("DELETE FROM sync_state WHERE key = $key").run({ key });
  else
    db.query(
      "INSERT INTO sync_state (key, value) VALUES ($key, $value) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run({ key, value });
}

/** The counts doctor shows: sessions of this machine waiting to be published, tombstones waiting. */
export function syncWaiting(db: Database): { sessions: number; tombstones: number; foreign: number } {
  const marks = ownMarks(db);
  const waiting = marks.filter((m) => m.mark !== m.sent).length;
  const n = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
  return {
    sessions: waiting,
    tombstones: n("SELECT count(*) AS n FROM sync_tombstones WHERE machine IS NULL AND published = 0"),
    foreign: n("SELECT count(*) AS n FROM sync_foreign"),
  };
}

export interface OwnMark {
  id: string;
  project: string | null;
  /** What the session's rows look like now (counts, newest ids and times, its fields). */
  mark: string;
  /** The mark when it was last published; null: never. */
  sent: string | null;
}

const COUNTS = (sql: string) => `coalesce((${sql}), '')`;

/** Every session captured on this machine, with its mark now and when last published. */
export function ownMarks(db: Database): OwnMark[] {
  return db
    .query<OwnMark, []>(
      `SELECT s.id, s.project, m.mark AS sent,
         coalesce(s.title, '') || '|' || coalesce(s.merged_into, '') || '|' || coalesce(s.chain, '') || '|' ||
         coalesce(s.fork_uuid, '') || '|' || coalesce(s.project, '') || '|' ||
         ${COUNTS(`SELECT count(*) || ':' || coalesce(max(ended_at), 0) || ':' || coalesce(sum(user_chars + assistant_chars), 0) || ':' || coalesce(max(id), 0) FROM turns WHERE origin_session_id = s.id`)} || '|' ||
         ${COUNTS(`SELECT count(*) || ':' || coalesce(max(d.id), 0) FROM details d JOIN turns t ON t.id = d.turn_id WHERE t.origin_session_id = s.id`)} || '|' ||
         ${COUNTS(`SELECT count(*) || ':' || coalesce(max(id), 0) FROM details WHERE turn_id IS NULL AND origin_session_id = s.id`)} || '|' ||
         ${COUNTS(`SELECT count(*) || ':' || coalesce(max(id), 0) FROM events WHERE origin_session_id = s.id`)} || '|' ||
         ${COUNTS(`SELECT count(*) || ':' || coalesce(max(k.created_at), 0) || ':' || coalesce(sum(length(k.summary)), 0) FROM skeletons k JOIN turns t ON t.id = k.turn_id WHERE t.origin_session_id = s.id`)} AS mark
       FROM sessions s LEFT JOIN sync_marks m ON m.session_id = s.id
       WHERE NOT EXISTS (SELECT 1 FROM sync_foreign f WHERE f.session_id = s.id)
       ORDER BY s.rowid`,
    )
    .all();
}

export function sessionRecord(db: Database, id: string): SessionRecord | null {
  const r = db
    .query<Omit<SessionRecord, "record">, { id: string }>(`${RECORD_SELECT.session} WHERE id = $id`)
    .get({ id });
  return r ? { record: "session", ...r } : null;
}

/** A session's own records (its transcript's), in the export's order within each kind. */
export interface OriginRecords {
  turns: TurnRecord[];
  details: DetailRecord[];
  events: EventRecord[];
  summaries: SummaryRecord[];
}

export function originRecords(db: Database, origin: string): OriginRecords {
  const p = { o: origin };
  const turns = db
    .query<Omit<TurnRecord, "record">, { o: string }>(
      `${RECORD_SELECT.turn} WHERE t.origin_session_id = $o ORDER BY t.turn_number`,
    )
    .all(p)
    .map((r): TurnRecord => ({ record: "turn", ...r }));
  const details = db
    .query<DetailRow, { o: string }>(
      `${RECORD_SELECT.detail}
       WHERE d.id IN (SELECT d2.id FROM details d2 JOIN turns t2 ON t2.id = d2.turn_id WHERE t2.origin_session_id = $o
                      UNION ALL SELECT id FROM details WHERE turn_id IS NULL AND origin_session_id = $o)
       ORDER BY d.id`,
    )
    .all(p)
    .map(detailRecord);
  const events = db
    .query<Omit<EventRecord, "record">, { o: string }>(
      `${RECORD_SELECT.event} WHERE origin_session_id = $o ORDER BY id`,
    )
    .all(p)
    .map((r): EventRecord => ({ record: "event", ...r }));
  const summaries = db
    .query<Omit<SummaryRecord, "record">, { o: string }>(
      `${RECORD_SELECT.summary} WHERE t.origin_session_id = $o ORDER BY t.turn_number`,
    )
    .all(p)
    .map((r): SummaryRecord => ({ record: "summary", ...r }));
  return { turns, details, events, summaries };
}

/** The hashes of what this machine published of one session, by turn number. */
export function sentHashes(db: Database, origin: string): Map<number, string> {
  const rows = db
    .query<{ n: number; hash: string }, { o: string }>("SELECT n, hash FROM sync_sent WHERE origin = $o")
    .all({ o: origin });
  return new Map(rows.map((r) => [r.n, r.hash]));
}

export interface Published {
  marks: { id: string; mark: string }[];
  groups: { origin: string; n: number; hash: string }[];
}

/** After a push the remote accepted: what it now holds of this machine's. */
export function recordPublished(db: Database, p: Published): void {
  const mark = db.query(
    "INSERT INTO sync_marks (session_id, mark) VALUES ($id, $mark) ON CONFLICT(session_id) DO UPDATE SET mark = excluded.mark",
  );
  for (const m of p.marks) mark.run(m);
  const sent = db.query(
    "INSERT INTO sync_sent (origin, n, hash) VALUES ($origin, $n, $hash) ON CONFLICT(origin, n) DO UPDATE SET hash = excluded.hash",
  );
  for (const g of p.groups) sent.run(g);
}

/** A republish starts from nothing: every session of this machine's is published again. */
export function forgetPublished(db: Database): void {
  db.run("DELETE FROM sync_sent");
  db.run("DELETE FROM sync_marks");
}

export function hasPublished(db: Database): boolean {
  return db.query("SELECT 1 FROM sync_sent LIMIT 1").get() !== null;
}

/** This machine's batons (a /tl of one of its own sessions), as the other machines take them in. */
export function ownBatons(db: Database): { project: string; session_id: string; created_at: number }[] {
  return db
    .query<{ project: string; session_id: string; created_at: number }, []>(
      `SELECT b.project, b.session_id, b.created_at FROM handoff_batons b
       WHERE NOT EXISTS (SELECT 1 FROM sync_foreign f WHERE f.session_id = b.session_id) ORDER BY b.project`,
    )
    .all();
}

/** Project directories whose identity sync knows, and those it still has to work out. */
export function projectKeys(db: Database): Map<string, string | null> {
  const rows = db
    .query<{ path: string; key: string | null }, []>("SELECT path, key FROM sync_projects")
    .all();
  return new Map(rows.map((r) => [r.path, r.key]));
}

export function saveProjectKey(db: Database, path: string, key: string | null, now: number): void {
  db.query(
    `INSERT INTO sync_projects (path, key, checked_at) VALUES ($path, $key, $now)
     ON CONFLICT(path) DO UPDATE SET key = excluded.key, checked_at = excluded.checked_at`,
  ).run({ path, key, now });
}

/** Every project directory a session of this database names. */
export function knownProjects(db: Database): string[] {
  return db
    .query<{ p: string }, []>(
      "SELECT DISTINCT project AS p FROM sessions WHERE project IS NOT NULL ORDER BY 1",
    )
    .all()
    .map((r) => r.p);
}

/** Local tombstones (what forget removed here) not yet published. */
export function unpublishedTombstones(db: Database): { kind: string; key: string }[] {
  return db
    .query<{ kind: string; key: string }, []>(
      "SELECT kind, key FROM sync_tombstones WHERE machine IS NULL AND published = 0 ORDER BY created_at, kind, key",
    )
    .all();
}

export function markTombstonesPublished(db: Database, items: readonly { kind: string; key: string }[]): void {
  const q = db.query("UPDATE sync_tombstones SET published = 1 WHERE kind = $kind AND key = $key");
  for (const t of items) q.run({ kind: t.kind, key: t.key });
}
