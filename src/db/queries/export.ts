/**
 * Reads and writes of `throughline.export.v1` (docs/export.md). Reads walk each table in row
 * id order with `iterate()`, one row at a time, so an export never holds the database in
 * memory, and an import into an empty database keeps every table's relative order (search
 * ranks ties and caps candidates by row id). Writes key every row on its natural key and never
 * overwrite: importing the same file twice changes nothing, and rows already in the target win.
 */
import type { Database } from "bun:sqlite";
import type {
  DetailRecord,
  EventRecord,
  SessionRecord,
  SummaryRecord,
  TurnRecord,
} from "../../core/export-format.ts";
import { ThroughlineError } from "../../errors.ts";
import { DETAIL_FILE_KEY, detailKey, FINAL_TEXT, storedFinal } from "../row-forms.ts";
import { legacyChainKeys } from "../schema.ts";

export { schemaVersion } from "../version.ts";

/**
 * Each record kind's SELECT, without its WHERE and ORDER BY: `export jsonl` reads every row,
 * sync (queries/sync.ts) one origin session's, and both write the same records.
 */
export const RECORD_SELECT = {
  session: `SELECT id, project, transcript_path, created_at, updated_at, merged_into, title, chain, fork_uuid
    FROM sessions`,
  turn: `SELECT t.session_id, t.origin_session_id, t.turn_number, t.started_at, t.ended_at,
            t.user_chars, t.assistant_chars, u.text AS user, a.text AS assistant, ${FINAL_TEXT("a")} AS final_text, t.uuid
    FROM turns t
    LEFT JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
    LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'`,
  detail: `SELECT d.origin_session_id, t.turn_number, d.source, d.ord, d.kind, d.tool_name, d.tool_use_id,
            d.input, d.output, d.is_error, d.created_at, ${DETAIL_FILE_KEY("d", "t.turn_number")} AS ikey
    FROM details d LEFT JOIN turns t ON t.id = d.turn_id`,
  event: `SELECT session_id, origin_session_id, project, turn_number, seq, ts, type, summary, detail,
            tool_use_id, ikey
    FROM events`,
  summary: `SELECT t.origin_session_id, t.turn_number, k.summary, k.backend, k.error, k.created_at
    FROM skeletons k JOIN turns t ON t.id = k.turn_id`,
} as const;

/** A detail row as its record: SQLite's 0/1 as a boolean. */
export type DetailRow = Omit<DetailRecord, "record" | "is_error"> & { is_error: number };
export function detailRecord(r: DetailRow): DetailRecord {
  return { record: "detail", ...r, is_error: r.is_error !== 0 };
}

export function* exportSessions(db: Database): Generator<SessionRecord> {
  const q = db.query<Omit<SessionRecord, "record">, []>(`${RECORD_SELECT.session} ORDER BY rowid`);
  for (const r of q.iterate()) yield { record: "session", ...r };
}

export function* exportTurns(db: Database): Generator<TurnRecord> {
  const q = db.query<Omit<TurnRecord, "record">, []>(`${RECORD_SELECT.turn} ORDER BY t.id`);
  for (const r of q.iterate()) yield { record: "turn", ...r };
}

export function* exportDetails(db: Database): Generator<DetailRecord> {
  const q = db.query<DetailRow, []>(`${RECORD_SELECT.detail} ORDER BY d.id`);
  for (const r of q.iterate()) yield detailRecord(r);
}

export function* exportEvents(db: Database): Generator<EventRecord> {
  const q = db.query<Omit<EventRecord, "record">, []>(`${RECORD_SELECT.event} ORDER BY id`);
  for (const r of q.iterate()) yield { record: "event", ...r };
}

export function* exportSummaries(db: Database): Generator<SummaryRecord> {
  const q = db.query<Omit<SummaryRecord, "record">, []>(`${RECORD_SELECT.summary} ORDER BY t.id`);
  for (const r of q.iterate()) yield { record: "summary", ...r };
}

/** Added (new in the target) and kept (already there, left as it was) per record type. */
export interface ImportTally {
  added: number;
  kept: number;
}

/** Prepared writers for one import; every call runs inside the caller's transaction. */
export function exportImporter(db: Database) {
  const sessionExists = db.query<{ x: number }, { id: string }>("SELECT 1 AS x FROM sessions WHERE id = $id");
  // A session already in the target keeps its values; the file only fills what it lacks, so
  // a second import (or an import into a database that moved on) changes nothing.
  const upsertSession = db.query(
    `INSERT INTO sessions (id, project, transcript_path, created_at, updated_at, merged_into, title, chain, fork_uuid)
     VALUES ($id, $project, $transcript_path, $created_at, $updated_at, $merged_into, $title, $chain, $fork_uuid)
     ON CONFLICT(id) DO UPDATE SET
       project = coalesce(sessions.project, excluded.project),
       fork_uuid = coalesce(sessions.fork_uuid, excluded.fork_uuid),
       transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
       merged_into = coalesce(sessions.merged_into, excluded.merged_into),
       title = coalesce(sessions.title, excluded.title)`,
  );
  const insertTurn = db.query<{ id: number }, Record<string, string | number | null>>(
    `INSERT INTO turns (session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars, uuid)
     VALUES ($session_id, $origin_session_id, $turn_number, $started_at, $ended_at, $user_chars, $assistant_chars, $uuid)
     ON CONFLICT(origin_session_id, turn_number) DO NOTHING RETURNING id`,
  );
  const insertBody = db.query(
    `INSERT INTO bodies (turn_id, origin_session_id, role, text, final_text)
     VALUES ($turn, $origin, $role, $text, $final)`,
  );
  const turnId = db.query<{ id: number }, { origin: string; n: number }>(
    "SELECT id FROM turns WHERE origin_session_id = $origin AND turn_number = $n",
  );
  const insertDetail = db.query(
    `INSERT INTO details (turn_id, origin_session_id, source, ord, kind, tool_name, tool_use_id, input, output, is_error, created_at, ikey)
     SELECT $turn, $origin_session_id, $source, $ord, $kind, $tool_name, $tool_use_id, $input, $output, $is_error, $created_at, $ikey
     -- A turn's row stored before schema 11 has the file's key form, not this one's: found by place.
     WHERE $turn IS NULL OR $source <> 'transcript'
        OR NOT EXISTS (SELECT 1 FROM details WHERE turn_id = $turn AND source = 'transcript' AND ord = $ord)
     ON CONFLICT(ikey) DO NOTHING`,
  );
  const insertEvent = db.query(
    `INSERT INTO events (session_id, origin_session_id, project, turn_number, seq, ts, type, summary, detail, tool_use_id, ikey)
     VALUES ($session_id, $origin_session_id, $project, $turn_number, $seq, $ts, $type, $summary, $detail, $tool_use_id, $ikey)
     ON CONFLICT(ikey) DO NOTHING`,
  );
  const insertSummary = db.query(
    `INSERT INTO skeletons (turn_id, summary, backend, error, created_at)
     VALUES ($turn, $summary, $backend, $error, $created_at) ON CONFLICT(turn_id) DO NOTHING`,
  );

  const turnOf = (origin: string, n: number, what: string): number => {
    const row = turnId.get({ origin, n });
    if (!row)
      throw new ThroughlineError(
        "E_EXPORT_FORMAT",
        `${what} refers to turn ${origin}:${n}, which neither the file (before it) nor the database holds`,
      );
    return row.id;
  };

  // Sessions of an export written before schema 5 carry no chain key: worked out at the end.
  const keyless: string[] = [];
  return {
    session(r: SessionRecord): boolean {
      const existed = sessionExists.get({ id: r.id }) !== null;
      const { record: _, chain, fork_uuid, ...row } = r;
      upsertSession.run({ ...row, chain: chain ?? null, fork_uuid: fork_uuid ?? null });
      if (chain === undefined && !existed) keyless.push(r.id);
      return !existed;
    },
    /** After the last record: the chain keys an older export left out (rows keyed on live ends). */
    finish(): void {
      if (keyless.length === 0) return;
      db.run("CREATE TEMP TABLE tl_keyless (id TEXT PRIMARY KEY)");
      const add = db.query("INSERT OR IGNORE INTO tl_keyless (id) VALUES ($id)");
      for (const id of keyless) add.run({ id });
      db.run(legacyChainKeys("id IN (SELECT id FROM temp.tl_keyless)"));
      db.run("DROP TABLE tl_keyless");
    },
    turn(r: TurnRecord): boolean {
      const { record: _, user, assistant, final_text, uuid, ...row } = r;
      const inserted = insertTurn.get({ ...row, uuid: uuid ?? null });
      if (!inserted) return false;
      if (user !== null)
        insertBody.run({
          turn: inserted.id,
          origin: r.origin_session_id,
          role: "user",
          text: user,
          final: null,
        });
      if (assistant !== null)
        insertBody.run({
          turn: inserted.id,
          origin: r.origin_session_id,
          role: "assistant",
          text: assistant,
          final: storedFinal(assistant, final_text),
        });
      return true;
    },
    detail(r: DetailRecord, lineNo: number): boolean {
      const { record: _, turn_number, is_error, ...row } = r;
      const turn =
        turn_number === null ? null : turnOf(r.origin_session_id, turn_number, `line ${lineNo}: detail`);
      // The file keys a turn's row on its transcript; this database on the turn's row id.
      const ikey =
        turn !== null && r.source === "transcript"
          ? detailKey(turn, r.origin_session_id, turn_number!, r.ord)
          : r.ikey;
      return insertDetail.run({ ...row, ikey, turn, is_error: is_error ? 1 : 0 }).changes > 0;
    },
    event(r: EventRecord): boolean {
      const { record: _, ...row } = r;
      return insertEvent.run(row).changes > 0;
    },
    summary(r: SummaryRecord, lineNo: number): boolean {
      const turn = turnOf(r.origin_session_id, r.turn_number, `line ${lineNo}: summary`);
      return (
        insertSummary.run({
          turn,
          summary: r.summary,
          backend: r.backend,
          error: r.error,
          created_at: r.created_at,
        }).changes > 0
      );
    },
  };
}
