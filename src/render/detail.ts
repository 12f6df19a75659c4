/**
 * Text and JSON of `detail` (docs/contract.md): a turn's rows whole or cut to the page, each cut
 * marker naming the `detail --item` that prints the item, and `--item` itself. Plain text a model
 * can read; style only decorates headings when stdout is a terminal.
 */

import { formatClock, formatDate, formatIso } from "../core/clock.ts";
import { hostField, hostTag } from "../core/host.ts";
import { cutChars, plural, sliceBytes, utf8Length } from "../core/text.ts";
import { PULL_MAX_BYTES, turnKey } from "../core/turn-block.ts";
import type { DetailRow, TurnText } from "../db/queries/chain.ts";
import { type Colors, PLAIN_COLORS } from "./colors.ts";
import { nextPageLine } from "./pull.ts";

export interface DetailView {
  query: string;
  scope: string;
  window: { from: number; to: number } | null;
  total: number;
  limit: number;
  /** Turns of the match skipped before this page (`--skip`). */
  skip: number;
  /** Each item at most this long; 0: as long as the page allows. */
  maxChars: number;
  turns: readonly TurnText[];
  details: readonly DetailRow[];
  /** The invocation pointers are printed with, and the command line of this page without `--skip`. */
  command: string;
  again: string;
}

/** `12,345`, without Intl (its first use loads ICU data: milliseconds on a cold start). */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * Attachments Claude Code writes for itself (its system prompt, skill, agent and tool listings,
 * environment snapshots): the same in every turn, so `detail` counts them instead of printing them;
 * `--json` and `--item` still show them. The search index skips the same names (db/schema.ts,
 * migration 4, keeps its own frozen copy).
 */
export const CLIENT_CONTEXT = new Set([
  "prompt_snapshot",
  "skill_listing",
  "agent_listing_delta",
  "deferred_tools_delta",
  "mcp_instructions_delta",
  "environment",
  "model",
  "auto_mode",
  "session_context",
  "date",
  "date_change",
  "remote_session_change",
  "output_style",
  "plan_mode",
  "todo_reminder",
  "task_reminder",
  "critical_system_reminder",
  "token_usage",
  "budget_usd",
  "companion_intro",
  "invoked_skills",
]);

export function isClientContext(r: { kind: string; tool_name: string | null }): boolean {
  return r.kind === "attachment" && CLIENT_CONTEXT.has(r.tool_name ?? "");
}

/**
 * A piece of a detail page that may be cut: its text, the `--item` that shows all of it, and its
 * weight: the share of the page it may keep against the others (docs/contract.md, "detail").
 */
interface Slot {
  text: string;
  item: string;
  weight: number;
}
type Piece = string | Slot;

/**
 * What a turn's parts may keep, relative to a tool output: the prompt and the reply are what the
 * turn said (cut last), a tool's input is what it touched, thinking is the model's own scratch.
 */
const WEIGHT = { text: 4, input: 2, output: 1, thinking: 0.5 } as const;

/** An item this short is never cut; a longer one keeps at least MIN_KEEP. A page that cannot fit even that shows fewer turns. */
const MIN_CUT = 240;
const MIN_KEEP = 120;

/** The mark where an item was cut: short, since a page of many items repeats it (the footer names the command). */
function cutMarker(cut: number, item: string): string {
  return `\n[… ${thousands(cut)} chars cut · --item ${item}]\n`;
}

/** The page's one line that turns a mark into a command. */
function cutFooter(command: string): string {
  return `\n\nA cut item in full: \`${command} detail --item <ref>\` (the ref is in its [… chars cut · --item <ref>] mark)`;
}

/** Head and tail of `text` in about `max` characters, the middle replaced by the mark. */
function cutSlot(slot: Slot, max: number): string {
  if (slot.text.length <= max) return slot.text;
  const marker = cutMarker(slot.text.length, slot.item);
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil((keep * 2) / 3);
  const tail = keep - head;
  const cut = slot.text.length - head - tail;
  return `${cutChars(slot.text, head)}${cutMarker(cut, slot.item)}${tail > 0 ? slot.text.slice(slot.text.length - tail) : ""}`;
}

const slotCap = (s: Slot, cap: number) =>
  s.text.length <= MIN_CUT ? MIN_CUT : Math.max(MIN_KEEP, Math.floor(cap * s.weight));

function joinPieces(pieces: readonly Piece[], cap: number, command: string): string {
  let out = "";
  let cut = false;
  for (const p of pieces) {
    if (typeof p === "string") out += p;
    else {
      const max = slotCap(p, cap);
      cut ||= p.text.length > max;
      out += cutSlot(p, max);
    }
  }
  return cut ? out + cutFooter(command) : out;
}

/** The largest cap (a tool output's length) at which the page fits in `room`; -1 when not even the least does. */
function fittingCap(pieces: readonly Piece[], room: number, command: string, ceiling: number): number {
  const slots = pieces.filter((p): p is Slot => typeof p !== "string");
  const longest = slots.reduce((m, s) => Math.max(m, Math.ceil(s.text.length / s.weight)), 0);
  const top = ceiling > 0 ? Math.min(ceiling, longest) : longest;
  const size = (cap: number) => utf8Length(joinPieces(pieces, cap, command));
  if (size(top) <= room) return top;
  if (size(0) > room) return -1;
  let lo = 0;
  let hi = top;
  while (hi - lo > 16) {
    const mid = (lo + hi) >> 1;
    if (size(mid) <= room) lo = mid;
    else hi = mid;
  }
  return lo;
}

const KIND_TITLES: Record<string, string> = {
  tool_input: "tools",
  tool_output: "tools",
  thinking: "thinking",
  subagent: "subagents",
  image: "images",
  compaction: "compaction",
  command_output: "command output",
  notification: "notifications",
  ide_context: "IDE context",
  attachment: "attachments",
  hook: "hooks",
  system: "system",
  meta: "meta",
};

function toolPieces(rows: readonly DetailRow[], out: Piece[]): void {
  const outputs = new Map<string, DetailRow[]>();
  for (const r of rows)
    if (r.kind === "tool_output" && r.tool_use_id) {
      const list = outputs.get(r.tool_use_id) ?? [];
      list.push(r);
      outputs.set(r.tool_use_id, list);
    }
  const used = new Set<number>();
  const result = (r: DetailRow) => {
    used.add(r.id);
    out.push(`\n  → ${r.is_error ? "(error) " : ""}`, {
      text: r.output ?? "",
      item: String(r.id),
      weight: WEIGHT.output,
    });
  };
  for (const r of rows) {
    if (r.kind === "tool_input") {
      out.push(`\n[${formatClock(r.created_at)}] ${r.tool_name ?? "tool"} `, {
        text: r.input ?? "",
        item: String(r.id),
        weight: WEIGHT.input,
      });
      for (const o of r.tool_use_id ? (outputs.get(r.tool_use_id) ?? []) : []) result(o);
    } else if (!used.has(r.id)) {
      out.push(`\n[${formatClock(r.created_at)}] ${r.tool_name ?? "tool"} (result)`);
      result(r);
    }
  }
}

function otherPieces(r: DetailRow, out: Piece[]): void {
  const label = r.tool_name ? ` ${r.tool_name}` : "";
  const flag = r.is_error ? " (error)" : "";
  const body = [r.input, r.output].filter((x): x is string => x !== null && x !== "").join("\n→ ");
  const weight = r.kind === "thinking" ? WEIGHT.thinking : WEIGHT.output;
  out.push(`\n[${formatClock(r.created_at)}]${label}${flag}\n`, { text: body, item: String(r.id), weight });
}

function turnPieces(t: TurnText, rows: readonly DetailRow[], c: Colors, out: Piece[]): void {
  out.push(
    `\n\n${c.bold(`=== ${formatDate(t.startedAt)} ${formatClock(t.startedAt)} · turn ${turnKey(t)}${hostTag(t.host)} ===`)}\n[${formatClock(t.startedAt)}] [user]: `,
    { text: t.user, item: `${t.id}u`, weight: WEIGHT.text },
    `\n[${formatClock(t.endedAt)}] [assistant]: `,
    { text: t.assistant.trim() === "" ? "(no reply)" : t.assistant, item: `${t.id}a`, weight: WEIGHT.text },
  );
  const hidden = rows.filter(isClientContext);
  const groups = new Map<string, DetailRow[]>();
  for (const r of rows) {
    if (isClientContext(r)) continue;
    const title = KIND_TITLES[r.kind] ?? r.kind;
    const list = groups.get(title) ?? [];
    list.push(r);
    groups.set(title, list);
  }
  if (groups.size > 0 || hidden.length > 0) out.push("\n");
  for (const [title, list] of groups) {
    const n =
      title === "tools" ? list.filter((r) => r.kind === "tool_input").length || list.length : list.length;
    out.push(`\n${c.bold(`-- ${title} (${n}) --`)}`);
    if (title === "tools") toolPieces(list, out);
    else for (const r of list) otherPieces(r, out);
  }
  if (hidden.length > 0) {
    const names = [...new Set(hidden.map((r) => r.tool_name))].join(", ");
    out.push(
      `\n(not shown: ${plural(hidden.length, "attachment")} Claude Code writes for itself in every turn: ${names}; --json has them)`,
    );
  }
}

/**
 * A page of `detail`, at most PULL_MAX_BYTES of UTF-8 (what Claude Code shows the model whole): every item
 * of the page's turns cut to the longest length at which they all fit, head and tail kept, the cut
 * naming the `--item` that shows it all. When not even short items fit, the page holds fewer turns
 * and ends with the command for the next.
 */
export function renderDetail(view: DetailView, c: Colors = PLAIN_COLORS, max = PULL_MAX_BYTES): string {
  const stamp = (ms: number) => `${formatDate(ms)} ${formatClock(ms)}`;
  const when = view.window
    ? stamp(view.window.from) === stamp(view.window.to)
      ? `${stamp(view.window.from)} UTC`
      : `${stamp(view.window.from)} – ${stamp(view.window.to)} UTC`
    : "";
  if (view.turns.length === 0)
    return view.skip > 0 && view.total > 0
      ? `## detail ${view.query}: ${plural(view.total, "turn")} in ${view.scope}, none after skipping ${view.skip}`
      : `## detail ${view.query}: no turn at that time in ${view.scope}${when ? ` (looked at ${when})` : ""}`;
  const byTurn = new Map<number, DetailRow[]>();
  for (const d of view.details) {
    const list = byTurn.get(d.turn_id) ?? [];
    list.push(d);
    byTurn.set(d.turn_id, list);
  }
  const range = (n: number) =>
    n === view.total && view.skip === 0
      ? view.total === 1
        ? "1 turn"
        : `${view.total} turns`
      : `turns ${view.skip + 1}–${view.skip + n} of ${view.total}`;
  const nextLine = (n: number) => {
    const after = view.skip + n;
    if (after >= view.total) return "";
    return `\n\n${nextPageLine(
      `turns ${after + 1}–${view.limit > 0 ? Math.min(view.total, after + view.limit) : view.total} of ${view.total}`,
      `${view.again} --skip ${after}`,
    )}`;
  };
  let shown = view.turns.length;
  for (;;) {
    const pieces: Piece[] = [c.bold(`## detail ${view.query} → ${when} in ${view.scope}: ${range(shown)}`)];
    for (const t of view.turns.slice(0, shown)) turnPieces(t, byTurn.get(t.id) ?? [], c, pieces);
    pieces.push(nextLine(shown));
    // The page and the newline the CLI prints after it stay within `max`.
    const room = max - 1;
    const cap = fittingCap(pieces, room, view.command, view.maxChars);
    if (cap >= 0 || shown === 1) {
      const text = joinPieces(pieces, Math.max(cap, 0), view.command);
      return utf8Length(text) <= room
        ? text
        : `${sliceBytes(text, 0, room - 80)}\n(cut at the page limit: --json has every item)`;
    }
    shown--;
  }
}

/** One stored item whole (`detail --item`), a page at a time: `offset` is where this page starts. */
export function renderItem(
  item: { label: string; text: string },
  ref: string,
  offset: number,
  command: string,
  max = PULL_MAX_BYTES,
): string {
  const head = `## detail --item ${ref}: ${item.label} (${thousands(item.text.length)} chars)`;
  const room = max - utf8Length(head) - 300;
  const body = sliceBytes(item.text, offset, room);
  const end = offset + body.length;
  const lines = [
    offset > 0 || end < item.text.length ? `${head}, chars ${thousands(offset)}–${thousands(end)}` : head,
    body,
  ];
  if (end < item.text.length)
    lines.push(nextPageLine(`chars ${thousands(end)}–`, `${command} detail --item ${ref} --offset ${end}`));
  return lines.join("\n");
}

/** `throughline.detail.v1`: the shown turns with every L3 row, uncut. */
export function detailJson(view: DetailView) {
  return {
    schema: "throughline.detail.v1",
    query: view.query,
    scope: view.scope,
    from: view.window ? formatIso(view.window.from) : null,
    to: view.window ? formatIso(view.window.to) : null,
    total: view.total,
    shown: view.turns.length,
    turns: view.turns.map((t) => ({
      turn_key: turnKey(t),
      ...hostField(t.host),
      started_at: formatIso(t.startedAt),
      ended_at: formatIso(t.endedAt),
      user: t.user,
      assistant: t.assistant,
      details: view.details
        .filter((d) => d.turn_id === t.id)
        .map((d) => ({
          kind: d.kind,
          tool_name: d.tool_name,
          tool_use_id: d.tool_use_id,
          input: d.input,
          output: d.output,
          is_error: d.is_error === 1,
          created_at: formatIso(d.created_at),
        })),
    })),
  };
}
