/**
 * The prepared push (docs/contract.md, "The prepared push"): the Stop worker renders what a
 * successor of its chain would be pushed, with a placeholder for the successor's id; the handoff
 * prints it when the content generation has not moved since. Rows are few and small: one per
 * live end that had a Stop, the newest PREPARED_MAX kept.
 */
import type { Database } from "bun:sqlite";
import type { ContextStats } from "../../core/context.ts";

/** Windows open at once rarely exceed a handful; older rows would only ever be stale. */
export const PREPARED_MAX = 16;

export interface PreparedRow {
  session_id: string;
  generation: number;
  version: string;
  invocation: string;
  placeholder: string;
  text: string;
  stats: ContextStats;
  created_at: number;
}

/** Raised by the triggers of migration 10 on every change a push is rendered from. */
export function contentGeneration(db: Database): number {
  return db.query<{ n: number }, []>("SELECT n FROM content_generation WHERE id = 1").get()?.n ?? 0;
}

export function putPrepared(db: Database, r: PreparedRow): void {
  db.query(
    `INSERT INTO prepared_pushes (session_id, generation, version, invocation, placeholder, text, stats, created_at)
     VALUES ($session_id, $generation, $version, $invocation, $placeholder, $text, $stats, $created_at)
     ON CONFLICT(session_id) DO UPDATE SET generation = excluded.generation, version = excluded.version,
       invocation = excluded.invocation, placeholder = excluded.placeholder, text = excluded.text,
       stats = excluded.stats, created_at = excluded.created_at`,
  ).run({ ...r, stats: JSON.stringify(r.stats) });
  // The row just written stays, whatever the clock says of the others.
  db.query(
    `DELETE FROM prepared_pushes WHERE session_id <> $id AND session_id NOT IN
       (SELECT session_id FROM prepared_pushes WHERE session_id <> $id
        ORDER BY created_at DESC, session_id LIMIT $keep)`,
  ).run({ id: r.session_id, keep: PREPARED_MAX - 1 });
}

export function getPrepared(db: Database, sessionId: string): PreparedRow | null {
  const row = db
    .query<Omit<PreparedRow, "stats"> & { stats: string }, { id: string }>(
      `SELECT session_id, generation, version, invocation, placeholder, text, stats, created_at
       FROM prepared_pushes WHERE session_id = $id`,
    )
    .get({ id: sessionId });
  if (!row) return null;
  try {
    return { ...row, stats: JSON.parse(row.stats) as ContextStats };
  } catch {
    return null; // a damaged row is only a missed shortcut: the push is rendered
  }
}

/** Every prepared push (forget: they are renders of turns, and any of them may hold the forgotten text). */
export function deleteAllPrepared(db: Database): void {
  db.run("DELETE FROM prepared_pushes");
}

export function deletePrepared(db: Database, sessionId: string): void {
  db.query("DELETE FROM prepared_pushes WHERE session_id = $id").run({ id: sessionId });
}
