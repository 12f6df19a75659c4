import type { InjectionRow } from "../queries/handoff.ts";
import type { AheadRecord } from "./ahead.ts";
import { sessionRecord, writeRecord } from "./store.ts";

// The push after compaction printed ahead: `compacted/<session>` holds the push a rehearsal after
// PreCompact rendered ("ahead"), then, once SessionStart(compact) printed it, what its injection
// row will say ("printed": no text), until a writer records that row.

/** What the push after compaction records (its `injections` row), kept with it. */
export type CompactionStats = Omit<InjectionRow, "session_id" | "created_at" | "moment" | "prepared">;

export type CompactionRecord =
  | ({
      form: "ahead";
      stats: CompactionStats;
      /** The state without the transcript, and the transcript's size then (handoffState). */
      base: string;
      size: number;
    } & AheadRecord)
  | { form: "printed"; at: number; stats: CompactionStats };

export async function writeCompaction(
  dbPath: string,
  sessionId: string,
  record: CompactionRecord,
): Promise<boolean> {
  return writeRecord(dbPath, sessionId, `compacted/${sessionId}`, record);
}

/** The session's compaction record, or null (none, or not readable as one). */
export async function readCompaction(dbPath: string, sessionId: string): Promise<CompactionRecord | null> {
  const f = sessionRecord(dbPath, "compacted", sessionId);
  if (!f || f.size === 0) return null;
  try {
    const v = JSON.parse(await f.text()) as Partial<CompactionRecord>;
    if (typeof v?.stats !== "object" || v.stats === null) return null;
    if (v.form === "printed") return typeof v.at === "number" ? (v as CompactionRecord) : null;
    if (v.form !== "ahead" || typeof v.key !== "string" || typeof v.text !== "string") return null;
    if (typeof v.base !== "string" || typeof v.size !== "number") return null;
    return Array.isArray(v.transcripts) ? (v as CompactionRecord) : null;
  } catch {
    return null;
  }
}

/** Whether a compaction record is kept for the session (one native stat). */
export function hasCompaction(dbPath: string, sessionId: string): boolean {
  return (sessionRecord(dbPath, "compacted", sessionId)?.size ?? 0) > 0;
}

/** Once its row is committed (or it is stale): the session's compaction record goes. */
export async function dropCompaction(dbPath: string, sessionId: string): Promise<void> {
  try {
    await sessionRecord(dbPath, "compacted", sessionId)?.unlink();
  } catch {
    // never written, or gone already
  }
}
