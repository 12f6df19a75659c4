/**
 * The push (docs/contract.md#the-push): chain rows in, the resume context text and its stats out. Pure.
 *
 * Budget: the whole text is at most CONTEXT_BUDGET JavaScript characters in every case,
 * because Claude Code swaps a longer context for a file stub the model cannot see. Header,
 * current position and guide are fixed; window turns fill the rest newest first, whole turns
 * only. The guide's baked pull commands depend on how many turns were pushed, so each
 * candidate is measured as the complete text, never estimated.
 */
import { formatIso, formatRange } from "./clock.ts";
import { shellQuote } from "./invocation.ts";
import { HANDOFF, type PushMoment, renderHeader, renderPosition } from "./push-header.ts";
import { cutChars, fit, plural } from "./text.ts";
import {
  BRIEF_MAX,
  BRIEF_MIN,
  briefLine,
  type ChainTurn,
  CONTEXT_BUDGET,
  MIN_TRUNCATED_ROOM,
  renderTurnBlock,
  turnKey,
} from "./turn-block.ts";

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
