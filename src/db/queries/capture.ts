import type { Database } from "bun:sqlite";
import type { DetailDraft } from "../../core/model.ts";
import { detailKey, FINAL_TEXT, storedFinal } from "../row-forms.ts";
import type { DetailRow } from "./chain.ts";

export interface CursorRow {
  transcript_path: string;
  session_id: string;
  offset: number;
  turn_offset: number;
  turn_number: number;
  identity: string | null;
  size: number;
  skipped_lines: number;
  updated_at: number;
}

export function getCursor(db: Database, path: string): CursorRow | null {
  return db
    .query<CursorRow, { path: string }>("SELECT * FROM ingest_cursors WHERE transcript_path = $path")
    .get({ path });
}

export function saveCursor(db: Database, c: CursorRow): void {
  db.query(
    `INSERT OR REPLACE INTO ingest_cursors
       (transcript_path, session_id, offset, turn_offset, turn_number, identity, size, skipped_lines, updated_at)
     VALUES ($transcript_path, $session_id, $offset, $turn_offset, $turn_number, $identity, $size, $skipped_lines, $updated_at)`,
  ).run({ ...c });
}

export interface TurnWrite {
  sessionId: string;
  originSessionId: string;
  number: number;
  startedAt: number;
  endedAt: number;
  user: string;
  assistant: string;
  finalText: string | null;
  /** The prompt entry's uuid (docs/contract.md#forks). */
  uuid: string | null;
}

/** Insert or update a turn by its key; returns its row id (stable across updates). */
/** How many turns a session's own transcript gave (replay and import tell new turns from known ones). */
export function ownTurnCount(db: Database, origin: string): number {
  return db
    .query<{ n: number }, { origin: string }>(
      "SELECT count(*) AS n FROM turns WHERE origin_session_id = $origin",
    )
    .get({ origin })!.n;
}

export function upsertTurn(db: Database, t: TurnWrite): number {
  const row = db
    .query<{ id: number }, Record<string, string | number | null>>(
      `INSERT INTO turns (session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars, uuid)
       VALUES ($session, $origin, $number, $started, $ended, $uc, $ac, $uuid)
       ON CONFLICT(origin_session_id, turn_number) DO UPDATE SET
         started_at = excluded.started_at, ended_at = excluded.ended_at,
         user_chars = excluded.user_chars, assistant_chars = excluded.assistant_chars, uuid = excluded.uuid
       RETURNING id`,
    )
    .get({
      uuid: t.uuid,
      session: t.sessionId,
      origin: t.originSessionId,
      number: t.number,
      started: t.startedAt,
      ended: t.endedAt,
      uc: t.user.length,
      ac: t.assistant.length,
    });
  const id = row!.id;
  const body = db.query(
    `INSERT INTO bodies (turn_id, origin_session_id, role, text, final_text)
     VALUES ($turn, $origin, $role, $text, $final)
     ON CONFLICT(turn_id, role) DO UPDATE SET text = excluded.text, final_text = excluded.final_text
     WHERE bodies.text IS NOT excluded.text OR bodies.final_text IS NOT excluded.final_text`,
  );
  body.run({
    turn: id,
    origin: t.originSessionId,
    role: "user",
    text: t.user,
    final: null,
  });
  body.run({
    turn: id,
    origin: t.originSessionId,
    role: "assistant",
    text: t.assistant,
    final: storedFinal(t.assistant, t.finalText),
  });
  return id;
}

/** Replace the transcript-sourced L3 rows of one turn (or of the preamble when turnId is null). */
export function replaceDetails(
  db: Database,
  scope: { turnId: number | null; turnNumber: number; sessionId: string; originSessionId: string },
  details: readonly DetailDraft[],
): void {
  // A Stop re-reads the turn left open by the previous one, usually unchanged: rewriting its
  // rows would delete and re-add their full-text entries for nothing.
  if (scope.turnId !== null && sameDetails(db, scope.turnId, details)) return;
  if (scope.turnId === null)
    db.query(
      "DELETE FROM details WHERE origin_session_id = $origin AND turn_id IS NULL AND source = 'transcript'",
    ).run({
      origin: scope.originSessionId,
    });
  else
    db.query("DELETE FROM details WHERE turn_id = $turn AND source = 'transcript'").run({
      turn: scope.turnId,
    });
  const ins = db.query(
    `INSERT INTO details (turn_id, origin_session_id, source, ord, kind, tool_name, tool_use_id, input, output, is_error, created_at, ikey, text_at)
     VALUES ($turn, $origin, 'transcript', $ord, $kind, $tool, $tuid, $input, $output, $err, $created, $ikey, $at)`,
  );
  details.forEach((d, ord) => {
    ins.run({
      turn: scope.turnId,
      origin: scope.originSessionId,
      ord,
      kind: d.kind,
      tool: d.toolName,
      tuid: d.toolUseId,
      input: d.input,
      output: d.output,
      err: d.isError ? 1 : 0,
      created: d.createdAt,
      ikey: detailKey(scope.turnId, scope.originSessionId, scope.turnNumber, ord),
      at: d.textAt ?? null,
    });
  });
}

function sameDetails(db: Database, turnId: number, details: readonly DetailDraft[]): boolean {
  const rows = db
    .query<
      Omit<DetailRow, "id" | "turn_id" | "source" | "ord"> & { text_at: number | null },
      { turn: number }
    >(
      `SELECT kind, tool_name, tool_use_id, input, output, is_error, created_at, text_at FROM details
       WHERE turn_id = $turn AND source = 'transcript' ORDER BY ord`,
    )
    .all({ turn: turnId });
  return (
    rows.length === details.length &&
    rows.every((r, i) => {
      const d = details[i]!;
      return (
        r.kind === d.kind &&
        r.tool_name === d.toolName &&
        r.tool_use_id === d.toolUseId &&
        r.input === d.input &&
        r.output === d.output &&
        r.is_error === (d.isError ? 1 : 0) &&
        r.created_at === d.createdAt &&
        r.text_at === (d.textAt ?? null)
      );
    })
  );
}

/** Turns numbered beyond what the transcript now holds (the file was replaced by a shorter one). */
export function deleteTurnsAfter(db: Database, origin: string, lastNumber: number): void {
  db.query("DELETE FROM turns WHERE origin_session_id = $origin AND turn_number > $n").run({
    origin,
    n: lastNumber,
  });
}

/** Turn row id holding a given time for a session chain: the latest turn started at or before `ts`. */
export function turnAt(
  db: Database,
  origin: string,
  ts: number,
): { id: number; turn_number: number; session_id: string } | null {
  return (
    db
      .query<{ id: number; turn_number: number; session_id: string }, { origin: string; ts: number }>(
        `SELECT id, turn_number, session_id FROM turns WHERE origin_session_id = $origin AND started_at <= $ts
         ORDER BY started_at DESC, turn_number DESC LIMIT 1`,
      )
      .get({ origin, ts }) ??
    db
      .query<{ id: number; turn_number: number; session_id: string }, { origin: string }>(
        "SELECT id, turn_number, session_id FROM turns WHERE origin_session_id = $origin ORDER BY turn_number LIMIT 1",
      )
      .get({ origin })
  );
}

/** A subagent transcript is one L3 row keyed on its agent: re-ingesting replaces it. */
export function upsertSubagentDetail(
  db: Database,
  d: { turnId: number | null; sessionId: string; originSessionId: string; key: string; detail: DetailDraft },
): void {
  db.query("DELETE FROM details WHERE ikey = $ikey").run({ ikey: d.key });
  db.query(
    `INSERT INTO details (turn_id, origin_session_id, source, ord, kind, tool_name, tool_use_id, input, output, is_error, created_at, ikey)
     VALUES ($turn, $origin, 'subagent', 0, $kind, $tool, NULL, $input, $output, 0, $created, $ikey)`,
  ).run({
    turn: d.turnId,
    origin: d.originSessionId,
    kind: d.detail.kind,
    tool: d.detail.toolName,
    input: d.detail.input,
    output: d.detail.output,
    created: d.detail.createdAt,
    ikey: d.key,
  });
}

/** Final assistant text of the newest stored turn of a transcript's own session that has one. */
export function storedFinalText(db: Database, originSessionId: string): string | null {
  const row = db
    .query<{ final_text: string }, { origin: string }>(
      `SELECT ${FINAL_TEXT("b")} AS final_text FROM turns t JOIN bodies b ON b.turn_id = t.id AND b.role = 'assistant'
       WHERE t.origin_session_id = $origin AND b.final_text IS NOT NULL ORDER BY t.turn_number DESC LIMIT 1`,
    )
    .get({ origin: originSessionId });
  return row?.final_text ?? null;
}
