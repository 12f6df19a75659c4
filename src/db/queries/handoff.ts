import type { Database } from "bun:sqlite";
import type { ContextStats } from "../../core/context.ts";
import {
  type BatonRow,
  type ChosenBy,
  type ClearLink,
  type HandoffPath,
  LINK_WINDOW_MS,
} from "../../core/handoff.ts";
import { markPending } from "../marks/pending.ts";
import { chainKey } from "./sessions.ts";

export interface PendingRow {
  session_id: string;
  project: string | null;
  source: string | null;
  predecessor: string | null;
  created_at: number;
  /** The client process that started the session (`pid:<n>`), when known. */
  client: string | null;
  prompt_id: string | null;
  /** How `predecessor` was chosen at SessionStart (`link` or `fallback`), and why. */
  chosen_by: "link" | "fallback" | null;
  evidence: string | null;
}

/** A second SessionStart for the same id keeps what the first one found, unless it found more. */
export function insertPending(
  db: Database,
  p: Omit<PendingRow, "client" | "prompt_id" | "chosen_by" | "evidence"> & Partial<PendingRow>,
): void {
  // The mark first: a committed row must never lack one (src/db/marks/).
  markPending(db, p.session_id);
  db.query(
    `INSERT INTO pending_handoffs
       (session_id, project, source, predecessor, created_at, client, prompt_id, chosen_by, evidence)
     VALUES ($session_id, $project, $source, $predecessor, $created_at, $client, $prompt_id, $chosen_by, $evidence)
     ON CONFLICT(session_id) DO UPDATE SET project = excluded.project, source = excluded.source,
       predecessor = coalesce(excluded.predecessor, pending_handoffs.predecessor),
       chosen_by = CASE WHEN excluded.predecessor IS NULL THEN pending_handoffs.chosen_by ELSE excluded.chosen_by END,
       evidence = CASE WHEN excluded.predecessor IS NULL THEN pending_handoffs.evidence ELSE excluded.evidence END,
       client = coalesce(excluded.client, pending_handoffs.client),
       prompt_id = coalesce(excluded.prompt_id, pending_handoffs.prompt_id)`,
  ).run({ client: null, prompt_id: null, chosen_by: null, evidence: null, ...p });
}

/**
 * SessionEnd(reason "clear"): remember who cleared which session, for its successor. Once: a link
 * folded again from its mark (a fold whose unlink did not happen) adds nothing.
 */
export function insertClearLink(
  db: Database,
  l: {
    session_id: string;
    project: string | null;
    client: string | null;
    prompt_id: string | null;
    created_at: number;
  },
): void {
  db.query(
    `INSERT INTO clear_links (session_id, project, client, prompt_id, created_at)
     SELECT $session_id, $project, $client, $prompt_id, $created_at
     WHERE NOT EXISTS (SELECT 1 FROM clear_links WHERE session_id = $session_id AND created_at = $created_at)`,
  ).run({ ...l });
  // Links matter for seconds; a day of them is plenty for diagnosis.
  db.query("DELETE FROM clear_links WHERE created_at < $cutoff").run({ cutoff: l.created_at - 86_400_000 });
}

/**
 * SessionEnd(clear) rows that could link to a session born at `bornAt`: the same prompt_id, or
 * within the link window for the same client or project. Indexed lookups, a handful of rows.
 */
export function clearLinksNear(
  db: Database,
  q: { bornAt: number; client: string | null; promptId: string | null; project: string | null },
): ClearLink[] {
  return db
    .query<
      ClearLink,
      { from: number; to: number; client: string | null; prompt: string | null; project: string | null }
    >(
      `SELECT l.session_id, l.project, l.client, l.prompt_id, l.created_at, s.created_at AS session_created_at,
              s.merged_into
       FROM clear_links l LEFT JOIN sessions s ON s.id = l.session_id
       WHERE l.id IN (
         SELECT id FROM clear_links WHERE prompt_id = $prompt
         UNION SELECT id FROM clear_links WHERE client = $client AND created_at BETWEEN $from AND $to
         UNION SELECT id FROM clear_links WHERE project = $project AND created_at BETWEEN $from AND $to)
       ORDER BY l.created_at DESC LIMIT 20`,
    )
    .all({
      from: q.bornAt - LINK_WINDOW_MS,
      to: q.bornAt + LINK_WINDOW_MS,
      client: q.client,
      prompt: q.promptId,
      project: q.project,
    });
}

/** Predecessors other pending sessions already froze (another window's /clear took them). */
export function claimedPredecessors(db: Database, self: string): Set<string> {
  return new Set(
    db
      .query<{ p: string }, { self: string }>(
        "SELECT predecessor AS p FROM pending_handoffs WHERE predecessor IS NOT NULL AND session_id != $self",
      )
      .all({ self })
      .map((r) => r.p),
  );
}

/** The hot-path lookup every prompt pays: one primary-key probe. */
export function getPending(db: Database, sessionId: string): PendingRow | null {
  return db
    .query<PendingRow, { id: string }>("SELECT * FROM pending_handoffs WHERE session_id = $id")
    .get({ id: sessionId });
}

/** Whether a handoff was recorded for the session at or after `since` (its intent is spent). */
export function handedOverSince(db: Database, sessionId: string, since: number): boolean {
  return (
    db
      .query<{ n: number }, { id: string; since: number }>(
        "SELECT count(*) AS n FROM handoffs WHERE session_id = $id AND created_at >= $since",
      )
      .get({ id: sessionId, since })!.n > 0
  );
}

export function deletePending(db: Database, sessionId: string): void {
  db.query("DELETE FROM pending_handoffs WHERE session_id = $id").run({ id: sessionId });
}

/**
 * The last fallback for an automatic handoff on /clear, when no SessionEnd(clear) links: the
 * most recently updated live sessions of the project other than the new one (the caller keeps
 * the first whose transcript exists: a ghost session has none).
 */
export function predecessorCandidates(
  db: Database,
  project: string,
  self: string,
): { id: string; transcript_path: string | null; created_at: number; updated_at: number }[] {
  return db
    .query<
      { id: string; transcript_path: string | null; created_at: number; updated_at: number },
      { project: string; self: string }
    >(
      `SELECT id, transcript_path, created_at, updated_at FROM sessions
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
/**
 * Merge the chain whose live end is `from` into session `to`, which becomes its live end. The
 * chain's rows stay where they are: `to` (and whatever chain it already held, usually none)
 * takes the chain's key, so a merge costs the same for 1,000 turns as for one
 * (docs/architecture.md, "Chains"). Returns the number of turns the chain now holds.
 */
export function mergeChain(db: Database, from: string, to: string): number {
  const key = chainKey(db, from);
  const own = chainKey(db, to);
  if (own !== key) {
    db.query("UPDATE sessions SET chain = $key WHERE chain = $own").run({ key, own });
    db.query("UPDATE turns SET session_id = $key WHERE session_id = $own").run({ key, own });
    db.query("UPDATE events SET session_id = $key WHERE session_id = $own").run({ key, own });
    // Loaded here: a prompt without a handoff never merges (test/hooks/import-graph.test.ts).
    (require("./spans.ts") as typeof import("./spans.ts")).moveSpans(db, own, key);
  }
  // A `to` the database has no row for yet still needs one to carry the key.
  db.query(
    `INSERT INTO sessions (id, project, created_at, updated_at, chain)
     SELECT $to, project, created_at, updated_at, $key FROM sessions WHERE id = $from
     ON CONFLICT(id) DO NOTHING`,
  ).run({ from, to, key });
  db.query("UPDATE sessions SET merged_into = $to WHERE id = $from").run({ from, to });
  return db
    .query<{ n: number }, { key: string }>("SELECT count(*) AS n FROM turns WHERE session_id = $key")
    .get({ key })!.n;
}

export interface HandoffRow {
  session_id: string;
  path: HandoffPath;
  predecessor: string | null;
  reason: string | null;
  created_at: number;
  /** link | baton | fallback | none; null for handoffs recorded before this was kept. */
  chosen_by: ChosenBy | null;
  evidence: string | null;
}

export function recordHandoff(db: Database, h: HandoffRow): void {
  db.query(
    `INSERT INTO handoffs (session_id, path, predecessor, reason, created_at, chosen_by, evidence)
     VALUES ($session_id, $path, $predecessor, $reason, $created_at, $chosen_by, $evidence)`,
  ).run({ ...h });
}

const HANDOFF_COLUMNS = "session_id, path, predecessor, reason, created_at, chosen_by, evidence";

export function lastHandoff(db: Database, sessionId: string): HandoffRow | null {
  return db
    .query<HandoffRow, { id: string }>(
      `SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE session_id = $id ORDER BY id DESC LIMIT 1`,
    )
    .get({ id: sessionId });
}

/** Every handoff recorded for a session, oldest first (normally one). */
export function handoffsOf(db: Database, sessionId: string): HandoffRow[] {
  return db
    .query<HandoffRow, { id: string }>(
      `SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE session_id = $id ORDER BY id`,
    )
    .all({ id: sessionId });
}

/** The SessionEnd(clear) rows recorded for a session (what its successor could link to). */
export type ClearLinkRow = Omit<ClearLink, "session_created_at" | "merged_into">;

export function clearLinksOf(db: Database, sessionId: string): ClearLinkRow[] {
  return db
    .query<ClearLinkRow, { id: string }>(
      "SELECT session_id, project, client, prompt_id, created_at FROM clear_links WHERE session_id = $id ORDER BY id",
    )
    .all({ id: sessionId });
}

/** One push: the stats of docs/contract.md#the-push, as stored (SQLite has no boolean). */
export type InjectionRow = Omit<ContextStats, "truncated_newest"> & {
  session_id: string;
  created_at: number;
  truncated_newest: number;
  /** What the push was for: a handoff (the default) or a compaction. */
  moment?: "handoff" | "compaction";
  /** 1 when the handoff printed the push the Stop worker had prepared (docs/contract.md, "The prepared push"). */
  prepared?: number;
};

export function recordInjection(db: Database, r: InjectionRow): void {
  db.query(
    `INSERT INTO injections (session_id, created_at, total_chars, budget, injected_turns, remaining_turns, older_turns,
       older_summarized, truncated_newest, boundary, moment, prepared)
     VALUES ($session_id, $created_at, $total_chars, $budget, $injected_turns, $remaining_turns, $older_turns,
       $older_summarized, $truncated_newest, $boundary, $moment, $prepared)`,
  ).run({ moment: "handoff", prepared: 0, ...r });
}

/** When this session last got a push after a compaction; null when it never did. */
export function lastCompactionPush(db: Database, sessionId: string): number | null {
  return (
    db
      .query<{ at: number | null }, { id: string }>(
        "SELECT max(created_at) AS at FROM injections WHERE session_id = $id AND moment = 'compaction'",
      )
      .get({ id: sessionId })?.at ?? null
  );
}

/** Whether this session's compaction push made at `at` is recorded (its follow-up may have run). */
export function hasCompactionPush(db: Database, sessionId: string, at: number): boolean {
  return (
    db
      .query<{ n: number }, { id: string; at: number }>(
        "SELECT count(*) AS n FROM injections WHERE session_id = $id AND moment = 'compaction' AND created_at = $at",
      )
      .get({ id: sessionId, at })?.n !== 0
  );
}

export function lastInjection(db: Database, sessionId: string): InjectionRow | null {
  return db
    .query<InjectionRow, { id: string }>(
      `SELECT session_id, created_at, total_chars, budget, injected_turns, remaining_turns, older_turns, older_summarized,
              truncated_newest, boundary FROM injections WHERE session_id = $id ORDER BY id DESC LIMIT 1`,
    )
    .get({ id: sessionId });
}
