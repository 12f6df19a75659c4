/**
 * Ingest a live session: its transcript and the subagent transcripts beside it. Shared by the
 * Stop, PreCompact, SessionEnd and SubagentStop hooks.
 */
import type { Database } from "bun:sqlite";
import { type IngestResult, ingestTranscript } from "./ingest.ts";
import { ingestSubagent, subagentFiles } from "./ingest-subagent.ts";
import { markRead } from "./read-state.ts";

export function ingestSession(
  db: Database,
  opts: { path: string; sessionId: string; project: string | null; now: number },
): IngestResult {
  const res = ingestTranscript(db, {
    path: opts.path,
    sessionId: opts.sessionId,
    ...(opts.project ? { project: opts.project } : {}),
    now: opts.now,
  });
  for (const f of subagentFiles(opts.path)) ingestSubagent(db, f, opts.now, opts.sessionId);
  // Committed: the waited-for hooks can now tell from a file that nothing is left to read.
  markRead(db, opts.sessionId, opts.path);
  return res;
}

/**
 * PreCompact, SessionEnd and SubagentStop: store what the session's transcript holds so far,
 * when the payload names one (Stop, which must have it, calls ingestSession itself).
 */
export function ingestNamedSession(
  db: Database,
  hook: { transcriptPath: string | null; sessionId: string; project: string | null },
  now: number,
): void {
  if (hook.transcriptPath)
    ingestSession(db, { path: hook.transcriptPath, sessionId: hook.sessionId, project: hook.project, now });
}

function normalizeText(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** Does the transcript's newest final assistant text hold what the Stop payload says was said last? */
export function hasLastMessage(fileText: string | null, lastAssistantMessage: string): boolean {
  if (fileText === null) return false;
  const a = normalizeText(fileText);
  const b = normalizeText(lastAssistantMessage);
  return b.length === 0 || a === b || a.endsWith(b) || a.includes(b);
}
