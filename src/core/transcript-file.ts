/**
 * Whether a file replay or import was handed is a Claude Code transcript (issue 45): throughline's
 * own files (an `export jsonl` file, a session-index `events.jsonl`, a saved `--json` report) are
 * recognised by their first record, and a file with no transcript entry at all (empty, text,
 * binary) makes no session. Pure: the file is read in src/capture/.
 */
import { EXPORT_SCHEMA } from "./export-format.ts";
import { isObject, type JsonObject, str } from "./jsonl.ts";

/**
 * What throughline file this is, from its first JSON object, or null when it is none of them.
 * The content decides, not the path: a copy elsewhere, or under a transcript's name, is still ours.
 */
export function ownFileKind(first: JsonObject | undefined): string | null {
  if (first === undefined) return null;
  const schema = str(first.schema);
  if (first.record === "header" && schema === EXPORT_SCHEMA)
    return "it is a throughline export: import it with --from-export";
  if (schema?.startsWith("throughline.")) return `it is a throughline report (${schema})`;
  // The session-index convention (core/session-index.ts): {"ts","seq","type","summary","detail"}.
  if (
    typeof first.ts === "string" &&
    typeof first.seq === "number" &&
    typeof first.type === "string" &&
    typeof first.summary === "string" &&
    isObject(first.detail) &&
    first.uuid === undefined &&
    first.sessionId === undefined
  )
    return "it is a throughline session index";
  return null;
}

/** A line replay or import skipped: its number in the file (from 1), and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}

/** The lines one run skipped: how many, and the first few by number with why. */
export interface SkippedLines {
  lines: number;
  first: SkippedLine[];
}

/** What a file without a transcript entry holds, for the line that names it. */
export interface NotTranscript {
  bytes: number;
  /** Complete lines. */
  lines: number;
  /** Its first complete line: its number, and why it is no entry (null: a JSON object of another kind). */
  first: { line: number; reason: string | null } | null;
}

export function notTranscriptReason(f: NotTranscript): string {
  if (f.bytes === 0) return "it is empty";
  if (f.lines === 0 || f.first === null) return "it holds no complete line";
  const why = `line ${f.first.line}: ${f.first.reason ?? "a JSON object, not a Claude Code entry"}`;
  if (f.lines === 1) return `its one line is not a transcript entry; ${why}`;
  return `none of its ${f.lines} lines is a transcript entry; ${why}`;
}
