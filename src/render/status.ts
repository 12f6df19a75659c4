/** Text of `status` and `status --session`: view model in, string out. */

import { formatIso } from "../core/clock.ts";
import type { LayerCounts } from "../db/queries/counts.ts";
import type { HandoffRow, InjectionRow } from "../db/queries/handoff.ts";
import type { RecentSession } from "../db/queries/sessions.ts";
import { type Colors, PLAIN_COLORS } from "./colors.ts";
import { renderTable } from "./table.ts";

export interface StatusView {
  database: string;
  bytes: number;
  schemaVersion: number;
  counts: LayerCounts;
  /** One line about L1 summaries (capture/summarize.ts summaryLine). */
  summaries: string;
  recent: readonly RecentSession[];
}

export function renderStatus(v: StatusView, c: Colors = PLAIN_COLORS): string {
  const n = v.counts;
  const lines = [
    `${c.bold("database")}  ${v.database} (${(v.bytes / 1024 / 1024).toFixed(1)} MB, schema v${v.schemaVersion})`,
    `${c.bold("memory")}    ${n.turns} turns · L2 ${n.l2_bodies} bodies · L3 ${n.l3_details} details · L1 ${n.l1_summaries} summaries · ${n.events} events`,
    `${c.bold("summaries")} ${v.summaries}`,
    `${c.bold("sessions")}  ${n.sessions} (${n.live_sessions} live chains) · ${n.hook_errors} hook errors`,
  ];
  if (v.recent.length > 0)
    lines.push(
      `\n${c.bold("newest sessions")}`,
      renderTable(
        ["session", "turns", "last activity", "project"],
        v.recent.map((s) => [
          s.id,
          s.turns,
          s.last_activity === null ? "–" : formatIso(s.last_activity),
          s.project ?? "",
        ]),
      ),
    );
  return lines.join("\n");
}

export interface SessionStatusView {
  id: string;
  liveEnd: string;
  chain: readonly { id: string; turns: number; created_at: number }[];
  handoff: HandoffRow | null;
  injection: InjectionRow | null;
}

export function renderSessionStatus(v: SessionStatusView): string {
  const { handoff: h, injection: i } = v;
  const lines = [
    `session ${v.id}${v.liveEnd !== v.id ? ` (merged; live end ${v.liveEnd})` : ""}`,
    renderTable(
      ["chain (oldest first)", "turns", "created"],
      v.chain.map((s) => [s.id, s.turns, formatIso(s.created_at)]),
    ),
    h
      ? `last handoff: ${h.path}${h.predecessor ? ` from ${h.predecessor}` : ""}${h.reason ? ` (${h.reason})` : ""}`
      : "last handoff: none recorded",
  ];
  if (i)
    lines.push(
      `last push: ${i.total_chars}/${i.budget} chars, ${i.injected_turns} turns pushed, ${i.remaining_turns} to recall --l2, ${i.older_turns} older (${i.older_summarized} summarized)`,
    );
  return lines.join("\n");
}
