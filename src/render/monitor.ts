/**
 * One frame of `throughline monitor` (docs/monitor.md): a row per live session, newest first,
 * and the `throughline.monitor.v1` JSON. Pure: a view model in, text out; every line is cut
 * to the width, so a redraw never wraps.
 */
import { formatClock, formatIso } from "../core/clock.ts";
import type { JsonObject } from "../core/jsonl.ts";
import { formatAge, formatTokens, type MonitorRow, percentOf } from "../core/usage.ts";
import { cutToWidth } from "./ansi.ts";
import type { Colors } from "./colors.ts";

export interface MonitorView {
  now: number;
  /** `/work/alpha`, or `every project`. */
  scopeLabel: string;
  /** Newest first; the first is the most recent. */
  rows: MonitorRow[];
  /** Sessions left out because they have been idle longer than `idleMinutes`. */
  idleHidden: number;
  idleMinutes: number;
  /** Whether the view is limited to one project (then --all is worth suggesting). */
  oneProject: boolean;
}

/** Narrow terminals drop the bar first: the numbers say the same in fewer columns. */
function barWidth(width: number): number {
  return width >= 160 ? 30 : width >= 100 ? 20 : width >= 64 ? 10 : 0;
}

function bar(pct: number, cells: number, c: Colors): string {
  const filled = Math.max(0, Math.min(cells, Math.round((pct / 100) * cells)));
  const paint = pct >= 80 ? c.red : pct >= 50 ? c.yellow : c.green;
  return (filled > 0 ? paint("█".repeat(filled)) : "") + c.dim("░".repeat(cells - filled));
}

function pad(text: string, n: number): string {
  const w = Bun.stringWidth(text);
  return w >= n ? text : text + " ".repeat(n - w);
}

export function renderMonitor(v: MonitorView, width: number, c: Colors): string {
  const n = v.rows.length;
  const head = `${c.bold("throughline monitor")} · ${n === 1 ? "1 live session" : `${n} live sessions`} in ${v.scopeLabel} · ${formatClock(v.now)} UTC`;
  const lines = [head];
  const projectWidth = Math.min(
    width >= 64 ? 24 : 10,
    Math.max(7, ...v.rows.map((r) => Bun.stringWidth(r.project))),
  );
  const cells = barWidth(width);
  const narrow = cells === 0;
  v.rows.forEach((r, i) => {
    const mark = i === 0 ? c.cyan("▶") : " ";
    const pct = r.used === null ? 0 : percentOf(r.used, r.window);
    const used = r.used === null ? "–" : formatTokens(r.used);
    const percent = r.used === null ? "  –" : `${Math.round(pct)}%`.padStart(4);
    const project = pad(cutToWidth(r.project, projectWidth), projectWidth);
    const age = pad(r.lastActivity === null ? "–" : formatAge(v.now - r.lastActivity), 8);
    const id = r.sessionId.slice(0, 8);
    // Narrow: the numbers come first, so they survive the cut.
    const parts = narrow
      ? [mark, project, percent, pad(`${used}/${formatTokens(r.window)}`, 9), age, id]
      : [
          mark,
          project,
          id,
          age,
          bar(pct, cells, c),
          pad(`${used.padStart(6)} / ${formatTokens(r.window)}`, 15),
          percent,
          c.dim(r.model ?? "model unknown"),
        ];
    lines.push(parts.join(" "));
  });
  if (n === 0)
    lines.push(
      `No live Claude Code session${v.oneProject ? " in this project" : ""} (a session drops out after ${v.idleMinutes} minutes idle).`,
    );
  const notes: string[] = [];
  if (v.idleHidden > 0)
    notes.push(`${v.idleHidden} idle ${v.idleHidden === 1 ? "session" : "sessions"} hidden`);
  if (v.oneProject) notes.push("--all for every project");
  if (notes.length > 0) lines.push(c.dim(notes.join("; ")));
  return lines.map((l) => cutToWidth(l, width)).join("\n");
}

export function monitorJson(v: MonitorView): JsonObject {
  return {
    schema: "throughline.monitor.v1",
    now: formatIso(v.now),
    scope: v.scopeLabel,
    idle_minutes: v.idleMinutes,
    idle_hidden: v.idleHidden,
    sessions: v.rows.map((r, i) => ({
      session_id: r.sessionId,
      project: r.projectDir,
      transcript_path: r.transcriptPath,
      newest: i === 0,
      used_tokens: r.used,
      window_tokens: r.window,
      window_reason: r.windowReason,
      percent: r.used === null ? null : percentOf(r.used, r.window),
      model: r.model,
      responses: r.responses,
      last_activity: r.lastActivity === null ? null : formatIso(r.lastActivity),
      idle_seconds: r.lastActivity === null ? null : Math.max(0, Math.floor((v.now - r.lastActivity) / 1000)),
    })),
  };
}
