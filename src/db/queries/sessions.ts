import type { Database } from "bun:sqlite";
import { redact } from "../../core/redact.ts";

export interface SessionRow {
  id: string;
  project: string | null;
  transcript_path: string | null;
  created_at: number;
  updated_at: number;
  merged_into: string | null;
  title: string | null;
}

export interface SessionUpsert {
  id: string;
  project: string | null;
  transcriptPath: string | null;
  createdAt: number;
  updatedAt: number;
  title?: string | null;
}

/** Insert or refresh a session; `created_at` only ever moves earlier, `updated_at` only later. */
export function upsertSession(db: Database, s: SessionUpsert): void {
  db.query(
    `INSERT INTO sessions (id, project, transcript_path, created_at, updated_at, title)
     VALUES ($id, $project, $path, $created, $updated, $title)
     ON CONFLICT(id) DO UPDATE SET
       project = coalesce(excluded.project, sessions.project),
       transcript_path = coalesce(excluded.transcript_path, sessions.transcript_path),
       created_at = min(sessions.created_at, excluded.created_at),
       updated_at = max(sessions.updated_at, excluded.updated_at),
       title = coalesce(excluded.title, sessions.title)`,
  ).run({
    id: s.id,
    project: s.project,
    path: s.transcriptPath,
    created: s.createdAt,
    updated: s.updatedAt,
    title: s.title ?? null,
  });
}

export function getSession(db: Database, id: string): SessionRow | null {
  return db.query<SessionRow, { id: string }>("SELECT * FROM sessions WHERE id = $id").get({ id });
}

export const MAX_CHAIN_HOPS = 1000;

/**
 * Follow `merged_into` to the live end of a chain. Bounded: a cycle (which merge never
 * creates, but a damaged database might hold) stops at the first repeated id.
 */
export function resolveLive(db: Database, id: string): { id: string; cycle: boolean } {
  const q = db.query<{ merged_into: string | null }, { id: string }>(
    "SELECT merged_into FROM sessions WHERE id = $id",
  );
  const seen = new Set<string>([id]);
  let cur = id;
  for (let i = 0; i < MAX_CHAIN_HOPS; i++) {
    const next = q.get({ id: cur })?.merged_into;
    if (!next) return { id: cur, cycle: false };
    if (seen.has(next)) return { id: cur, cycle: true };
    seen.add(next);
    cur = next;
  }
  return { id: cur, cycle: true };
}

export function recordHookError(
  db: Database,
  event: string,
  sessionId: string | null,
  message: string,
  now: number,
): void {
  db.query(
    "INSERT INTO hook_errors (event, session_id, message, created_at) VALUES ($event, $sid, $msg, $now)",
  ).run({
    event,
    sid: sessionId,
    // An error can quote its input (a path, a command line): stored redacted like everything else.
    msg: redact(message),
    now,
  });
}
