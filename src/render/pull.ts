/**
 * Text and JSON of the recall pulls (docs/contract.md): `recall --l2` and `recall --l1` (`detail`
 * is src/render/detail.ts).
 * Plain text a model can read; style only decorates headings when stdout is a terminal.
 */
import { formatClock, formatDate, formatIso } from "../core/clock.ts";
import { truncationSuffix } from "../core/context.ts";
import { hostField, hostTag } from "../core/host.ts";
import { shellQuote } from "../core/invocation.ts";
import { fit, flatLine, plural, sliceBytes, utf8Length } from "../core/text.ts";
import { FULL_FORM, PUSH_FORM } from "../core/tool-digest.ts";
import {
  type DetailCount,
  PULL_MAX_BYTES,
  renderTurnBlock,
  TOOLS_FULL_MAX,
  TOOLS_PUSH_MAX,
  turnKey,
  turnToolLine,
} from "../core/turn-block.ts";
import type { LoadedTurn, SummaryRow } from "../db/queries/chain.ts";
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
export function nextPageLine(what: string, command: string): string {
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
    return `[${iso.slice(11, 19)}]${hostTag(r.host)} ${summary}`;
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
          ...hostField(t.host),
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
          ...hostField(r.host),
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
