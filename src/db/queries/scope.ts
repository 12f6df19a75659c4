/**
 * Reads of a scope (a chain, a project, everything) for `detail`: the span of its turns, the turns
 * under way during a window, their L3 rows and one stored item by its reference.
 */

import type { Database } from "bun:sqlite";
import type { TimeWindow } from "../../core/clock.ts";
import type { Scope } from "../project.ts";
import {
  type DetailRow,
  ORDER_NEWEST_FIRST,
  TURN_COLUMNS,
  TURN_JOINS,
  type TurnRow,
  type TurnText,
  toTurnText,
} from "./chain.ts";
import { chainParts, partsWhere } from "./forks.ts";

type Params = Record<string, string | number>;

/** The condition for "turn `t` is in the scope", with its parameters. */
function scopeWhere(db: Database, scope: Scope, params: Params): string {
  if (scope.kind === "chain") return partsWhere(chainParts(db, scope.live), "t", params);
  if (scope.kind === "project") {
    params.key = scope.project;
    return "t.origin_session_id IN (SELECT id FROM sessions WHERE project = $key)";
  }
  return "1";
}

/** First start and last end of the scope's turns; null when it has none. */
export function scopeSpan(db: Database, scope: Scope): TimeWindow | null {
  const params: Params = {};
  const where = scopeWhere(db, scope, params);
  const row = db
    .query<{ first: number | null; last: number | null }, Params>(
      `SELECT (SELECT min(t.started_at) FROM turns t WHERE ${where}) AS first,
              (SELECT t.ended_at FROM turns t WHERE ${where} ${ORDER_NEWEST_FIRST} LIMIT 1) AS last`,
    )
    .get(params);
  if (!row || row.first === null || row.last === null) return null;
  return { from: row.first, to: Math.max(row.first, row.last) };
}

/**
 * Turns of the scope that were under way during the window: those that started inside it,
 * plus the one that started before it and was still running when it opened. Oldest first.
 * One statement: each costs a cold process a prepare.
 */
export function turnsDuring(db: Database, scope: Scope, window: TimeWindow): TurnText[] {
  const params: Params = { from: window.from, to: window.to };
  const where = scopeWhere(db, scope, params);
  const rows = db
    .query<TurnRow, Params>(
      `SELECT * FROM (SELECT ${TURN_COLUMNS} FROM turns t ${TURN_JOINS}
                      WHERE ${where} AND t.started_at < $from ${ORDER_NEWEST_FIRST} LIMIT 1)
       WHERE ended_at >= $from
       UNION ALL
       SELECT * FROM (SELECT ${TURN_COLUMNS} FROM turns t ${TURN_JOINS}
                      WHERE ${where} AND t.started_at >= $from AND t.started_at <= $to)
       ORDER BY started_at, origin_session_id, turn_number`,
    )
    .all(params);
  return rows.map(toTurnText);
}

/** Every L3 row of the given turns, in turn order then capture order. */
export function detailsOf(db: Database, turnIds: readonly number[]): DetailRow[] {
  if (turnIds.length === 0) return [];
  return db
    .query<DetailRow, { ids: string }>(
      `SELECT id, turn_id, source, ord, kind, tool_name, tool_use_id, input, output, is_error, created_at
       FROM details WHERE turn_id IN (SELECT value FROM json_each($ids)) ORDER BY turn_id, ord, id`,
    )
    .all({ ids: JSON.stringify(turnIds) });
}

/** One stored item for `detail --item`: an L3 row by id, or a turn's prompt (`<turn id>u`) or reply (`<turn id>a`). */
export function itemOf(
  db: Database,
  ref: string,
): { label: string; text: string; startedAt: number; turnKey: string } | null {
  const body = /^(\d+)([ua])$/.exec(ref);
  if (body) {
    const row = db
      .query<
        { text: string; origin_session_id: string; turn_number: number; started_at: number },
        { id: number; role: string }
      >(
        `SELECT b.text, t.origin_session_id, t.turn_number, t.started_at FROM bodies b JOIN turns t ON t.id = b.turn_id
         WHERE b.turn_id = $id AND b.role = $role`,
      )
      .get({ id: Number(body[1]), role: body[2] === "u" ? "user" : "assistant" });
    if (!row) return null;
    const key = `${row.origin_session_id}:${row.turn_number}`;
    return {
      label: `the ${body[2] === "u" ? "prompt" : "reply"} of turn ${key}`,
      text: row.text,
      startedAt: row.started_at,
      turnKey: key,
    };
  }
  if (!/^\d+$/.test(ref)) return null;
  const row = db
    .query<DetailRow & { origin_session_id: string; turn_number: number | null }, { id: number }>(
      `SELECT d.id, d.turn_id, d.source, d.ord, d.kind, d.tool_name, d.tool_use_id, d.input, d.output, d.is_error,
              d.created_at, d.origin_session_id, t.turn_number
       FROM details d LEFT JOIN turns t ON t.id = d.turn_id WHERE d.id = $id`,
    )
    .get({ id: Number(ref) });
  if (!row) return null;
  const key = `${row.origin_session_id}:${row.turn_number ?? "?"}`;
  const text = [row.input, row.output].filter((x): x is string => x !== null && x !== "").join("\n→ ");
  const what =
    row.kind === "tool_input"
      ? `${row.tool_name ?? "tool"} input`
      : row.kind === "tool_output"
        ? `${row.tool_name ?? "tool"} output${row.is_error ? " (error)" : ""}`
        : `${row.kind}${row.tool_name ? ` ${row.tool_name}` : ""}`;
  return { label: `${what} of turn ${key}`, text, startedAt: row.created_at, turnKey: key };
}
