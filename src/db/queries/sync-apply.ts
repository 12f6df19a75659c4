/**
 * What sync writes (docs/sync.md): tombstones of what `forget` removed, and the rows of other
 * machines' files. A turn of another machine is replaced whole when its records changed (it was
 * published while still growing) and left alone when they did not; a tombstoned one is never
 * written. Every function runs inside the caller's write transaction.
 */
import type { Database } from "bun:sqlite";
import { dropEmptySpans } from "./spans.ts";

/** Tombstone kinds: a turn (`<origin>:<n>`), an event or a pre-prompt detail (ikey), a session row, a title. */
export type TombstoneKind = "turn" | "event" | "detail" | "session" | "title";

export interface Tombstone {
  kind: TombstoneKind;
  key: string;
}

/**
 * Called by forget before it deletes: a key for each row it is about to remove, and the
 * republish flag when any of them is this machine's and already on the remote.
 */
export function recordForgetTombstones(
  db: Database,
  sel: { turnIds: readonly number[]; eventIds: readonly number[]; looseIds: readonly number[] },
  now: number,
): void {
  const add = `INSERT INTO sync_tombstones (kind, key, machine, created_at) SELECT $kind, k, NULL, $now FROM (%)
               WHERE true ON CONFLICT(kind, key) DO NOTHING`;
  const run = (kind: TombstoneKind, select: string, ids: readonly number[]) =>
    ids.length > 0 && db.query(add.replace("%", select)).run({ kind, now, ids: JSON.stringify(ids) });
  run(
    "turn",
    "SELECT origin_session_id || ':' || turn_number AS k FROM turns WHERE id IN (SELECT value FROM json_each($ids))",
    sel.turnIds,
  );
  run("event", "SELECT ikey AS k FROM events WHERE id IN (SELECT value FROM json_each($ids))", sel.eventIds);
  run(
    "detail",
    "SELECT ikey AS k FROM details WHERE id IN (SELECT value FROM json_each($ids))",
    sel.looseIds,
  );
  const published = db
    .query<{ x: number }, { t: string; e: string; d: string }>(
      `SELECT 1 AS x FROM sync_sent WHERE origin IN (
         SELECT origin_session_id FROM turns WHERE id IN (SELECT value FROM json_each($t))
         UNION SELECT origin_session_id FROM events WHERE id IN (SELECT value FROM json_each($e))
         UNION SELECT origin_session_id FROM details WHERE id IN (SELECT value FROM json_each($d))) LIMIT 1`,
    )
    .get({
      t: JSON.stringify(sel.turnIds),
      e: JSON.stringify(sel.eventIds),
      d: JSON.stringify(sel.looseIds),
    });
  if (published) markRepublish(db);
}

/** Called by forget after it decided which session rows go or lose their title. */
export function recordSessionTombstones(
  db: Database,
  removed: readonly string[],
  untitled: readonly string[],
  now: number,
): void {
  const q = db.query(
    `INSERT INTO sync_tombstones (kind, key, machine, created_at) VALUES ($kind, $key, NULL, $now)
     ON CONFLICT(kind, key) DO NOTHING`,
  );
  for (const key of removed) q.run({ kind: "session", key, now });
  for (const key of untitled) q.run({ kind: "title", key, now });
  if (untitled.length > 0 && db.query("SELECT 1 FROM sync_marks LIMIT 1").get()) markRepublish(db);
}

function markRepublish(db: Database): void {
  db.run(
    "INSERT INTO sync_state (key, value) VALUES ('republish', '1') ON CONFLICT(key) DO UPDATE SET value = '1'",
  );
}

/** Every tombstone this database holds, its own and other machines', as `<kind> <key>`. */
export function tombstoneSet(db: Database): Set<string> {
  const rows = db.query<Tombstone, []>("SELECT kind, key FROM sync_tombstones").all();
  return new Set(rows.map((t) => `${t.kind} ${t.key}`));
}

/** Remove one turn's rows (n = -1: the rows before the transcript's first prompt), children first. */
export function dropTurnGroup(db: Database, origin: string, n: number): number {
  const p = { o: origin, n };
  const turn = "SELECT id FROM turns WHERE origin_session_id = $o AND turn_number = $n";
  let changes = 0;
  const run = (sql: string) => {
    changes += db.query(sql).run(p).changes;
  };
  if (n < 0) {
    run("DELETE FROM details WHERE turn_id IS NULL AND origin_session_id = $o AND $n < 0");
    run("DELETE FROM events WHERE origin_session_id = $o AND turn_number IS NULL AND $n < 0");
    return changes;
  }
  run(`DELETE FROM skeletons WHERE turn_id IN (${turn})`);
  run(`DELETE FROM details WHERE turn_id IN (${turn})`);
  run(`DELETE FROM bodies WHERE turn_id IN (${turn})`);
  run("DELETE FROM events WHERE origin_session_id = $o AND turn_number = $n");
  run("DELETE FROM turns WHERE origin_session_id = $o AND turn_number = $n");
  return changes;
}

/** Apply one tombstone here; returns how many rows it removed. */
export function applyTombstone(db: Database, t: Tombstone): number {
  switch (t.kind) {
    case "turn": {
      const at = t.key.lastIndexOf(":");
      return dropTurnGroup(db, t.key.slice(0, at), Number(t.key.slice(at + 1)));
    }
    case "event":
      return db.query("DELETE FROM events WHERE ikey = $k").run({ k: t.key }).changes;
    case "detail":
      return db.query("DELETE FROM details WHERE ikey = $k").run({ k: t.key }).changes;
    case "title":
      return db
        .query("UPDATE sessions SET title = NULL WHERE id = $k AND title IS NOT NULL")
        .run({ k: t.key }).changes;
    case "session": {
      // Only a session nothing of which is left, and that holds no chain together.
      dropEmptySpans(db, [t.key]);
      return db
        .query(
          `DELETE FROM sessions WHERE id = $k
             AND NOT EXISTS (SELECT 1 FROM turns WHERE origin_session_id = $k OR session_id = sessions.chain)
             AND NOT EXISTS (SELECT 1 FROM events WHERE origin_session_id = $k)
             AND NOT EXISTS (SELECT 1 FROM sessions m WHERE m.merged_into = $k)`,
        )
        .run({ k: t.key }).changes;
    }
  }
}

/** Another machine's tombstones, kept so that none of its rows is ever written again. */
export function keepTombstones(
  db: Database,
  machine: string,
  items: readonly Tombstone[],
  now: number,
): void {
  const q = db.query(
    `INSERT INTO sync_tombstones (kind, key, machine, created_at, published) VALUES ($kind, $key, $machine, $now, 1)
     ON CONFLICT(kind, key) DO NOTHING`,
  );
  for (const t of items) q.run({ kind: t.kind, key: t.key, machine, now });
}

/** Whether a tombstone hit something this machine already published (it must republish). */
export function hitsOwnPublished(db: Database, t: Tombstone): boolean {
  if (t.kind === "turn") {
    const at = t.key.lastIndexOf(":");
    return (
      db
        .query("SELECT 1 FROM sync_sent WHERE origin = $o AND n = $n")
        .get({ o: t.key.slice(0, at), n: Number(t.key.slice(at + 1)) }) !== null
    );
  }
  if (t.kind === "title")
    return db.query("SELECT 1 FROM sync_marks WHERE session_id = $k").get({ k: t.key }) !== null;
  return false;
}

export function optimizeIndexes(db: Database): void {
  db.run("INSERT INTO bodies_fts(bodies_fts) VALUES ('optimize')");
  db.run("INSERT INTO details_fts(details_fts) VALUES ('optimize')");
  db.run("INSERT INTO events_fts(events_fts) VALUES ('optimize')");
}

export function seenHash(db: Database, origin: string, n: number): string | null {
  return (
    db
      .query<{ hash: string }, { o: string; n: number }>(
        "SELECT hash FROM sync_seen WHERE origin = $o AND n = $n",
      )
      .get({ o: origin, n })?.hash ?? null
  );
}

export function setSeen(db: Database, origin: string, n: number, hash: string): void {
  db.query(
    "INSERT INTO sync_seen (origin, n, hash) VALUES ($o, $n, $hash) ON CONFLICT(origin, n) DO UPDATE SET hash = excluded.hash",
  ).run({ o: origin, n, hash });
}

/** A session of another machine: its identity kept so that a later clone here can adopt it. */
export function markForeign(
  db: Database,
  f: { session_id: string; machine: string; project_key: string | null; project: string | null },
): void {
  db.query(
    `INSERT INTO sync_foreign (session_id, machine, project_key, project) VALUES ($session_id, $machine, $project_key, $project)
     ON CONFLICT(session_id) DO UPDATE SET project_key = excluded.project_key, project = excluded.project`,
  ).run(f);
}

export function isOwnSession(db: Database, id: string): boolean {
  return (
    db.query("SELECT 1 FROM sessions WHERE id = $id").get({ id }) !== null &&
    db.query("SELECT 1 FROM sync_foreign WHERE session_id = $id").get({ id }) === null
  );
}

export function appliedFiles(db: Database, machine: string): Set<string> {
  const rows = db
    .query<{ name: string }, { m: string }>("SELECT name FROM sync_applied WHERE machine = $m")
    .all({ m: machine });
  return new Set(rows.map((r) => r.name));
}

export function markApplied(db: Database, machine: string, name: string): void {
  db.query("INSERT OR IGNORE INTO sync_applied (machine, name) VALUES ($m, $name)").run({ m: machine, name });
}

/** Forget applied names a machine's branch no longer holds (it republished). */
export function pruneApplied(db: Database, machine: string, names: ReadonlySet<string>): void {
  for (const name of appliedFiles(db, machine))
    if (!names.has(name))
      db.query("DELETE FROM sync_applied WHERE machine = $m AND name = $name").run({ m: machine, name });
}

/**
 * File other machines' sessions (and their events) under this machine's directory of the same
 * project: the one whose identity matches, the most recently active when there are several.
 */
export function adoptProjects(db: Database): number {
  const target = `(SELECT s.project FROM sync_projects p JOIN sessions s ON s.project = p.path
                   WHERE p.key = f.project_key
                     AND NOT EXISTS (SELECT 1 FROM sync_foreign g WHERE g.session_id = s.id)
                   ORDER BY s.updated_at DESC LIMIT 1)`;
  const local = `(SELECT p.path FROM sync_projects p WHERE p.key = f.project_key ORDER BY p.checked_at DESC, p.path LIMIT 1)`;
  const pick = `coalesce(${target}, ${local}, f.project)`;
  const moved = db.run(
    `UPDATE sessions SET project = (SELECT ${pick} FROM sync_foreign f WHERE f.session_id = sessions.id)
     WHERE id IN (SELECT session_id FROM sync_foreign)
       AND project IS NOT (SELECT ${pick} FROM sync_foreign f WHERE f.session_id = sessions.id)`,
  ).changes;
  db.run(
    `UPDATE events SET project = (SELECT s.project FROM sessions s WHERE s.id = events.origin_session_id)
     WHERE origin_session_id IN (SELECT session_id FROM sync_foreign)
       AND project IS NOT (SELECT s.project FROM sessions s WHERE s.id = events.origin_session_id)`,
  );
  return moved;
}

/** Another machine's baton, taken in once: it counts from when it arrived here. */
export function takeBaton(
  db: Database,
  b: { project: string; session_id: string; created_at: number },
  now: number,
): boolean {
  const fresh = db
    .query("INSERT OR IGNORE INTO sync_batons (session_id, created_at) VALUES ($session_id, $created_at)")
    .run({ session_id: b.session_id, created_at: b.created_at }).changes;
  if (fresh === 0) return false;
  db.query(
    `INSERT INTO handoff_batons (project, session_id, created_at) VALUES ($project, $session_id, $now)
     ON CONFLICT(project) DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at`,
  ).run({ project: b.project, session_id: b.session_id, now });
  return true;
}

/** This machine's directory of the project another machine names by `key` (null: none here). */
export function localProjectOf(db: Database, key: string | null): string | null {
  if (key === null) return null;
  const own = db
    .query<{ p: string }, { key: string }>(
      `SELECT s.project AS p FROM sync_projects p JOIN sessions s ON s.project = p.path
       WHERE p.key = $key AND NOT EXISTS (SELECT 1 FROM sync_foreign g WHERE g.session_id = s.id)
       ORDER BY s.updated_at DESC LIMIT 1`,
    )
    .get({ key });
  if (own) return own.p;
  return (
    db
      .query<{ p: string }, { key: string }>(
        "SELECT path AS p FROM sync_projects WHERE key = $key ORDER BY checked_at DESC, path LIMIT 1",
      )
      .get({ key })?.p ?? null
  );
}

export function sessionExists(db: Database, id: string): boolean {
  return db.query("SELECT 1 FROM sessions WHERE id = $id").get({ id }) !== null;
}
