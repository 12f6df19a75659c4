/**
 * Text and JSON of the pull commands (docs/contract.md): `recall --l2`, `recall --l1` and `detail`.
 * Plain text a model can read; style only decorates headings when stdout is a terminal.
 */
import { formatClock, formatDate, formatIso } from "../core/clock.ts";
import {
  type DetailCount,
  PULL_MAX_BYTES,
  renderTurnBlock,
  TOOLS_FULL_MAX,
  TOOLS_PUSH_MAX,
  truncationSuffix,
  turnKey,
  turnToolLine,
} from "../core/context.ts";
import { shellQuote } from "../core/invocation.ts";
import { cutChars, fit, flatLine, plural, sliceBytes, utf8Length } from "../core/text.ts";
import { FULL_FORM, PUSH_FORM } from "../core/tool-digest.ts";
import type { DetailRow, LoadedTurn, SummaryRow, TurnText } from "../db/queries/chain.ts";
import { type Colors, PLAIN_COLORS } from "./colors.ts";

/** A `--- YYYY-MM-DD ---` line whenever the local date changes, so `HH:MM:SS` stays unambiguous. */
function dated<T>(items: readonly T[], at: (t: T) => number, render: (t: T) => string, c: Colors): string[] {
  const out: string[] = [];
  let day = "";
  for (const item of items) {
    const d = formatDate(at(item));
    if (d !== day) {
      out.push(c.dim(`--- ${d} (UTC) ---`));
      day = d;
    }
    out.push(render(item));
  }
  return out;
}

export interface RecallRequest {
  sessionId: string;
  before: number;
  skip: number;
  last: number | null;
}

/**
 * How many of the newest items fit in `room` characters (each item costs its length plus one
 * newline), at least one whenever there is any: the caller cuts a lone item that is still too long.
 * A page never ends inside a millisecond that an older item shares, because the next page asks for
 * items strictly before the oldest shown one: such items move to the next page too.
 */
export function newestThatFit(lengths: readonly number[], starts: readonly number[], room: number): number {
  const n = lengths.length;
  let used = 0;
  let k = 0;
  while (k < n) {
    const cost = lengths[n - 1 - k]! + 1;
    if (used + cost > room && k > 0) break;
    used += cost;
    k++;
  }
  let settled = k;
  while (settled > 0 && settled < n && starts[n - settled - 1] === starts[n - settled]) settled--;
  // A page of one millisecond only (never seen in a real transcript) is shown whole rather than empty.
  return settled > 0 ? settled : k;
}

/** The line that ends a page: the exact command for the rest, older items first shown there. */
function nextPageLine(what: string, command: string): string {
  return `Next page (${what}): \`${command}\``;
}

/**
 * The longest cut `x` (in characters) such that the lines, each fitted to `x`, take at most `room`
 * UTF-8 bytes with their newlines: short lines stay whole, the long ones share what is left.
 */
export function fitLines(lines: readonly string[], room: number): string[] {
  const cost = (x: number) => lines.reduce((n, l) => n + utf8Length(fit(l, x)) + 1, 0);
  let hi = Math.max(0, ...lines.map((l) => l.length));
  if (cost(hi) <= room) return [...lines];
  let lo = 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (cost(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo < NEWER_LINE_MIN ? [] : lines.map((l) => fit(l, lo));
}

/** What the window's text leaves on the page at least, for the newer turns' tool lines. */
const NEWER_RESERVE = 600;
/** A newer turn's tool line is not worth printing shorter than this. */
const NEWER_LINE_MIN = 120;
/** A newer turn's tool line in full is at most this long before the page's share cuts it. */
export const NEWER_TOOLS_MAX = 8000;

/**
 * `--newer-tools`: the full tool lines of the turns from the boundary on, which a push showed
 * whole but with brief tool lines (docs/contract.md#pulls-read-only). They take what the window's
 * text leaves of the page.
 */
function newerToolsSection(
  newer: readonly LoadedTurn[],
  room: number,
  command: string,
  sessionId: string,
): string {
  const used = newer.filter((t) => t.tools !== undefined && t.tools.length > 0);
  // A line the push already showed whole is not repeated.
  const rows = used
    .map((t) => ({ t, line: turnToolLine(t, NEWER_TOOLS_MAX, FULL_FORM) }))
    .filter((r) => r.line !== turnToolLine(r.t, TOOLS_PUSH_MAX, PUSH_FORM));
  const whole = used.length - rows.length;
  const head = `## Tools of the ${plural(newer.length, "newer turn")} in full (their text is in the push)`;
  const note =
    rows.length === 0
      ? `(${used.length === 0 ? "they ran no tools" : "the push showed their tool lines whole"})`
      : whole > 0
        ? `(${plural(whole, "tool line")} the push showed whole ${whole === 1 ? "is" : "are"} left out)`
        : "";
  if (rows.length === 0) return `${head}\n${note}`;
  const lines = rows.map((r) => `[${formatClock(r.t.startedAt)}] ${r.line}`);
  const fitted = fitLines(lines, room - utf8Length(head) - utf8Length(note) - 3);
  if (fitted.length === 0) {
    const first = rows[0]!.t;
    const line = `${head}\n(no room left on this page: \`${command} detail ${formatIso(first.startedAt)} --session ${shellQuote(sessionId)}\` shows a turn's tools)`;
    return utf8Length(line) <= room ? line : head;
  }
  return [head, ...(note ? [note] : []), ...fitted].join("\n");
}

/** `command` is the invocation the next-page and `detail` pointers are printed with (core/invocation.ts). */
export function renderRecallL2(
  req: RecallRequest,
  turns: readonly LoadedTurn[],
  command: string,
  c: Colors = PLAIN_COLORS,
  max = PULL_MAX_BYTES,
  newer: readonly LoadedTurn[] | null = null,
): string {
  if (newer === null) return renderWindow(req, turns, command, c, max).page;
  // The newer turns' tool lines go between the window's turns and the page's last line, so a page
  // still ends with its next-page command.
  const window = renderWindow(req, turns, command, c, max - NEWER_RESERVE);
  // The section's head is bolded on a terminal: its escapes count too. Room is kept for the blank
  // lines around the section and the newline the CLI prints after it.
  const room = max - utf8Length(window.page) - 5 - utf8Length(c.bold(""));
  const section = newerToolsSection(newer, room, command, req.sessionId);
  const nl = section.indexOf("\n");
  const tools = nl < 0 ? c.bold(section) : `${c.bold(section.slice(0, nl))}${section.slice(nl)}`;
  return `${window.text}\n\n${tools}${window.next === null ? "" : `\n\n${window.next}`}`;
}

function renderWindow(
  req: RecallRequest,
  turns: readonly LoadedTurn[],
  command: string,
  c: Colors,
  max: number,
): { text: string; next: string | null; page: string } {
  const asked = req.last ?? turns.length;
  const headOf = (shown: number) =>
    c.bold(
      asked === 0
        ? `## recall --l2: no window turns asked for (--last 0; session ${req.sessionId})`
        : turns.length === 0
          ? `## recall --l2: no turns start before ${formatIso(req.before)} (session ${req.sessionId})`
          : shown === turns.length
            ? `## recall --l2: ${turns.length === 1 ? "1 turn" : `${turns.length} turns`} before ${formatIso(req.before)}, oldest first (session ${req.sessionId})`
            : `## recall --l2: the newest ${shown} of ${turns.length} turns before ${formatIso(req.before)}, oldest first (session ${req.sessionId}); the older ones are on the next page`,
    );
  const lines = [headOf(turns.length)];
  if (turns.length < asked)
    lines.push(`(asked for ${asked}; only ${turns.length} start before this boundary)`);
  const blocks = turns.map((t) => `${renderTurnBlock(t, "full")}\n`);
  // Each turn's block is rendered once: the whole text, the fitting and the page all use it.
  const blockOf = new Map(turns.map((t, i) => [t, blocks[i]!]));
  const whole = [
    ...lines,
    ...dated(
      turns,
      (t) => t.startedAt,
      (t) => blockOf.get(t)!,
      c,
    ),
  ]
    .join("\n")
    .trimEnd();
  if (utf8Length(whole) < max) return { text: whole, next: null, page: whole }; // with the newline the CLI prints after it
  // The newest turns first: what the next prompt most likely needs. Room is kept for the head,
  // the date lines and the next-page line.
  const id = shellQuote(req.sessionId);
  const pointer = (oldest: LoadedTurn, rest: number) =>
    nextPageLine(
      `${plural(rest, "older turn")}`,
      `${command} recall --l2 --session ${id} --before ${formatIso(oldest.startedAt)} --last ${rest}`,
    );
  const reserve = utf8Length(headOf(0)) + 200 + utf8Length(pointer(turns[0]!, turns.length)) + 40 * 24;
  const room = max - reserve;
  const k = newestThatFit(
    blocks.map(utf8Length),
    turns.map((t) => t.startedAt),
    room,
  );
  let shown = turns.slice(turns.length - k);
  const rest = turns.length - k;
  const render = (t: LoadedTurn) => {
    const block = blockOf.get(t)!;
    if (utf8Length(block) <= room) return block;
    const suffix = truncationSuffix(t, command, req.sessionId);
    return `${sliceBytes(block, 0, room - utf8Length(suffix))}${suffix}\n`;
  };
  if (k === 0) shown = [];
  const out = [headOf(k), ...dated(shown, (t) => t.startedAt, render, c)];
  const text = out.join("\n").trimEnd();
  if (rest === 0) return { text, next: null, page: text };
  const next = pointer(shown[0]!, rest);
  return { text, next, page: [...out, next].join("\n").trimEnd() };
}

/** `command` is the invocation the `detail` and next-page pointers are printed with (core/invocation.ts). */
export function renderRecallL1(
  req: RecallRequest,
  rows: readonly SummaryRow[],
  command: string,
  c: Colors = PLAIN_COLORS,
  max = PULL_MAX_BYTES,
): string {
  const summarized = rows.filter((r) => r.summary !== null).length;
  const scope =
    req.skip > 0
      ? `before ${formatIso(req.before)}, skipping the newest ${req.skip}`
      : `before ${formatIso(req.before)}`;
  const lines = [
    c.bold(
      `## recall --l1: ${rows.length} turns, ${summarized} summarized (${scope}; session ${req.sessionId})`,
    ),
  ];
  if (req.last !== null && rows.length < req.last)
    lines.push(`(asked for ${req.last}; only ${rows.length} exist in this range)`);
  const id = shellQuote(req.sessionId);
  const entry = (r: SummaryRow, iso: string) => {
    const summary =
      r.summary === null
        ? `(not summarized) full text: ${command} detail ${iso} --session ${id}`
        : MULTI_SPACE.test(r.summary)
          ? flatLine(r.summary, Number.MAX_SAFE_INTEGER) // one line each, whatever the backend wrote
          : r.summary;
    return `[${iso.slice(11, 19)}] ${summary}`;
  };
  // A loop, not map/spread: a baked --l1 may name every turn of a 100,000-turn chain. Lines are
  // built newest first until the page is full, then printed oldest first.
  const reserve = utf8Length(lines.join("\n")) + 300;
  const picked: string[] = [];
  let used = 0;
  let i = rows.length - 1;
  for (; i >= 0; i--) {
    const iso = formatIso(rows[i]!.started_at);
    const line = entry(rows[i]!, iso);
    const cost =
      line.length +
      1 +
      (i === 0 || formatIso(rows[i - 1]!.started_at).slice(0, 10) !== iso.slice(0, 10) ? 30 : 0);
    if (used + cost > max - reserve && picked.length > 0) break;
    used += cost;
    picked.push(line);
  }
  // The next page asks for turns strictly before the oldest shown one: never split a millisecond.
  let first = i + 1;
  while (first < rows.length - 1 && first > 0 && rows[first]!.started_at === rows[first - 1]!.started_at) {
    first++;
    picked.pop();
  }
  let day = "";
  for (let j = first; j < rows.length; j++) {
    const iso = formatIso(rows[j]!.started_at);
    if (iso.slice(0, 10) !== day) {
      day = iso.slice(0, 10);
      lines.push(c.dim(`--- ${day} (UTC) ---`));
    }
    lines.push(picked[rows.length - 1 - j]!);
  }
  if (first > 0) {
    lines[0] = c.bold(
      `## recall --l1: the newest ${rows.length - first} of ${rows.length} turns, ${summarized} summarized (${scope}; session ${req.sessionId}); the older ones are on the next page`,
    );
    const last = req.last !== null ? ` --last ${first}` : "";
    lines.push(
      nextPageLine(
        plural(first, "older turn"),
        `${command} recall --l1 --session ${id} --before ${formatIso(rows[first]!.started_at)}${last}`,
      ),
    );
  }
  return lines.join("\n");
}

const MULTI_SPACE = /\s\s|[^\S ]|^\s|\s$/;

function countsJson(d: readonly DetailCount[]) {
  return d.map((x) => ({ kind: x.kind, tool_name: x.toolName, count: x.count }));
}

/** A turn's full tool line without its `tools: ` label, or null: the JSON's `tools` field. */
function toolsField(t: LoadedTurn, max: number): string | null {
  return turnToolLine(t, max, FULL_FORM).replace(/^tools: /, "") || null;
}

/** `throughline.recall.v1` (docs/contract.md). */
export function recallJson(
  mode: "l2" | "l1",
  req: RecallRequest,
  turns: readonly LoadedTurn[] | readonly SummaryRow[],
  newer: readonly LoadedTurn[] | null = null,
) {
  const items =
    mode === "l2"
      ? (turns as readonly LoadedTurn[]).map((t) => ({
          turn_key: turnKey(t),
          started_at: formatIso(t.startedAt),
          ended_at: formatIso(t.endedAt),
          user: t.user,
          assistant: t.assistant,
          summary: null,
          details: countsJson(t.details),
          tools: toolsField(t, TOOLS_FULL_MAX),
        }))
      : (turns as readonly SummaryRow[]).map((r) => ({
          turn_key: `${r.origin_session_id}:${r.turn_number}`,
          started_at: formatIso(r.started_at),
          ended_at: formatIso(r.ended_at),
          user: null,
          assistant: null,
          summary: r.summary,
          details: [],
          tools: null,
        }));
  return {
    schema: "throughline.recall.v1",
    mode,
    session_id: req.sessionId,
    before: formatIso(req.before),
    skip: req.skip,
    last: req.last,
    turns: items,
    ...(newer === null
      ? {}
      : {
          newer_tools: newer.map((t) => ({
            turn_key: turnKey(t),
            started_at: formatIso(t.startedAt),
            tools: toolsField(t, NEWER_TOOLS_MAX),
          })),
        }),
  };
}

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
    `\n\n${c.bold(`=== ${formatDate(t.startedAt)} ${formatClock(t.startedAt)} · turn ${turnKey(t)} ===`)}\n[${formatClock(t.startedAt)}] [user]: `,
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
