/**
 * Reads of a session chain for the push and the pull commands (docs/contract.md#the-push). `turns.session_id`
 * is the key of the chain each turn belongs to (`chainKeyOf`: any session of the chain finds it); a fork also reads
 * its parent's chain up to the fork point (`chainParts`, src/db/queries/forks.ts). Every query orders turns the same way,
 * `started_at, origin_session_id, turn_number` (the `turns_session_started` index), so the
 * push, `recall --l2` and `recall --l1` agree on what "before the boundary" and "newest" mean.
 */
import type { Database } from "bun:sqlite";
import type { ContextInput } from "../../core/context.ts";
import { hostField } from "../../core/host.ts";
import { selfInvocation } from "../../core/invocation.ts";
import { isControlCommand } from "../../core/push-header.ts";
import type { ToolUse } from "../../core/tool-digest.ts";
import { type ChainTurn, type DetailCount, WINDOW_TURNS } from "../../core/turn-block.ts";
import { ThroughlineError } from "../../errors.ts";
import { FINAL_TEXT } from "../row-forms.ts";
import { type ChainPart, chainParts, partsWhere } from "./forks.ts";
import { resolveLive } from "./sessions.ts";

export type Params = Record<string, string | number>;

/**
 * The SQL condition for "turn `t` belongs to the chain holding `live`" and its parameters: the
 * chain's own rows, and for a fork the parent's up to the fork point (docs/contract.md#forks).
 */
function inChain(
  db: Database,
  live: string,
  params: Params = {},
  alias = "t",
): { where: string; params: Params } {
  return { where: partsWhere(chainParts(db, live), alias, params), params };
}

export interface TurnRow {
  id: number;
  origin_session_id: string;
  turn_number: number;
  started_at: number;
  ended_at: number;
  user_text: string | null;
  assistant_text: string | null;
  final_text: string | null;
  /** The turn's session's `sessions.host` ('codex', or null for Claude Code). */
  host: string | null;
}

export interface SummaryRow {
  id: number;
  origin_session_id: string;
  turn_number: number;
  started_at: number;
  ended_at: number;
  summary: string | null;
  host: string | null;
}

export interface DetailCountRow {
  turn_id: number;
  kind: string;
  tool_name: string | null;
  n: number;
}

export interface DetailRow {
  id: number;
  turn_id: number;
  source: string;
  ord: number;
  kind: string;
  tool_name: string | null;
  tool_use_id: string | null;
  input: string | null;
  output: string | null;
  is_error: number;
  created_at: number;
}

/** A turn with its L2 rows; `id` is the row id used to fetch its L3. */
export interface LoadedTurn extends ChainTurn {
  id: number;
}

export const ORDER_NEWEST_FIRST = "ORDER BY t.started_at DESC, t.origin_session_id DESC, t.turn_number DESC";
const ORDER_OLDEST_FIRST = "ORDER BY t.started_at, t.origin_session_id, t.turn_number";

/** The host of turn `t`'s own session (schema 14), by primary key. */
export const HOST_OF_TURN = "(SELECT s.host FROM sessions s WHERE s.id = t.origin_session_id) AS host";

export const TURN_COLUMNS = `t.id, t.origin_session_id, t.turn_number, t.started_at, t.ended_at,
  u.text AS user_text, a.text AS assistant_text, ${FINAL_TEXT("a")} AS final_text, ${HOST_OF_TURN}`;
export const TURN_JOINS = `LEFT JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
  LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'`;

/** A turn's L2 text without its L3 counts: `detail` loads the L3 rows themselves. */
export type TurnText = Omit<LoadedTurn, "details">;

export function toTurnText(row: TurnRow): TurnText {
  return {
    id: row.id,
    originSessionId: row.origin_session_id,
    turnNumber: row.turn_number,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    user: row.user_text ?? "",
    assistant: row.assistant_text ?? "",
    finalText: row.final_text,
    ...hostField(row.host),
  };
}

export function toChainTurn(row: TurnRow, details: DetailCount[] = []): LoadedTurn {
  return { ...toTurnText(row), details };
}

/**
 * The live end of the chain that holds session `id` (following `merged_into`). No default:
 * an id that the database has never seen is an error.
 */
export function resolveChain(db: Database, id: string): string {
  // Whether the id is known and its first hop in one statement: a session that was never
  // merged (the usual case) needs no second one, and each costs a cold process a prepare.
  const row = db
    .query<{ n: number; next: string | null }, { id: string }>(
      `SELECT (SELECT count(*) FROM sessions WHERE id = $id)
            + (SELECT count(*) FROM (SELECT 1 FROM turns WHERE session_id = $id LIMIT 1)) AS n,
              (SELECT merged_into FROM sessions WHERE id = $id) AS next`,
    )
    .get({ id });
  if (!row || row.n === 0)
    throw new ThroughlineError("E_NO_SESSION", `no session ${id} in this database`, {
      hint: `\`${selfInvocation()} status\` lists the sessions it holds`,
    });
  return row.next === null ? id : resolveLive(db, id).id;
}

export function countChainTurns(db: Database, live: string): number {
  const c = inChain(db, live);
  return db.query<{ n: number }, Params>(`SELECT count(*) AS n FROM turns t WHERE ${c.where}`).get(c.params)!
    .n;
}

/** L3 counts per turn and kind, in order of first appearance within each turn. */
export function detailCounts(db: Database, turnIds: readonly number[]): Map<number, DetailCount[]> {
  const out = new Map<number, DetailCount[]>();
  if (turnIds.length === 0) return out;
  const rows = db
    .query<DetailCountRow, { ids: string }>(
      `SELECT turn_id, kind, tool_name, count(*) AS n, min(ord) AS first_ord
       FROM details WHERE turn_id IN (SELECT value FROM json_each($ids))
       GROUP BY turn_id, kind, tool_name ORDER BY turn_id, first_ord, kind`,
    )
    .all({ ids: JSON.stringify(turnIds) });
  for (const r of rows) {
    const list = out.get(r.turn_id) ?? [];
    list.push({ kind: r.kind, toolName: r.tool_name, count: r.n });
    out.set(r.turn_id, list);
  }
  return out;
}

/** A string field of a tool input (`j.js`: the input when it is valid JSON, else null). */
const field = (name: string) => `json_extract(j.js, '$.${name}')`;

/**
 * How much of an edit's or a write's text, and of a tool's result, the tool line reads for the
 * names it shows: the push's short lines need little; `recall --l2`'s full lines name what a
 * whole file held (docs/contract.md#pulls-read-only).
 */
export interface ToolHeads {
  added: number;
  output: number;
}
export const PUSH_HEADS: ToolHeads = { added: 4000, output: 600 };
export const FULL_HEADS: ToolHeads = { added: 20000, output: 8000 };

/** ToolUse's fields as the query returns them, in SQLite's spelling; `json_extract` may give any type. */
type ToolUseRow = Omit<ToolUse, "tool" | "isError"> & {
  turn_id: number;
  tool: string | null;
  is_error: number | null;
  project: string | null;
};

/**
 * Each turn's tool calls with the few input fields its tool line names (core/tool-digest.ts), the
 * head of its result and the project of its session; inputs that are not valid JSON (cut by
 * redaction) give nulls, never an error.
 */
export function toolUsesOf(
  db: Database,
  turnIds: readonly number[],
  heads: ToolHeads = PUSH_HEADS,
): Map<number, { uses: ToolUse[]; project: string | null }> {
  const out = new Map<number, { uses: ToolUse[]; project: string | null }>();
  if (turnIds.length === 0) return out;
  const ids = JSON.stringify(turnIds);
  // A call's result is matched here rather than joined in SQL: a join reads every row of the turn
  // for each call (details_turn holds no tool_use_id), quadratic in a turn of a hundred calls.
  const rows = db
    .query<ToolUseRow & { tool_use_id: string | null }, { ids: string; head: number }>(
      `SELECT d.turn_id, d.tool_name AS tool, d.tool_use_id,
              coalesce(${field("file_path")}, ${field("notebook_path")}, ${field("path")}) AS path,
              substr(${field("command")}, 1, 400) AS command, substr(${field("pattern")}, 1, 400) AS pattern,
              substr(${field("url")}, 1, 400) AS url, substr(${field("query")}, 1, 400) AS query,
              substr(${field("description")}, 1, 400) AS description,
              substr(coalesce(${field("new_string")}, ${field("content")}, ${field("new_source")},
                              ${field("edits[0].new_string")}), 1, $head) AS added,
              substr(coalesce(${field("old_string")}, ${field("edits[0].old_string")}), 1, $head) AS removed,
              s.project
       FROM details d
       JOIN (SELECT id, CASE WHEN json_valid(input) THEN input END AS js
             FROM details WHERE turn_id IN (SELECT value FROM json_each($ids)) AND kind = 'tool_input') j
         ON j.id = d.id
       LEFT JOIN sessions s ON s.id = d.origin_session_id
       ORDER BY d.turn_id, d.ord, d.id`,
    )
    .all({ ids, head: heads.added });
  const results = new Map<string, { is_error: number | null; output: string | null }[]>();
  for (const o of db
    .query<
      { turn_id: number; tool_use_id: string; is_error: number | null; output: string | null },
      { ids: string; out: number }
    >(
      `SELECT turn_id, tool_use_id, is_error, substr(output, 1, $out) AS output FROM details
       WHERE turn_id IN (SELECT value FROM json_each($ids)) AND kind = 'tool_output' AND tool_use_id IS NOT NULL
       ORDER BY turn_id, ord, id`,
    )
    .all({ ids, out: heads.output })) {
    const key = `${o.turn_id}:${o.tool_use_id}`;
    const list = results.get(key);
    if (list) list.push(o);
    else results.set(key, [o]);
  }
  const NO_RESULT = [{ is_error: null, output: null }];
  for (const r of rows) {
    let entry = out.get(r.turn_id);
    if (!entry) {
      entry = { uses: [], project: r.project };
      out.set(r.turn_id, entry);
    }
    // One use per result, as the join gave: none found is one use without a result.
    const found = r.tool_use_id === null ? undefined : results.get(`${r.turn_id}:${r.tool_use_id}`);
    for (const o of found ?? NO_RESULT)
      entry.uses.push({
        tool: r.tool ?? "tool",
        path: typeof r.path === "string" ? r.path : null,
        command: typeof r.command === "string" ? r.command : null,
        pattern: typeof r.pattern === "string" ? r.pattern : null,
        url: typeof r.url === "string" ? r.url : null,
        query: typeof r.query === "string" ? r.query : null,
        description: typeof r.description === "string" ? r.description : null,
        added: typeof r.added === "string" ? r.added : null,
        removed: typeof r.removed === "string" ? r.removed : null,
        isError: o.is_error === 1,
        output: o.output,
      });
  }
  return out;
}

function withDetails(db: Database, rows: TurnRow[], heads: ToolHeads = PUSH_HEADS): LoadedTurn[] {
  const ids = rows.map((r) => r.id);
  const counts = detailCounts(db, ids);
  const tools = toolUsesOf(db, ids, heads);
  return rows.map((r) => {
    const t = toChainTurn(r, counts.get(r.id) ?? []);
    const used = tools.get(r.id);
    if (used) {
      t.tools = used.uses;
      t.project = used.project;
    }
    return t;
  });
}

/** The newest `limit` turns of the chain, oldest first, with L2 and L3 counts. */
export function newestTurns(db: Database, live: string, limit: number): LoadedTurn[] {
  return newestOfParts(db, chainParts(db, live), limit);
}

function newestOfParts(db: Database, parts: readonly ChainPart[], limit: number): LoadedTurn[] {
  const params: Params = { limit };
  const rows = db
    .query<TurnRow, Params>(
      `SELECT ${TURN_COLUMNS} FROM turns t ${TURN_JOINS}
       WHERE ${partsWhere(parts, "t", params)} ${ORDER_NEWEST_FIRST} LIMIT $limit`,
    )
    .all(params);
  return withDetails(db, rows.reverse());
}

/**
 * Turns of the chain that start strictly before `before`: skip the newest `skip`, then take
 * the newest `limit` (all when null). Returned oldest first, with L2 and L3 counts.
 */
export function turnsBefore(
  db: Database,
  live: string,
  before: number,
  opts: { skip: number; limit: number | null },
): LoadedTurn[] {
  const c = inChain(db, live, { before, limit: opts.limit ?? -1, skip: opts.skip });
  const rows = db
    .query<TurnRow, Params>(
      `SELECT ${TURN_COLUMNS} FROM turns t ${TURN_JOINS}
       WHERE ${c.where} AND t.started_at < $before ${ORDER_NEWEST_FIRST}
       LIMIT $limit OFFSET $skip`,
    )
    .all(c.params);
  return withPromptExtras(db, withDetails(db, rows.reverse(), FULL_HEADS));
}

/**
 * The oldest `limit` turns of the chain that start at or after `from`: the turns a push showed
 * whole, counted by the push so the answer never changes as the chain grows. With their tool calls
 * read for full tool lines.
 */
export function turnsFrom(db: Database, live: string, from: number, limit: number): LoadedTurn[] {
  const c = inChain(db, live, { limit, from });
  const rows = db
    .query<TurnRow, Params>(
      `SELECT ${TURN_COLUMNS} FROM turns t ${TURN_JOINS}
       WHERE ${c.where} AND t.started_at >= $from ${ORDER_OLDEST_FIRST} LIMIT $limit`,
    )
    .all(c.params);
  return withPromptExtras(db, withDetails(db, rows, FULL_HEADS));
}

/** Same selection as `turnsBefore`, with the L1 summary instead of the bodies. */
export function summariesBefore(
  db: Database,
  live: string,
  before: number,
  opts: { skip: number; limit: number | null },
): SummaryRow[] {
  const c = inChain(db, live, { before, limit: opts.limit ?? -1, skip: opts.skip });
  return db
    .query<SummaryRow, Params>(
      `SELECT t.id, t.origin_session_id, t.turn_number, t.started_at, t.ended_at,
              CASE WHEN k.error IS NULL THEN k.summary END AS summary, ${HOST_OF_TURN}
       FROM turns t LEFT JOIN skeletons k ON k.turn_id = t.id
       WHERE ${c.where} AND t.started_at < $before ${ORDER_NEWEST_FIRST}
       LIMIT $limit OFFSET $skip`,
    )
    .all(c.params)
    .reverse();
}

/** Everything the push renderer needs for one chain. */
/**
 * What a prompt stands for beyond its own text: a bash-mode prompt's (`!ls`) first command output,
 * and a slash command's expansion (its first `meta` row that is not the client's local-command
 * caveat), per turn id. No statement runs when no turn starts with `!` or `/`.
 */
function promptExtras(
  db: Database,
  turns: readonly LoadedTurn[],
): Map<number, { kind: string; output: string }> {
  const ids = turns.filter((t) => t.user.startsWith("!") || t.user.startsWith("/")).map((t) => t.id);
  const out = new Map<number, { kind: string; output: string }>();
  if (ids.length === 0) return out;
  const rows = db
    .query<{ turn_id: number; kind: string; output: string }, { ids: string }>(
      `SELECT turn_id, kind, output FROM details
       WHERE turn_id IN (SELECT value FROM json_each($ids)) AND kind IN ('command_output', 'meta')
         AND output IS NOT NULL AND output NOT LIKE '<local-command-caveat>%'
       ORDER BY id`,
    )
    .all({ ids: JSON.stringify(ids) });
  for (const r of rows) if (!out.has(r.turn_id)) out.set(r.turn_id, r);
  return out;
}

/** Sets `shellOutput` of bash-mode turns and `commandText` of slash-command turns. */
function withPromptExtras(db: Database, turns: LoadedTurn[]): LoadedTurn[] {
  const extras = promptExtras(db, turns);
  for (const t of turns) {
    const e = extras.get(t.id);
    if (e === undefined) continue;
    if (t.user.startsWith("!") && e.kind === "command_output") t.shellOutput = e.output;
    else if (t.user.startsWith("/") && e.kind === "meta") t.commandText = e.output;
  }
  return turns;
}

export function loadContextInput(db: Database, live: string): ContextInput {
  // One statement for the chain's counts: each statement costs a cold process a prepare.
  // The window holds min(total, WINDOW_TURNS) turns, so the newest older turn is at that offset.
  // The older turns are those past the window's offset in the same order, so their summaries
  // are counted here too.
  const parts = chainParts(db, live);
  const params: Params = { skip: WINDOW_TURNS };
  const where = partsWhere(parts, "t", params);
  const counts = db
    .query<{ total: number; first: number | null; older: number | null; summarized: number }, Params>(
      `SELECT count(*) AS total, min(t.started_at) AS first,
              (SELECT t.started_at FROM turns t WHERE ${where} ${ORDER_NEWEST_FIRST}
               LIMIT 1 OFFSET $skip) AS older,
              (SELECT count(*) FROM (SELECT t.id FROM turns t WHERE ${where}
                                     ${ORDER_NEWEST_FIRST} LIMIT -1 OFFSET $skip) o
               JOIN skeletons k ON k.turn_id = o.id AND k.summary IS NOT NULL AND k.error IS NULL) AS summarized
       FROM turns t WHERE ${where}`,
    )
    .get(params)!;
  const total = counts.total;
  const window = withPromptExtras(db, newestOfParts(db, parts, WINDOW_TURNS));
  const hasReply = window.some((t) => t.finalText !== null && t.finalText.trim() !== "");
  const fallbackParams: Params = {};
  const fallbackWhere = partsWhere(parts, "t", fallbackParams);
  const fallback =
    !hasReply && total > window.length
      ? db
          .query<{ final_text: string; ended_at: number }, Params>(
            `SELECT ${FINAL_TEXT("a")} AS final_text, t.ended_at FROM turns t
             JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'
             WHERE ${fallbackWhere} AND a.final_text IS NOT NULL AND trim(${FINAL_TEXT("a")}) <> ''
             ${ORDER_NEWEST_FIRST} LIMIT 1`,
          )
          .get(fallbackParams)
      : null;
  const hasPrompt = window.some((t) => !isControlCommand(t.user));
  return {
    sessionId: live,
    totalTurns: total,
    window,
    olderNewestStartedAt: counts.older,
    olderSummarized: counts.summarized,
    firstStartedAt: counts.first,
    fallbackReply: fallback ? { text: fallback.final_text, at: fallback.ended_at } : null,
    fallbackPrompt: !hasPrompt && total > window.length ? newestRealPrompt(db, live, window.length) : null,
  };
}

/**
 * The newest prompt before the window's `skip` turns that is not a client control command
 * (core/context.ts): read newest first and stopped at the first, so a chain of a few `/clear`s
 * reads a few short rows.
 */
function newestRealPrompt(db: Database, live: string, skip: number): { text: string; at: number } | null {
  const params: Params = { skip };
  const where = partsWhere(chainParts(db, live), "t", params);
  const rows = db
    .query<{ text: string; started_at: number }, Params>(
      `SELECT u.text, t.started_at FROM turns t
       JOIN bodies u ON u.turn_id = t.id AND u.role = 'user'
       WHERE ${where} ${ORDER_NEWEST_FIRST} LIMIT -1 OFFSET $skip`,
    )
    .iterate(params);
  for (const r of rows) if (!isControlCommand(r.text)) return { text: r.text, at: r.started_at };
  return null;
}
