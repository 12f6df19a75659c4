/** Text of `import` and `replay` (and import's progress bar): view model in, string out. */

import type { ReplayReport, ReplaySession, SkippedFile } from "../capture/replay.ts";
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

/** Files named in a line: the first few, then how many more. */
const FILES_SHOWN = 5;
/** Skipped lines named in a line: the first few (with their file), then how many more. */
const LINES_SHOWN = 3;

/** `Skipped 2 files: <file> (it is empty), <file> (it is a throughline session index).` */
export function skippedFilesLine(files: readonly SkippedFile[]): string | null {
  if (files.length === 0) return null;
  const shown = files.slice(0, FILES_SHOWN).map((f) => `${f.file} (${f.reason})`);
  const more = files.length > FILES_SHOWN ? ` and ${files.length - FILES_SHOWN} more` : "";
  return `Skipped ${plural(files.length, "file")}: ${shown.join(", ")}${more}.`;
}

/** `Skipped 3 lines: <file> line 3 (not JSON), line 9 (blank); <file> line 2 (not JSON).` */
export function skippedLinesLine(sessions: readonly ReplaySession[]): string | null {
  const total = sessions.reduce((a, s) => a + s.skipped.lines, 0);
  if (total === 0) return null;
  const parts: string[] = [];
  let shown = 0;
  for (const s of sessions) {
    const first = s.skipped.first.slice(0, LINES_SHOWN - shown);
    if (first.length === 0) continue;
    shown += first.length;
    parts.push(`${s.file} ${first.map((k) => `line ${k.line} (${k.reason})`).join(", ")}`);
  }
  const more = total > shown ? ` and ${total - shown} more` : "";
  return `Skipped ${plural(total, "line")}: ${parts.join("; ")}${more}.`;
}

/** What is new against what memory held: a second import of the same history adds nothing. */
function headline(report: ReplayReport): string {
  const t = report.totals;
  const already = t.turns - t.new_turns;
  const sessions = `${plural(t.sessions, "session")}${t.new_turns > 0 || t.new_sessions > 0 ? `, ${t.new_sessions} new` : ""}`;
  const lead = t.new_turns > 0 || t.new_sessions > 0 ? "Imported" : "Nothing new in";
  return `${lead} ${plural(t.files, "transcript")} (${sessions}): ${plural(t.new_turns, "new turn")}; ${already} already in memory (${report.elapsed_ms} ms).`;
}

export function renderImport(report: ReplayReport, skipped: readonly SkippedFolderView[]): string {
  const t = report.totals;
  return [
    headline(report),
    `These sessions hold ${plural(t.turns, "turn")}, ${plural(t.details, "detail")} and ${plural(t.events, "event")}.`,
    skippedLinesLine(report.sessions),
    skippedFilesLine(report.skipped_files),
    skippedLine(skipped),
  ]
    .filter((l) => l !== null)
    .join("\n");
}

/** One frame of import's stderr progress bar: it redraws its line, and ends it on the last file. */
export function renderProgress(done: number, total: number, width = 30): string {
  const fill = Math.round((done / Math.max(1, total)) * width);
  return `\r[${"#".repeat(fill)}${" ".repeat(width - fill)}] ${done}/${total} transcripts${done === total ? "\n" : ""}`;
}

export function renderReplay(report: ReplayReport, c: Colors = PLAIN_COLORS): string {
  const rows = report.sessions.map((s) => [
    s.session_id,
    s.turns,
    s.new_turns,
    s.details,
    s.skipped_lines,
    s.file,
  ]);
  const t = report.totals;
  return [
    renderTable(["session", "turns", "new", "details", "skipped", "file"], rows),
    c.bold(
      `\n${plural(t.files, "file")}, ${plural(t.sessions, "session")}, ${plural(t.turns, "turn")} (${t.new_turns} new), ${plural(t.details, "detail")}, ${plural(t.skipped_lines, "skipped line")} in ${report.elapsed_ms} ms`,
    ),
    skippedLinesLine(report.sessions),
    skippedFilesLine(report.skipped_files),
  ]
    .filter((l) => l !== null)
    .join("\n");
}
