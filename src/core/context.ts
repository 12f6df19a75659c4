/**
 * The push (docs/contract.md#the-push): chain rows in, the resume context text and its stats out. Pure.
 *
 * Budget: the whole text is at most CONTEXT_BUDGET JavaScript characters in every case,
 * because Claude Code swaps a longer context for a file stub the model cannot see. Header,
 * current position and guide are fixed; window turns fill the rest newest first, whole turns
 * only. The guide's baked pull commands depend on how many turns were pushed, so each
 * candidate is measured as the complete text, never estimated.
 */
import { formatClock, formatDate, formatIso, formatRange } from "./clock.ts";
import { shellQuote } from "./invocation.ts";
import { cutChars, fit, flatLine, plural } from "./text.ts";
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
}

export interface ContextInput {
  /** Live end of the chain: the id baked into the pull commands. */
  sessionId: string;
  /** True number of turns in the chain. */
  totalTurns: number;
  /** The newest min(WINDOW_TURNS, totalTurns) turns of the chain, oldest first. */
  window: ChainTurn[];
  /** Start of the newest turn before the window (null when there is none). */
  olderNewestStartedAt: number | null;
  /** How many turns before the window have an L1 summary. */
  olderSummarized: number;
  /** Start of the chain's oldest turn, for the header. */
  firstStartedAt: number | null;
  /** Newest assistant text of the chain when no window turn has one. */
  fallbackReply: { text: string; at: number } | null;
  /**
   * Newest prompt of the chain that is not a client control command, when every window turn is
   * one (`/clear`, `/exit`…): the position names it instead. Null or absent: there is none.
   */
  fallbackPrompt?: { text: string; at: number } | null;
}

/** docs/contract.md#the-push: recorded per push; also printed by `context --json`. */
export interface ContextStats {
  total_chars: number;
  budget: number;
  injected_turns: number;
  remaining_turns: number;
  older_turns: number;
  older_summarized: number;
  truncated_newest: boolean;
  boundary: string | null;
  /** Window turns not pushed whole that the push names in one line each. */
  brief_turns: number;
}

export interface ContextResult {
  text: string;
  stats: ContextStats;
  /** The pushed turns, oldest first. */
  turns: { turnKey: string; startedAt: number }[];
  pull: { l2: string | null; l1: string | null };
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
  if (shell !== null)
    return `[${formatClock(turn.startedAt)}] [user]: ${turn.user}\n[${formatClock(turn.endedAt)}] [shell]: ${flatLine(shell, SHELL_CUT)}`;
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
  return `[${formatClock(turn.startedAt)}] [user]: ${turn.user}${command}\n[${formatClock(turn.endedAt)}] [assistant]: ${reply}${suffix}${tools ? `\n  ${tools}` : ""}`;
}

/** A brief is never cut below this; a brief line is at most BRIEF_MAX characters. */
const BRIEF_MIN = 160;
export const BRIEF_MAX = 900;

/** `[HH:MM:SS] <prompt> → <final reply>; tools: …` in at most `max` characters. */
function briefLine(turn: ChainTurn, max: number): string {
  const head = `[${formatClock(turn.startedAt)}] ${flatLine(turn.user, 200)}`;
  const reply = turn.finalText ? ` → ${flatLine(turn.finalText, 200)}` : "";
  const tools = turnToolLine(turn, max, PUSH_FORM);
  return fit(`${head}${reply}${tools ? `; ${tools}` : ""}`, max);
}

/** `tools: read a.ts; ran `npm test` (failed: exit 1)`, or "" when the turn ran none. */
export function turnToolLine(turn: ChainTurn, max: number, form: DigestForm): string {
  return turn.tools && turn.tools.length > 0 ? toolLine(turn.tools, turn.project ?? null, max, form) : "";
}

/**
 * What the push is for: a new session continuing this one (`/clear`, `/tl`, a start), or this very
 * session after Claude Code compacted it, where only turns since the compaction before may be
 * pushed whole (the earlier ones were in the last such push; the pulls still reach every turn).
 */
export type PushMoment = { kind: "handoff" } | { kind: "compaction"; since: number | null };
const HANDOFF: PushMoment = { kind: "handoff" };

function renderHeader(input: ContextInput, newestAt: number | null, moment: PushMoment): string {
  const span =
    input.firstStartedAt !== null && newestAt !== null
      ? `, from ${formatDate(input.firstStartedAt)} ${formatClock(input.firstStartedAt)} to ${formatDate(newestAt)} ${formatClock(newestAt)} UTC`
      : "";
  if (moment.kind === "compaction")
    return [
      "# Resume context after compaction (throughline)",
      `Claude Code has just compacted this conversation: the summary above is its own, and lossy. This conversation's memory holds ${plural(input.totalTurns, "turn")} verbatim${span}. The newest turns${moment.since === null ? "" : " since the compaction before this one"} are below, word for word; the commands under "How to pull the rest" fetch every other turn exactly as it was.`,
      "Reading rules:",
      "- Where the summary and these turns differ, these turns are what was said.",
      "- Carry on with the task in hand; before redoing a step the summary mentions, pull the turn that did it.",
    ].join("\n");
  return [
    "# Resume context (throughline)",
    `This is the continuation of your own conversation with the user. The screen was cleared, but the work goes on: this conversation's memory holds ${plural(input.totalTurns, "turn")}${span}. The newest turns are below; the commands under "How to pull the rest" fetch every other turn.`,
    "Reading rules:",
    "- The user's next message continues this thread.",
    '- A short go-ahead ("ok", "yes", "continue", "do it", or any message of 50 characters or fewer) means: do the next step you proposed.',
    "- Do not greet, do not ask what the user means, do not re-offer options already decided, do not re-run steps already done.",
  ].join("\n");
}

/**
 * The position, and from how many pushed turns on it may be brief: once the newest prompt and the
 * reply it names are both pushed whole below, repeating them costs room another turn could use.
 */
function renderPosition(
  input: ContextInput,
  command: string,
): { full: string; brief: string; briefFrom: number } {
  const last = input.window[input.window.length - 1];
  if (!last) {
    const none = "## Current position\n(no turns yet)";
    return { full: none, brief: none, briefFrom: Number.POSITIVE_INFINITY };
  }
  // `/exit`, `/clear`, `/tl`… stay turns, but the position names the last real instruction: in
  // the window, else the newest before it; never a control command.
  const real = input.window.filter((t) => !isControlCommand(t.user));
  const inWindow = real[real.length - 1];
  const prompt = inWindow ? { text: inWindow.user, at: inWindow.startedAt } : (input.fallbackPrompt ?? null);
  const withReply = real.findLast((t) => t.finalText !== null && t.finalText.trim() !== "");
  const reply = withReply ? { text: withReply.finalText!, at: withReply.endedAt } : input.fallbackReply;
  // The turn just finished is what the next prompt most often needs beyond its text.
  const full = `Latest turn in full (its text, every tool call and output): \`${command} detail ${formatIso(prompt?.at ?? last.startedAt)} --session ${shellQuote(input.sessionId)}\``;
  const lines = (cut: number, replyLine: string) =>
    [
      "## Current position",
      prompt
        ? `Latest prompt [${formatClock(prompt.at)}]: ${flatLine(prompt.text, cut)}`
        : "Latest prompt: (none: the chain holds only client control commands like /clear and /exit)",
      replyLine,
      full,
    ].join("\n");
  const w = input.window;
  // A prompt from before the window is never pushed whole: the position then stays full.
  const promptAt = inWindow ? w.indexOf(inWindow) : prompt ? -1 : w.length - 1;
  const oldestNeeded = Math.min(promptAt, withReply ? w.indexOf(withReply) : -1);
  return {
    full: lines(
      POSITION_CUT,
      reply
        ? `Latest reply [${formatClock(reply.at)}]: ${flatLine(reply.text, POSITION_CUT)}`
        : "Latest reply: (no reply yet)",
    ),
    brief: lines(
      POSITION_BRIEF_CUT,
      reply ? `Latest reply [${formatClock(reply.at)}]: in full below` : "Latest reply: (no reply yet)",
    ),
    briefFrom: oldestNeeded < 0 ? Number.POSITIVE_INFINITY : w.length - oldestNeeded,
  };
}

/**
 * Claude Code's own commands that steer the client rather than instruct the model, typed with
 * no arguments. A custom slash command (`/review`) is an instruction and is not listed here.
 */
const CONTROL_COMMANDS = new Set([
  "add-dir",
  "agents",
  "bashes",
  "bug",
  "clear",
  "compact",
  "config",
  "context",
  "cost",
  "doctor",
  "effort",
  "exit",
  "export",
  "fast",
  "feedback",
  "help",
  "hooks",
  "ide",
  "keybindings",
  "login",
  "logout",
  "mcp",
  "memory",
  "model",
  "new",
  "output-style",
  "permissions",
  "plugin",
  "privacy-settings",
  "quit",
  "release-notes",
  "reset",
  "resume",
  "rewind",
  "sandbox",
  "stats",
  "status",
  "statusline",
  "tasks",
  "terminal-setup",
  "theme",
  "tl",
  "todos",
  "upgrade",
  "usage",
  "vim",
]);

export function isControlCommand(prompt: string): boolean {
  const m = /^\/([a-z][a-z-]*)\s*$/.exec(prompt);
  return m !== null && CONTROL_COMMANDS.has(m[1]!);
}

interface Plan {
  pushed: number;
  /** Replaces the newest turn's block when it alone does not fit. */
  truncatedBlock: string | null;
  /** One-line briefs of the window turns just older than the pushed ones, oldest first. */
  briefs?: readonly string[];
}

interface Composed {
  text: string;
  boundary: number | null;
  l2: string | null;
  l1: string | null;
}

/**
 * A push before its text is joined: the sections, the last one's turn blocks apart. The budget
 * loop measures a candidate by adding lengths (`composedLength`) instead of joining ~10 KB per
 * candidate: joining was most of a cold render (docs/benchmarks.md).
 */
interface ComposedParts {
  /** Sections joined by a blank line. */
  sections: string[];
  /** The recent turns' heading and blocks, one more section after those, or null. */
  recent: { heading: string; blocks: readonly string[] } | null;
  boundary: number | null;
  l2: string | null;
  l1: string | null;
}

/** What does not depend on how many turns are pushed: rendered once per push. */
interface Fixed {
  blocks: readonly string[];
  /** `ends[k]`: the length of the newest k blocks joined by blank lines. */
  ends: readonly number[];
  head: string;
  /** The head with a brief position, for pushes of at least `briefFrom` whole turns. */
  briefHead: string;
  briefFrom: number;
  /** The invocation the pulls are baked with (core/invocation.ts). */
  command: string;
  moment: PushMoment;
}

function fixedParts(input: ContextInput, command: string, moment: PushMoment = HANDOFF): Fixed {
  const newest = input.window[input.window.length - 1];
  const blocks = input.window.map((t) => renderTurnBlock(t, "push"));
  const header = renderHeader(input, newest?.startedAt ?? null, moment);
  const position = renderPosition(input, command);
  return {
    blocks,
    // The length of the newest `k` blocks joined by blank lines: ends[k] (ends[0] = 0).
    ends: blocks.reduceRight<number[]>(
      (acc, b) => {
        acc.push(acc[acc.length - 1]! + b.length + (acc.length > 1 ? 2 : 0));
        return acc;
      },
      [0],
    ),
    head: `${header}\n\n${position.full}`,
    briefHead: `${header}\n\n${position.brief}`,
    briefFrom: position.briefFrom,
    command,
    moment,
  };
}

function compose(input: ContextInput, fixed: Fixed, plan: Plan): Composed {
  const { sections, recent, ...rest } = composeParts(input, fixed, plan);
  if (recent !== null) sections.push(`${recent.heading}\n${recent.blocks.join("\n\n")}`);
  return { text: sections.join("\n\n"), ...rest };
}

/** compose(...).text.length, without joining the text. */
function composedLength(input: ContextInput, fixed: Fixed, plan: Plan): number {
  const { sections, recent } = composeParts(input, fixed, plan);
  let n = 0;
  for (const part of sections) n += part.length;
  if (recent !== null) {
    const joined =
      plan.truncatedBlock === null
        ? fixed.ends[plan.pushed]!
        : recent.blocks.reduce((a, b) => a + b.length, 0);
    n += recent.heading.length + 1 + joined;
  }
  const count = sections.length + (recent === null ? 0 : 1);
  return count > 0 ? n + 2 * (count - 1) : 0;
}

function composeParts(input: ContextInput, fixed: Fixed, plan: Plan): ComposedParts {
  const blocks = fixed.blocks;
  const w = input.window;
  const p = plan.pushed;
  const remaining = w.length - p;
  const older = input.totalTurns - w.length;
  const newest = w[w.length - 1];
  const boundary = p > 0 ? w[w.length - p]!.startedAt : newest ? newest.startedAt + 1 : null;
  const before = boundary === null ? "" : formatIso(boundary);
  const id = shellQuote(input.sessionId);
  const cmd = fixed.command;
  // The pushed turns' tool lines are brief; the --l2 pull prints them in full after the window.
  const toolsPushed = w.slice(w.length - p).some((t) => t.tools !== undefined && t.tools.length > 0);
  const newer = p > 0 && toolsPushed ? ` --newer-tools ${p}` : "";
  const l2 =
    remaining > 0 || newer !== ""
      ? `${cmd} recall --l2 --session ${id} --before ${before} --last ${remaining}${newer}`
      : null;
  const l1 = older > 0 ? `${cmd} recall --l1 --session ${id} --before ${before} --skip ${remaining}` : null;
  const guide = [
    "## How to pull the rest (read-only; run with Bash)",
    l2 === null
      ? "- Window turns not shown below: none"
      : remaining > 0
        ? `- Window turns not shown below (${plural(remaining, "turn")}, ${formatRange(w[0]!.startedAt, w[remaining - 1]!.startedAt)})${newer !== "" ? ", then the full tool lines of the turns below" : ""}: \`${l2}\``
        : `- Window turns not shown below: none; the full tool lines of the turns below: \`${l2}\``,
    l1
      ? `- Older turns (${plural(older, "turn")}, ${input.olderSummarized} summarized): \`${l1}\``
      : "- Older turns: none",
    `- One turn in full (all its text, tool calls and outputs, thinking): \`${cmd} detail <HH:MM:SS | HH:MM | A-B | ISO> --session ${id}\` (times are UTC); by words or a question: \`${cmd} search <words>\``,
  ].join("\n");
  const brief = plan.truncatedBlock === null && p >= fixed.briefFrom;
  const sections = [brief ? fixed.briefHead : fixed.head, guide];
  if (plan.briefs && plan.briefs.length > 0)
    sections.push(
      `## Earlier turns in brief (${plan.briefs.length} of the ${plural(remaining, "window turn")} not shown whole; all of them: the --l2 command above)\n${plan.briefs.join("\n")}`,
    );
  let recent: ComposedParts["recent"] = null;
  if (p > 0)
    recent = {
      heading: `## Recent turns (${p} of ${input.totalTurns}, oldest first)`,
      blocks: plan.truncatedBlock !== null ? [plan.truncatedBlock] : blocks.slice(blocks.length - p),
    };
  else if (nothingSince(fixed.moment, w))
    sections.push("## Recent turns\n(none since the compaction before this one: use the commands above)");
  else if (w.length > 0) sections.push("## Recent turns\n(none fit here: use the commands above)");
  return { sections, recent, boundary, l2, l1 };
}

/** After a compaction: no window turn started since the compaction before it. */
function nothingSince(moment: PushMoment, w: readonly ChainTurn[]): boolean {
  if (moment.kind !== "compaction" || moment.since === null) return false;
  const since = moment.since;
  return !w.some((t) => t.startedAt > since);
}

/** Whole text never over the cap, even with absurd ids: the last resort cuts the tail. */
function clamp(text: string): string {
  return fit(text, CONTEXT_BUDGET);
}

/**
 * A pushed turn that starts in the same millisecond as the turn before it would be lost:
 * pulls take turns strictly before the boundary, so the earlier turn could be neither pulled
 * nor pushed. Drop such turns from the push until the boundary is strictly after every
 * unpushed turn.
 */
function settleTies(input: ContextInput, pushed: number): number {
  const w = input.window;
  let p = pushed;
  while (p > 0) {
    const oldest = w[w.length - p]!;
    const prev = w.length - p - 1 >= 0 ? w[w.length - p - 1]!.startedAt : input.olderNewestStartedAt;
    if (prev === null || prev < oldest.startedAt) break;
    p--;
  }
  return p;
}

/**
 * The text with the newest `pushed` window turns whole, whatever its length: what the budget
 * loop measures. Exported so tests can check that the fill is maximal.
 */
export function composeContext(input: ContextInput, pushed: number, command: string): string {
  return compose(input, fixedParts(input, command), { pushed, truncatedBlock: null }).text;
}

/**
 * What the budget loop measures for the newest `pushed` turns whole (or the newest cut to
 * `truncatedBlock`, with `briefs`), without joining the text. Exported so tests can check it is
 * always the joined text's length.
 */
export function measuredLength(
  input: ContextInput,
  command: string,
  plan: { pushed: number; truncatedBlock?: string | null; briefs?: readonly string[] },
  moment: PushMoment = HANDOFF,
): { measured: number; joined: number } {
  const fixed = fixedParts(input, command, moment);
  const full: Plan = { truncatedBlock: null, ...plan };
  return { measured: composedLength(input, fixed, full), joined: compose(input, fixed, full).text.length };
}

/**
 * What kept the next-older window turn out of a push of `pushed` whole turns: nothing left to
 * push, a same-millisecond tie with the turn before it (see settleTies), or the budget. A push
 * is maximal when this never answers "would_fit". Used by the tests and the bench.
 */
export function nextOlderTurn(
  input: ContextInput,
  pushed: number,
  command: string,
): "none" | "tie" | "would_not_fit" | "would_fit" {
  const w = input.window;
  if (pushed >= w.length) return "none";
  const next = w[w.length - pushed - 1]!;
  const prev = w.length - pushed - 2 >= 0 ? w[w.length - pushed - 2]!.startedAt : input.olderNewestStartedAt;
  if (prev !== null && prev === next.startedAt) return "tie";
  return composeContext(input, pushed + 1, command).length > CONTEXT_BUDGET ? "would_not_fit" : "would_fit";
}

/**
 * The ISO start names the turn to the millisecond within the project (detail's default scope),
 * so the pointer stays short whatever the session id.
 */
export function truncationSuffix(turn: ChainTurn, command: string, session?: string): string {
  const scope = session === undefined ? "" : ` --session ${shellQuote(session)}`;
  return ` …(truncated; full text: ${command} detail ${formatIso(turn.startedAt)}${scope})`;
}

/**
 * How many characters the newest turn may take, cut, when not even it fits whole. Exported (with
 * a command instead of the prepared parts) so the tests can place the edge exactly.
 */
export function truncationRoom(input: ContextInput, fixedOrCommand: Fixed | string): number {
  const fixed = typeof fixedOrCommand === "string" ? fixedParts(input, fixedOrCommand) : fixedOrCommand;
  return CONTEXT_BUDGET - composedLength(input, fixed, { pushed: 1, truncatedBlock: "" });
}

/**
 * `command` is the invocation baked into every pull (core/invocation.ts selfInvocation). After a
 * compaction (`moment`), only the window turns that started after the one before may be pushed
 * whole or in brief.
 */
export function renderContext(
  input: ContextInput,
  command: string,
  moment: PushMoment = HANDOFF,
): ContextResult {
  const w = input.window;
  const fixed = fixedParts(input, command, moment);
  const blocks = fixed.blocks;
  const since = moment.kind === "compaction" ? moment.since : null;
  const firstNew = since === null ? 0 : w.findIndex((t) => t.startedAt > since);
  const pushable = firstNew < 0 ? 0 : w.length - firstNew;
  let plan: Plan = { pushed: 0, truncatedBlock: null };
  for (let k = 1; k <= pushable; k++) {
    if (composedLength(input, fixed, { pushed: k, truncatedBlock: null }) > CONTEXT_BUDGET) break;
    plan = { pushed: k, truncatedBlock: null };
  }
  const newest = w[w.length - 1];
  if (plan.pushed === 0 && newest && pushable > 0) {
    const room = truncationRoom(input, fixed);
    if (room >= MIN_TRUNCATED_ROOM) {
      const suffix = truncationSuffix(newest, command);
      plan = {
        pushed: 1,
        truncatedBlock: `${cutChars(blocks[blocks.length - 1]!, room - suffix.length)}${suffix}`,
      };
    }
  }
  const settled = settleTies(input, plan.pushed);
  if (settled !== plan.pushed) plan = { pushed: settled, truncatedBlock: null };
  // The room whole turns left is not wasted: the next-older window turns, one line each, newest
  // first while they fit (their full text stays one --l2 call away).
  const unpushed = w.length - plan.pushed;
  if (unpushed > 0) {
    let room = CONTEXT_BUDGET - composedLength(input, fixed, { ...plan, briefs: ["x"] }) - 4;
    const briefs: string[] = [];
    for (let i = unpushed - 1; i >= w.length - pushable && room > BRIEF_MIN; i--) {
      const line = briefLine(w[i]!, Math.min(BRIEF_MAX, room - 1));
      if (line.length + 1 > room) break;
      briefs.unshift(line);
      room -= line.length + 1;
    }
    if (briefs.length > 0) plan = { ...plan, briefs };
  }
  const out = compose(input, fixed, plan);
  const text = clamp(out.text);
  return {
    text,
    stats: {
      total_chars: text.length,
      budget: CONTEXT_BUDGET,
      injected_turns: plan.pushed,
      remaining_turns: w.length - plan.pushed,
      older_turns: input.totalTurns - w.length,
      older_summarized: input.olderSummarized,
      truncated_newest: plan.truncatedBlock !== null,
      boundary: out.boundary === null ? null : formatIso(out.boundary),
      brief_turns: plan.briefs?.length ?? 0,
    },
    turns: w.slice(w.length - plan.pushed).map((t) => ({ turnKey: turnKey(t), startedAt: t.startedAt })),
    pull: { l2: out.l2, l1: out.l1 },
  };
}
