import type { Database } from "bun:sqlite";

export interface SessionRow {
  id: string;
  project: string | null;
  transcript_path: string | null;
  created_at: number;
  updated_at: number;
  merged_into: string | null;
  title: string | null;
  /** 'codex' for a Codex session; null is Claude Code (schema 14, docs/hosts.md). */
  host?: string | null;
}

export interface SessionUpsert {
  id: string;
  project: string | null;
  transcriptPath: string | null;
  createdAt: number;
  updatedAt: number;
  title?: string | null;
  /** Which agent wrote its transcript; "claude" is stored as NULL. Set once, never cleared. */
  host?: "claude" | "codex";
}

/**
 * Insert or refresh a session; `created_at` only ever moves earlier, `updated_at` only later, and
 * a project once set is kept: a session's project is where it started (docs/project-identity.md),
 * while a hook's `cwd` is where the session is now. Only `setSessionProject` moves it.
 */
export function upsertSession(db: Database, s: SessionUpsert): void {
  db.query(
    `INSERT INTO sessions (id, project, transcript_path, created_at, updated_at, title, host)
     VALUES ($id, $project, $path, $created, $updated, $title, $host)
     ON CONFLICT(id) DO UPDATE SET
       project = coalesce(sessions.project, excluded.project),
       transcript_path = coalesce(excluded.transcript_path, sessions.transcript_path),
       created_at = min(sessions.created_at, excluded.created_at),
       updated_at = max(sessions.updated_at, excluded.updated_at),
       title = coalesce(excluded.title, sessions.title),
       host = coalesce(sessions.host, excluded.host)`,
  ).run({
    id: s.id,
    project: s.project,
    path: s.transcriptPath,
    created: s.createdAt,
    updated: s.updatedAt,
    title: s.title ?? null,
    host: s.host === "codex" ? "codex" : null,
  });
}

/** The project a session is filed under, or null (unknown session, or none recorded yet). */
export function sessionProject(db: Database, id: string): string | null {
  return (
    db
      .query<{ project: string | null }, { id: string }>("SELECT project FROM sessions WHERE id = $id")
      .get({ id })?.project ?? null
  );
}

/**
 * File a session, and the events it originated, under `project`: the identity of its first
 * working directory, read from its transcript (docs/project-identity.md). The ingest of a
 * transcript from byte 0 and migration 7 call it; hooks never do.
 */
export function setSessionProject(db: Database, id: string, project: string): void {
  db.query("UPDATE sessions SET project = $p WHERE id = $id AND project IS NOT $p").run({ id, p: project });
  db.query("UPDATE events SET project = $p WHERE origin_session_id = $id AND project IS NOT $p").run({
    id,
    p: project,
  });
}

export function getSession(db: Database, id: string): SessionRow | null {
  return db.query<SessionRow, { id: string }>("SELECT * FROM sessions WHERE id = $id").get({ id });
}

export const MAX_CHAIN_HOPS = 1000;

/**
 * The rows of a chain (turns, events) are keyed on the chain, not on its live end, so a merge
 * moves no row (docs/architecture.md, "Chains"). Every session of a chain carries the key; a
 * session the database does not know is its own chain. This is the SQL for "the key of the chain
 * holding session `param`", for queries bound with any session id of the chain.
 */
export function chainKeyOf(param: string): string {
  return `coalesce((SELECT chain FROM sessions WHERE id = ${param}), ${param})`;
}

/** SQL for the live end of the chain stored under key `expr` (the key itself when none is known). */
export function liveOfKey(expr: string): string {
  return `coalesce((SELECT id FROM sessions WHERE chain = ${expr} AND merged_into IS NULL
                    ORDER BY updated_at DESC LIMIT 1), ${expr})`;
}

/** The live end of the chain stored under `key`. */
export function liveEnd(db: Database, key: string): string {
  return db.query<{ id: string }, { k: string }>(`SELECT ${liveOfKey("$k")} AS id`).get({ k: key })!.id;
}

/** A session's `sessions.host` ('codex', or null for Claude Code and a session not stored). */
export function sessionHost(db: Database, id: string): string | null {
  return (
    db.query<{ host: string | null }, { id: string }>("SELECT host FROM sessions WHERE id = $id").get({ id })
      ?.host ?? null
  );
}

/** The key under which the chain holding session `id` stores its rows. */
export function chainKey(db: Database, id: string): string {
  return db.query<{ k: string }, { id: string }>(`SELECT ${chainKeyOf("$id")} AS k`).get({ id })!.k;
}

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

/**
 * SQL for the last activity of the chain stored under key `expr`: when its newest captured turn
 * ended, a time the transcript itself records (core/transcript-blocks.ts `activityTime`), never
 * when a hook or an import wrote the row (`sessions.updated_at`); null before its first turn.
 * One index seek (`turns_session_started`) and one row.
 */
export function lastActivityOf(expr: string): string {
  return `(SELECT t.ended_at FROM turns t WHERE t.session_id = ${expr}
           ORDER BY t.started_at DESC, t.origin_session_id DESC, t.turn_number DESC LIMIT 1)`;
}

export interface RecentSession {
  id: string;
  project: string | null;
  /** When a hook or an import last wrote the row: not the session's activity. */
  updated_at: number;
  /** The chain's last activity (lastActivityOf); null before its first turn. */
  last_activity: number | null;
  turns: number;
  merged_into: string | null;
}

/** The live ends of chains, most recently active first (those without a turn last). */
export function recentSessions(db: Database, limit: number): RecentSession[] {
  return db
    .query<RecentSession, { limit: number }>(
      `SELECT s.id, s.project, s.updated_at, s.merged_into, ${lastActivityOf("s.chain")} AS last_activity,
              (SELECT count(*) FROM turns t WHERE t.session_id = s.chain) AS turns
       FROM sessions s WHERE s.merged_into IS NULL
       ORDER BY last_activity IS NULL, last_activity DESC, s.updated_at DESC, s.id LIMIT $limit`,
    )
    .all({ limit });
}

/** Sessions whose rows now live in `live`, by origin, oldest first. */
export function chainOf(db: Database, live: string): { id: string; turns: number; created_at: number }[] {
  return db
    .query<{ id: string; turns: number; created_at: number }, { live: string }>(
      `SELECT s.id, (SELECT count(*) FROM turns t WHERE t.origin_session_id = s.id) AS turns, s.created_at
       FROM sessions s
       WHERE s.id = $live OR s.id IN (SELECT DISTINCT origin_session_id FROM turns WHERE session_id = ${chainKeyOf("$live")})
       ORDER BY s.created_at, s.id`,
    )
    .all({ live });
}

/** Up to five session ids that start with `prefix`. */
export function sessionsByPrefix(db: Database, prefix: string): string[] {
  return db
    .query<{ id: string }, { p: string }>(
      "SELECT id FROM sessions WHERE substr(id, 1, length($p)) = $p ORDER BY id LIMIT 5",
    )
    .all({ p: prefix })
    .map((r) => r.id);
}

/** Sessions merged (directly) into `id`: its predecessors. */
export function mergedInto(db: Database, id: string): string[] {
  return db
    .query<{ id: string }, { id: string }>(
      "SELECT id FROM sessions WHERE merged_into = $id ORDER BY created_at",
    )
    .all({ id })
    .map((r) => r.id);
}
