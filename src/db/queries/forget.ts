/**
 * `throughline forget` (docs/memory-control.md): which rows a selection names, and deleting
 * them so that their bytes leave the database file and the WAL. Three steps do that:
 *  1. the rows go, in one IMMEDIATE transaction (the selection is read again under the lock);
 *  2. each full-text index is rebuilt into one segment with FTS5 'optimize': the indexes are
 *     contentless with `contentless_delete`, where a DELETE only adds a tombstone and the old
 *     terms stay in the segment b-tree until a merge rewrites it;
 *  3. VACUUM rewrites every page (freed pages and the free space inside pages held the text,
 *     and so did older copies of rows rewritten by earlier captures), then
 *     `wal_checkpoint(TRUNCATE)` empties the WAL, whose old frames held copies too.
 * `PRAGMA secure_delete` alone is not enough: it zeroes what this connection frees, not the
 * stale copies earlier writes left behind; test/commands/forget.test.ts shows both.
 */

import type { Database } from "bun:sqlite";
import { moveForkPoints } from "./forks.ts";
import { deleteAllPrepared } from "./prepared.ts";
import { dropEmptySpans } from "./spans.ts";
import { recordForgetTombstones, recordSessionTombstones } from "./sync-apply.ts";

/** Every given part must hold (they narrow each other); at least one is given. */
export interface ForgetSelector {
  /** A session's own turns (its origin id), not the rest of its chain. */
  session: string | null;
  /** Turns that started before this time (ms). */
  before: number | null;
  /** Every session of this project. */
  project: string | null;
  /** Turns with this text anywhere (prompt, reply, L3, summary, events); case-insensitive for ASCII. */
  match: string | null;
}

export interface ForgetTurn {
  id: number;
  session_id: string;
  origin_session_id: string;
  turn_number: number;
  started_at: number;
  head: string;
}

export interface ForgetCounts {
  turns: number;
  bodies: number;
  details: number;
  events: number;
  summaries: number;
  /** Session rows removed, or stripped of their title where a chain still points at them. */
  sessions: number;
}

export interface ForgetPlan {
  counts: ForgetCounts;
  turns: ForgetTurn[];
  sessions: string[];
}

type Params = Record<string, string | number>;

function params(sel: ForgetSelector): Params {
  const p: Params = {};
  if (sel.session !== null) p.session = sel.session;
  if (sel.before !== null) p.before = sel.before;
  if (sel.project !== null) p.project = sel.project;
  if (sel.match !== null) p.match = sel.match;
  return p;
}

const HAS = (col: string) => `instr(lower(${col}), lower($match)) > 0`;

/** Fixed SQL fragments, one per given part; every value is bound. */
function turnWhere(sel: ForgetSelector): string {
  const parts: string[] = [];
  if (sel.session !== null) parts.push("t.origin_session_id = $session");
  if (sel.before !== null) parts.push("t.started_at < $before");
  if (sel.project !== null)
    parts.push("t.origin_session_id IN (SELECT id FROM sessions WHERE project = $project)");
  if (sel.match !== null)
    parts.push(`(EXISTS (SELECT 1 FROM bodies b WHERE b.turn_id = t.id
                  AND (${HAS("b.text")} OR ${HAS("coalesce(b.final_text, '')")}))
               OR EXISTS (SELECT 1 FROM details d WHERE d.turn_id = t.id
                  AND (${HAS("coalesce(d.tool_name, '')")} OR ${HAS("coalesce(d.input, '')")} OR ${HAS("coalesce(d.output, '')")}))
               OR EXISTS (SELECT 1 FROM skeletons k WHERE k.turn_id = t.id
                  AND (${HAS("coalesce(k.summary, '')")} OR ${HAS("coalesce(k.error, '')")}))
               OR EXISTS (SELECT 1 FROM events e WHERE e.origin_session_id = t.origin_session_id
                  AND e.turn_number = t.turn_number AND (${HAS("e.summary")} OR ${HAS("e.detail")})))`);
  return parts.length ? parts.join(" AND ") : "0";
}

/** Events go with their turn, or on their own when the selection names them directly. */
function eventWhere(sel: ForgetSelector): string {
  const parts: string[] = [];
  if (sel.session !== null) parts.push("e.origin_session_id = $session");
  if (sel.before !== null) parts.push("e.ts < $before");
  if (sel.project !== null)
    parts.push(
      "(e.project = $project OR e.origin_session_id IN (SELECT id FROM sessions WHERE project = $project))",
    );
  if (sel.match !== null) parts.push(`(${HAS("e.summary")} OR ${HAS("e.detail")})`);
  const direct = parts.length ? parts.join(" AND ") : "0";
  return `(${direct}) OR EXISTS (SELECT 1 FROM turns t WHERE t.origin_session_id = e.origin_session_id
            AND t.turn_number = e.turn_number AND ${turnWhere(sel)})`;
}

/** L3 rows with no turn (content before a transcript's first prompt). */
function looseDetailWhere(sel: ForgetSelector): string {
  const parts: string[] = ["d.turn_id IS NULL"];
  if (sel.session !== null) parts.push("d.origin_session_id = $session");
  if (sel.before !== null) parts.push("d.created_at < $before");
  if (sel.project !== null)
    parts.push("d.origin_session_id IN (SELECT id FROM sessions WHERE project = $project)");
  if (sel.match !== null)
    parts.push(
      `(${HAS("coalesce(d.tool_name, '')")} OR ${HAS("coalesce(d.input, '')")} OR ${HAS("coalesce(d.output, '')")})`,
    );
  return parts.join(" AND ");
}

/** Session rows the selection names by id, project or title; their turns are decided above. */
function sessionWhere(sel: ForgetSelector): string {
  const parts: string[] = [];
  if (sel.session !== null) parts.push("s.id = $session");
  if (sel.before !== null) parts.push("s.created_at < $before");
  if (sel.project !== null) parts.push("s.project = $project");
  if (sel.match !== null) parts.push(HAS("coalesce(s.title, '')"));
  return parts.length ? parts.join(" AND ") : "0";
}

function ids(db: Database, sql: string, p: Params): number[] {
  return db
    .query<{ id: number }, Params>(sql)
    .all(p)
    .map((r) => r.id);
}

interface Selection {
  turns: ForgetTurn[];
  eventIds: number[];
  looseDetailIds: number[];
  bodies: number;
  details: number;
  summaries: number;
  /** Origins that lose rows, plus sessions the selection names directly. */
  sessions: string[];
}

function select(db: Database, sel: ForgetSelector): Selection {
  const p = params(sel);
  const turns = db
    .query<ForgetTurn, Params>(
      `SELECT t.id, t.session_id, t.origin_session_id, t.turn_number, t.started_at,
              coalesce((SELECT substr(b.text, 1, 200) FROM bodies b WHERE b.turn_id = t.id AND b.role = 'user'), '') AS head
       FROM turns t WHERE ${turnWhere(sel)}
       ORDER BY t.started_at, t.origin_session_id, t.turn_number`,
    )
    .all(p);
  const eventIds = ids(db, `SELECT e.id FROM events e WHERE ${eventWhere(sel)} ORDER BY e.id`, p);
  const looseDetailIds = ids(
    db,
    `SELECT d.id FROM details d WHERE ${looseDetailWhere(sel)} ORDER BY d.id`,
    p,
  );
  const turnIds = JSON.stringify(turns.map((t) => t.id));
  const count = (sql: string) => db.query<{ n: number }, { ids: string }>(sql).get({ ids: turnIds })!.n;
  const inTurns = "turn_id IN (SELECT value FROM json_each($ids))";
  const origins = db
    .query<{ id: string }, Params & { ids: string; events: string; loose: string }>(
      `SELECT origin_session_id AS id FROM turns WHERE id IN (SELECT value FROM json_each($ids))
       UNION SELECT origin_session_id FROM events WHERE id IN (SELECT value FROM json_each($events))
       UNION SELECT origin_session_id FROM details WHERE id IN (SELECT value FROM json_each($loose))
       UNION SELECT s.id FROM sessions s WHERE ${sessionWhere(sel)}
       ORDER BY 1`,
    )
    .all({ ...p, ids: turnIds, events: JSON.stringify(eventIds), loose: JSON.stringify(looseDetailIds) })
    .map((r) => r.id);
  return {
    turns,
    eventIds,
    looseDetailIds,
    bodies: count(`SELECT count(*) AS n FROM bodies WHERE ${inTurns}`),
    details: count(`SELECT count(*) AS n FROM details WHERE ${inTurns}`),
    summaries: count(`SELECT count(*) AS n FROM skeletons WHERE ${inTurns}`),
    sessions: origins,
  };
}

type FateRow = { id: string; empty: number; linked: number; named: number; titled: number };

/**
 * What `fate` judges each of `ids` by, counting only rows outside `gone` (the selection, while
 * a plan still sees it; nothing once it is deleted): whether anything of the session is left,
 * whether it holds a chain together, whether its title holds the matched text.
 */
function fateRows(
  db: Database,
  sel: ForgetSelector,
  ids: readonly string[],
  gone: { turns: readonly number[]; events: readonly number[]; loose: readonly number[] },
): FateRow[] {
  return db
    .query<FateRow, Params & { ids: string; turns: string; events: string; loose: string }>(
      `SELECT s.id,
              NOT EXISTS (SELECT 1 FROM turns t WHERE t.origin_session_id = s.id
                          AND t.id NOT IN (SELECT value FROM json_each($turns)))
                -- A turn's details come from its turn's transcript: the turns above stand for them.
                AND NOT EXISTS (SELECT 1 FROM details d WHERE d.turn_id IS NULL AND d.origin_session_id = s.id
                          AND d.id NOT IN (SELECT value FROM json_each($loose)))
                AND NOT EXISTS (SELECT 1 FROM events e WHERE e.origin_session_id = s.id
                          AND e.id NOT IN (SELECT value FROM json_each($events))) AS empty,
              EXISTS (SELECT 1 FROM sessions m WHERE m.merged_into = s.id)
                OR (s.merged_into IS NULL AND (EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.chain
                           AND t.id NOT IN (SELECT value FROM json_each($turns)))
                    OR EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.chain
                           AND e.id NOT IN (SELECT value FROM json_each($events))))) AS linked,
              (${sessionWhere(sel)}) AS named,
              s.title IS NOT NULL AS titled
       FROM sessions s WHERE s.id IN (SELECT value FROM json_each($ids))`,
    )
    .all({
      ...params(sel),
      ids: JSON.stringify(ids),
      turns: JSON.stringify(gone.turns),
      events: JSON.stringify(gone.events),
      loose: JSON.stringify(gone.loose),
    });
}

/**
 * Of the touched sessions, those whose row goes (nothing of theirs is left) or loses its title
 * (its id still holds a chain together, or the title holds the matched text).
 */
function sessionFates(
  db: Database,
  sel: ForgetSelector,
  touched: readonly string[],
): { remove: string[]; untitle: string[] } {
  const remove: string[] = [];
  const untitle: string[] = [];
  for (const r of fateRows(db, sel, touched, { turns: [], events: [], loose: [] })) {
    const f = fate(sel, r);
    if (f === "remove") remove.push(r.id);
    else if (f === "untitle") untitle.push(r.id);
  }
  return { remove, untitle };
}

/**
 * A session with nothing left goes, unless it still holds a chain together (a session merged
 * into it, or it is the live end of a chain with turns or events): then only its title goes. A
 * title holding the matched text goes in any case.
 */
function fate(sel: ForgetSelector, r: FateRow): "remove" | "untitle" | "keep" {
  if (r.empty && !r.linked) return "remove";
  if (r.titled && (r.empty || (sel.match !== null && r.named))) return "untitle";
  return "keep";
}

/** What `forget` would remove; reads only (the `--dry-run`, and the confirmation prompt). */
export function planForget(db: Database, sel: ForgetSelector): ForgetPlan {
  const s = select(db, sel);
  // Which touched sessions would go or lose their title: the rules of sessionFates, judged
  // on what would be left once the selection is gone.
  const rows = fateRows(db, sel, s.sessions, {
    turns: s.turns.map((t) => t.id),
    events: s.eventIds,
    loose: s.looseDetailIds,
  });
  const sessions = rows.filter((r) => fate(sel, r) !== "keep").length;
  return {
    counts: {
      turns: s.turns.length,
      bodies: s.bodies,
      details: s.details + s.looseDetailIds.length,
      events: s.eventIds.length,
      summaries: s.summaries,
      sessions,
    },
    turns: s.turns,
    sessions: s.sessions,
  };
}

/**
 * Delete the selection. Run inside an IMMEDIATE transaction: the selection is read again under
 * the write lock, so a capture that committed since the plan is judged too.
 */
export function deleteSelection(db: Database, sel: ForgetSelector): ForgetCounts {
  const s = select(db, sel);
  const now = Date.now();
  // Keys (never text) of what goes, for sync to carry to every machine (docs/sync.md).
  recordForgetTombstones(
    db,
    { turnIds: s.turns.map((t) => t.id), eventIds: s.eventIds, looseIds: s.looseDetailIds },
    now,
  );
  const turnIds = JSON.stringify(s.turns.map((t) => t.id));
  const inTurns = "turn_id IN (SELECT value FROM json_each($ids))";
  const run = (sql: string, p: Record<string, string>) => db.query(sql).run(p).changes;
  // Children first and explicitly, so every FTS delete trigger fires (not left to cascades).
  const summaries = run(`DELETE FROM skeletons WHERE ${inTurns}`, { ids: turnIds });
  const details =
    run(`DELETE FROM details WHERE ${inTurns}`, { ids: turnIds }) +
    run("DELETE FROM details WHERE id IN (SELECT value FROM json_each($ids))", {
      ids: JSON.stringify(s.looseDetailIds),
    });
  const bodies = run(`DELETE FROM bodies WHERE ${inTurns}`, { ids: turnIds });
  const events = run("DELETE FROM events WHERE id IN (SELECT value FROM json_each($ids))", {
    ids: JSON.stringify(s.eventIds),
  });
  advanceCursors(db, s.turns);
  moveForkPoints(
    db,
    s.turns.map((t) => t.id),
  );
  const turns = run("DELETE FROM turns WHERE id IN (SELECT value FROM json_each($ids))", { ids: turnIds });
  dropEmptySpans(db, [
    ...new Set([...s.turns.flatMap((t) => [t.session_id, t.origin_session_id]), ...s.sessions]),
  ]);
  const fates = sessionFates(db, sel, s.sessions);
  recordSessionTombstones(db, fates.remove, fates.untitle, now);
  const removed = run("DELETE FROM sessions WHERE id IN (SELECT value FROM json_each($ids))", {
    ids: JSON.stringify(fates.remove),
  });
  const untitled = run("UPDATE sessions SET title = NULL WHERE id IN (SELECT value FROM json_each($ids))", {
    ids: JSON.stringify(fates.untitle),
  });
  // Pushes rendered ahead of a handoff are copies of turns: the next Stop prepares them again.
  deleteAllPrepared(db);
  if (bodies > 0) db.run("INSERT INTO bodies_fts(bodies_fts) VALUES ('optimize')");
  if (details > 0) db.run("INSERT INTO details_fts(details_fts) VALUES ('optimize')");
  if (events > 0) db.run("INSERT INTO events_fts(events_fts) VALUES ('optimize')");
  return { turns, bodies, details, events, summaries, sessions: removed + untitled };
}

/**
 * A transcript's cursor re-reads its newest (open) turn on the next capture. When that turn is
 * forgotten, move the cursor past it: the next capture starts after what was read, numbering
 * on from it, so the forgotten turn is not captured again from the transcript.
 */
export function advanceCursors(db: Database, turns: readonly ForgetTurn[]): void {
  if (turns.length === 0) return;
  db.query(
    `UPDATE ingest_cursors SET turn_offset = offset, turn_number = turn_number + 1
     WHERE turn_number > 0 AND EXISTS (SELECT 1 FROM json_each($keys) k
       WHERE json_extract(k.value, '$[0]') = ingest_cursors.session_id
         AND json_extract(k.value, '$[1]') = ingest_cursors.turn_number)`,
  ).run({ keys: JSON.stringify(turns.map((t) => [t.origin_session_id, t.turn_number])) });
}

export interface ScrubResult {
  /** False when a reader kept the WAL from being emptied (its old frames may still hold text). */
  walTruncated: boolean;
}

/** Steps 3 of the module comment: outside any transaction. */
export function scrub(db: Database): ScrubResult {
  db.run("VACUUM");
  const r = db
    .query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)")
    .get()!;
  return { walTruncated: r.busy === 0 };
}
