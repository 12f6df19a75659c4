/**
 * The push's fixed parts before its turns: the header (what the push is, the chain's span) and the
 * current position (the newest prompt and where it stood); which prompts are control commands. Pure.
 */

import { formatClock, formatDate, formatIso } from "./clock.ts";
import type { ContextInput } from "./context.ts";
import { shellQuote } from "./invocation.ts";
import { flatLine, plural } from "./text.ts";
import { POSITION_BRIEF_CUT, POSITION_CUT } from "./turn-block.ts";

/**
 * What the push is for: a new session continuing this one (`/clear`, `/tl`, a start), or this very
 * session after Claude Code compacted it, where only turns since the compaction before may be
 * pushed whole (the earlier ones were in the last such push; the pulls still reach every turn).
 */
export type PushMoment = { kind: "handoff" } | { kind: "compaction"; since: number | null };
export const HANDOFF: PushMoment = { kind: "handoff" };

export function renderHeader(input: ContextInput, newestAt: number | null, moment: PushMoment): string {
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
export function renderPosition(
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
