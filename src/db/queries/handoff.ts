import type { Database } from "bun:sqlite";
import type { ContextStats } from "../../core/context.ts";
import type { BatonRow, HandoffPath } from "../../core/handoff.ts";

export interface PendingRow {
  session_id: string;
  project: string | null;
  source: string | null;
  predecessor: string | null;
  created_at: number;
}

export function insertPending(db: Database, p: PendingRow): void {
  db.query(
    `INSERT INTO pending_handoffs (session_id, project, source, predecessor, created_at)
     VALUES ($session_id, $project, $source, $predecessor, $created_at)
     ON CONFLICT(session_id) DO UPDATE SET project = excluded.project, source = excluded.source,
       predecessor = coalesce(excluded.predecessor, pending_handoffs.predecessor)`,
  ).run({ ...p });
}

/** The hot-path lookup every prompt pays: one primary-key probe. */
export function getPending(db: Database, sessionId: string): PendingRow | null {
  return db
    .query<PendingRow, { id: string }>("SELECT * FROM pending_handoffs WHERE session_id = $id")
    .get({ id: sessionId });
}

export function deletePending(db: Database, sessionId: string): void {
  db.query("DELETE FROM pending_handoffs WHERE session_id = $id").run({ id: sessionId });
}

/**
 * Predecessor for an automatic handoff on /clear: the most recently updated live session of
 * the project, other than the new one, whose transcript exists (a ghost session has none).
 */
export function predecessorCandidates(
  db: Database,
  project: string,
  self: string,
): { id: string; transcript_path: string | null }[] {
  return db
    .query<{ id: string; transcript_path: string | null }, { project: string; self: string }>(
      `SELECT id, transcript_path FROM sessions
       WHERE project = $project AND id != $self AND merged_into IS NULL
       ORDER BY updated_at DESC LIMIT 20`,
    )
    .all({ project, self });
}

export function getBaton(db: Database, project: string): BatonRow | null {
  return db
    .query<BatonRow, { project: string }>("SELECT * FROM handoff_batons WHERE project = $project")
    .get({ project });
}

export function putBaton(db: Database, b: BatonRow): void {
  db.query(
    `INSERT INTO handoff_batons (project, session_id, created_at) VALUES ($project, $session_id, $created_at)
     ON CONFLICT(project) DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at`,
  ).run({ ...b });
}

export function deleteBaton(db: Database, project: string): void {
  db.query("DELETE FROM handoff_batons WHERE project = $project").run({ project });
}

/**
 * Re-parent a whole chain: every memory row of `from` now belongs to `to`; origins are kept.
 * Bodies and details follow their turn, so only turn and event rows are rewritten.
 */
export function mergeChain(db: Database, from: string, to: string): number {
  const moved = db
    .query("UPDATE turns SET session_id = $to WHERE session_id = $from")
    .run({ from, to }).changes;
  db.query("UPDATE events SET session_id = $to WHERE session_id = $from").run({ from, to });
  db.query("UPDATE sessions SET merged_into = $to WHERE id = $from").run({ from, to });
  return moved;
}

export function recordHandoff(
  db: Database,
  h: {
    session_id: string;
    path: HandoffPath;
    predecessor: string | null;
    reason: string | null;
    created_at: number;
  },
): void {
  db.query(
    `INSERT INTO handoffs (session_id, path, predecessor, reason, created_at)
     VALUES ($session_id, $path, $predecessor, $reason, $created_at)`,
  ).run({ ...h });
}

export interface HandoffRow {
  session_id: string;
  path: HandoffPath;
  predecessor: string | null;
  reason: string | null;
  created_at: number;
}

export function lastHandoff(db: Database, sessionId: string): HandoffRow | null {
  return db
    .query<HandoffRow, { id: string }>(
      "SELECT session_id, path, predecessor, reason, created_at FROM handoffs WHERE session_id = $id ORDER BY id DESC LIMIT 1",
    )
    .get({ id: sessionId });
}

/** One push: the stats of SPEC §4.4, as stored (SQLite has no boolean). */
export type InjectionRow = Omit<ContextStats, "truncated_newest"> & {
  session_id: string;
  created_at: number;
  truncated_newest: number;
};

export function recordInjection(db: Database, r: InjectionRow): void {
  db.query(
    `INSERT INTO injections (session_id, created_at, total_chars, budget, injected_turns, remaining_turns, older_turns,
       older_summarized, truncated_newest, boundary)
     VALUES ($session_id, $created_at, $total_chars, $budget, $injected_turns, $remaining_turns, $older_turns,
       $older_summarized, $truncated_newest, $boundary)`,
  ).run({ ...r });
}

export function lastInjection(db: Database, sessionId: string): InjectionRow | null {
  return db
    .query<InjectionRow, { id: string }>(
      `SELECT session_id, created_at, total_chars, budget, injected_turns, remaining_turns, older_turns, older_summarized,
              truncated_newest, boundary FROM injections WHERE session_id = $id ORDER BY id DESC LIMIT 1`,
    )
    .get({ id: sessionId });
}
