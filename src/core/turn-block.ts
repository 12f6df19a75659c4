/**
 * The limits the push and the pulls share, and one turn as a block of text: its prompt, reply,
 * tool line and the labels of what it holds (src/core/context.ts composes the push from them). Pure.
 */

import { formatClock } from "./clock.ts";
import { hostTag, type MarkedHost } from "./host.ts";
import { fit, flatLine } from "./text.ts";
import { type DigestForm, FULL_FORM, PUSH_FORM, type ToolUse, toolLine } from "./tool-digest.ts";

export const CONTEXT_BUDGET = 9500;
/**
 * The most UTF-8 bytes one printed pull (`recall`, `detail`, `search`) may print: Claude Code's
 * Bash tool hands the model an output whole up to 30,000 bytes (bytes, not characters: 2.1.197 and
 * 2.1.332 alike) and only a 2,000-character preview above (docs/contract.md#pulls-read-only;
 * test/e2e/output-limit.test.ts). The margin leaves room for stderr and a client that moves.
 */
export const PULL_MAX_BYTES = 24000;
export const POSITION_CUT = 600;
/** The newest prompt in the position once it is also pushed whole below. */
export const POSITION_BRIEF_CUT = 200;
export const WINDOW_TURNS = 20;
export const MIN_TRUNCATED_ROOM = 400;
/** At most this many labels in a turn's `(details: …)` suffix. */
export const DETAIL_LABELS_MAX = 8;
/** A slash command's expansion under its prompt: pushed, and in `recall --l2`; `detail` has all of it. */
export const COMMAND_PUSH_CUT = 300;
export const COMMAND_FULL_CUT = 2000;
/** A bash-mode turn's output is shown this short; `detail` has all of it. */
export const SHELL_CUT = 300;
/** A pushed turn's tool line (core/tool-digest.ts) is cut here; `recall --l2` shows up to TOOLS_FULL_MAX. */
export const TOOLS_PUSH_MAX = 1200;
export const TOOLS_FULL_MAX = 4000;

/** `<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>` → the text, or null when empty. */
function shellText(recorded: string | undefined): string | null {
  if (recorded === undefined) return null;
  const parts = [...recorded.matchAll(/<bash-(stdout|stderr)>([\s\S]*?)<\/bash-\1>/g)].map((m) =>
    m[2]!.trim(),
  );
  const text = (parts.length > 0 ? parts.join("\n") : recorded).trim();
  return text === "" ? "(no output)" : text;
}

/** How many L3 rows of one kind (and tool) a turn holds, in order of first appearance. */
export interface DetailCount {
  kind: string;
  toolName: string | null;
  count: number;
}

export interface ChainTurn {
  originSessionId: string;
  turnNumber: number;
  startedAt: number;
  endedAt: number;
  /** The human prompt (L2, user row). */
  user: string;
  /** All assistant text of the turn (L2, assistant row). */
  assistant: string;
  /** The last response's text: what the person last read. Null when the assistant said nothing. */
  finalText: string | null;
  details: DetailCount[];
  /** What a bash-mode prompt (`!ls`) printed, as Claude Code recorded it. */
  shellOutput?: string;
  /** What a slash command (`/review`) expanded to: the instructions the model got for it. */
  commandText?: string;
  /** The turn's tool calls, for its tool line (core/tool-digest.ts). */
  tools?: ToolUse[];
  /** The project of the turn's session: tool paths under it are shown relative to it. */
  project?: string | null;
  /** The host of the turn's session when it is not Claude Code (core/host.ts hostMark). */
  host?: MarkedHost;
}

export function turnKey(t: { originSessionId: string; turnNumber: number }): string {
  return `${t.originSessionId}:${t.turnNumber}`;
}

const KIND_LABELS: Record<string, string> = {
  thinking: "thinking",
  image: "image",
  subagent: "subagent",
  compaction: "compaction",
  command_output: "command output",
  notification: "notification",
  ide_context: "IDE context",
  attachment: "attachment",
  hook: "hook",
  system: "system",
  meta: "meta",
};

/** Intermediate narration kept in L2 but not pushed: the text before the final response. */
export function earlierNotes(assistant: string, finalText: string | null): number {
  if (finalText === null || assistant === finalText || !assistant.endsWith(finalText)) return 0;
  const earlier = assistant.slice(0, assistant.length - finalText.length);
  return earlier.split(/\n\s*\n/).filter((p) => p.trim().length > 0).length;
}

/** `4 earlier notes, Bash ×3, Edit, thinking`: what `detail` holds beyond the pushed lines. */
export function detailLabels(details: readonly DetailCount[], notes: number, toolLine = false): string[] {
  const labels: string[] = [];
  if (notes > 0) labels.push(notes === 1 ? "1 earlier note" : `${notes} earlier notes`);
  const counts = new Map<string, number>();
  for (const d of details) {
    if (d.kind === "tool_output") continue; // paired with its tool_input
    if (toolLine && d.kind === "tool_input") continue; // the tool line names what they did
    // Claude Code's own context injections (skill listings, hook successes) are not the turn's work.
    if (d.kind === "attachment" || d.kind === "hook") continue;
    const label = d.kind === "tool_input" ? (d.toolName ?? "tool") : (KIND_LABELS[d.kind] ?? d.kind);
    counts.set(label, (counts.get(label) ?? 0) + d.count);
  }
  for (const [label, n] of counts) labels.push(n > 1 ? `${label} ×${n}` : label);
  if (labels.length <= DETAIL_LABELS_MAX) return labels;
  return [...labels.slice(0, DETAIL_LABELS_MAX), `${labels.length - DETAIL_LABELS_MAX} more`];
}

/**
 * One turn in the push's line grammar: `[HH:MM:SS] [user]: …` then `[HH:MM:SS] [assistant]: …`
 * with the `(details: …)` suffix on the last line. `assistantText` is the final text in the
 * push and all the text in `recall --l2`.
 */
export function renderTurnBlock(turn: ChainTurn, mode: "push" | "full"): string {
  const text = mode === "push" ? turn.finalText : turn.assistant || null;
  const shell = text === null || text.trim() === "" ? shellText(turn.shellOutput) : null;
  const host = hostTag(turn.host);
  if (shell !== null)
    return `[${formatClock(turn.startedAt)}]${host} [user]: ${turn.user}\n[${formatClock(turn.endedAt)}] [shell]: ${flatLine(shell, SHELL_CUT)}`;
  const reply = text !== null && text.trim() !== "" ? text : "(no reply)";
  const notes = mode === "push" ? earlierNotes(turn.assistant, turn.finalText) : 0;
  const tools =
    mode === "push"
      ? turnToolLine(turn, TOOLS_PUSH_MAX, PUSH_FORM)
      : turnToolLine(turn, TOOLS_FULL_MAX, FULL_FORM);
  const labels = detailLabels(turn.details, notes, tools !== "");
  const suffix = labels.length > 0 ? ` (details: ${labels.join(", ")})` : "";
  const command = turn.commandText
    ? `\n  (the command's text: ${flatLine(turn.commandText, mode === "push" ? COMMAND_PUSH_CUT : COMMAND_FULL_CUT)})`
    : "";
  return `[${formatClock(turn.startedAt)}]${host} [user]: ${turn.user}${command}\n[${formatClock(turn.endedAt)}] [assistant]: ${reply}${suffix}${tools ? `\n  ${tools}` : ""}`;
}

/** A brief is never cut below this; a brief line is at most BRIEF_MAX characters. */
export const BRIEF_MIN = 160;
export const BRIEF_MAX = 900;

/** `[HH:MM:SS] <prompt> → <final reply>; tools: …` in at most `max` characters. */
export function briefLine(turn: ChainTurn, max: number): string {
  const head = `[${formatClock(turn.startedAt)}]${hostTag(turn.host)} ${flatLine(turn.user, 200)}`;
  const reply = turn.finalText ? ` → ${flatLine(turn.finalText, 200)}` : "";
  const tools = turnToolLine(turn, max, PUSH_FORM);
  return fit(`${head}${reply}${tools ? `; ${tools}` : ""}`, max);
}

/** `tools: read a.ts; ran `npm test` (failed: exit 1)`, or "" when the turn ran none. */
export function turnToolLine(turn: ChainTurn, max: number, form: DigestForm): string {
  return turn.tools && turn.tools.length > 0 ? toolLine(turn.tools, turn.project ?? null, max, form) : "";
}
