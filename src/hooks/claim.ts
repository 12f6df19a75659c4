/**
 * What a SessionStart(clear/startup) claims (docs/hooks.md, "Which session a /clear continues"):
 * the session row and its `pending_handoffs` row, with the predecessor chosen as of the
 * session's birth. Run under the write lock, either by SessionStart itself (when the pending
 * marks are not kept yet) or by the first prompt that folds the intent SessionStart left in the
 * session's mark; intents are folded in the order their sessions were born, so two windows
 * clearing at once claim what they would have claimed at their own SessionStart.
 */
import type { Database } from "bun:sqlite";
import { hostOfPath } from "../core/host.ts";
import type { Env } from "../core/paths.ts";
import type { StartIntent } from "../db/marks/pending.ts";
import { insertPending } from "../db/queries/handoff.ts";
import { getSession, upsertSession } from "../db/queries/sessions.ts";
import { choosePredecessor } from "./predecessor.ts";

/** Sources that start a session which continues nothing unless a SessionEnd(clear) links it. */
export function isStart(source: string | null): boolean {
  return source === "startup" || source === "fork";
}

export function claimStart(db: Database, start: StartIntent, project: string | null, env: Env): void {
  const { session_id: id, source, client, prompt_id: promptId, created_at: now } = start;
  upsertSession(db, { id, project, transcriptPath: start.transcript_path, createdAt: now, updatedAt: now });
  let choice = null;
  // A fork (`source: "fork"`, where the client says so) is a start: its history is its parent's,
  // reached through the fork link at capture (docs/contract.md#forks), never a /clear's fallback.
  if (env.THROUGHLINE_DISABLE_AUTO_HANDOFF !== "1" && (source === "clear" || isStart(source))) {
    const bornAt = getSession(db, id)?.created_at ?? now;
    choice = choosePredecessor(
      db,
      { sessionId: id, bornAt, client, promptId, project },
      { newestFallback: source === "clear", host: hostOfPath(start.transcript_path) },
    );
    // Some clients report a /clear as `startup`: only a link from the same client counts then.
    if (source !== "clear" && choice?.chosenBy !== "link") choice = null;
  }
  insertPending(db, {
    session_id: id,
    project,
    source,
    predecessor: choice?.predecessor ?? null,
    created_at: now,
    client,
    prompt_id: promptId,
    chosen_by: choice?.chosenBy ?? null,
    evidence: choice?.evidence ?? null,
  });
}
