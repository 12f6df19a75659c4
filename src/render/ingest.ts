/** Text of `import` and `replay` (and import's progress bar): view model in, string out. */

import type { ReplayReport } from "../capture/replay.ts";
import { plural } from "../core/text.ts";
import { type Colors, PLAIN_COLORS } from "./colors.ts";
import { renderTable } from "./table.ts";

/** A history folder import left out, and why (capture/import-exclude.ts partitionFolders). */
export interface SkippedFolderView {
  folder: string;
  reason: string;
  transcripts: number;
}

/** `Skipped 2 folders (8 transcripts): throughline summarizer …; default exclude …` */
export function skippedLine(skipped: readonly SkippedFolderView[]): string {
  if (skipped.length === 0) return "Skipped no folders.";
  const n = skipped.reduce((a, s) => a + s.transcripts, 0);
  return `Skipped ${plural(skipped.length, "folder")} (${plural(n, "transcript")}): ${skipped
    .map((s) => `${s.folder} (${s.reason})`)
    .join(", ")}.`;
}

export function renderImport(report: ReplayReport, skipped: readonly SkippedFolderView[]): string {
  const t = report.totals;
  return `Imported ${t.files} transcripts: ${t.sessions} sessions, ${t.turns} turns, ${t.details} details, ${t.events} events, ${t.skipped_lines} skipped lines (${report.elapsed_ms} ms). ${skippedLine(skipped)}`;
}

/** One frame of import's stderr progress bar: it redraws its line, and ends it on the last file. */
export function renderProgress(done: number, total: number, width = 30): string {
  const fill = Math.round((done / Math.max(1, total)) * width);
  return `\r[${"#".repeat(fill)}${" ".repeat(width - fill)}] ${done}/${total} transcripts${done === total ? "\n" : ""}`;
}

export function renderReplay(report: ReplayReport, c: Colors = PLAIN_COLORS): string {
  const rows = report.sessions.map((s) => [s.session_id, s.turns, s.details, s.skipped_lines, s.file]);
  const t = report.totals;
  return [
    renderTable(["session", "turns", "details", "skipped", "file"], rows),
    c.bold(
      `\n${t.files} files, ${t.sessions} sessions, ${t.turns} turns, ${t.details} details, ${t.skipped_lines} skipped lines in ${report.elapsed_ms} ms`,
    ),
  ].join("\n");
}
