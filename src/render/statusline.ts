/**
 * The one line of `throughline statusline` (docs/monitor.md). Pure; plain text, because
 * Claude Code shows it under the input box, where every column counts.
 */
import { formatTokens, percentOf } from "../core/usage.ts";

export interface StatuslineView {
  used: number | null;
  window: number;
  /** Turns memory holds for this chain; null when there is no database to ask. */
  turns: number | null;
  handoff: "pending" | "baton" | null;
}

export function renderStatusline(v: StatuslineView): string {
  const ctx =
    v.used === null
      ? `ctx – / ${formatTokens(v.window)}`
      : `ctx ${formatTokens(v.used)} / ${formatTokens(v.window)} (${Math.round(percentOf(v.used, v.window))}%)`;
  const parts = [ctx];
  if (v.turns !== null) parts.push(`mem ${v.turns} ${v.turns === 1 ? "turn" : "turns"}`);
  if (v.handoff === "pending") parts.push("⇢ handoff pending");
  else if (v.handoff === "baton") parts.push("⇢ baton set");
  return parts.join(" · ");
}
