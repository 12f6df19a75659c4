/**
 * Which session a new session continues after /clear (docs/hooks.md, "Which session a /clear
 * continues"): a SessionEnd(clear) link first, the newest live session of the project last.
 * Used at SessionStart and again at the first prompt, when a late SessionEnd may have landed.
 */
import type { Database } from "bun:sqlite";
import { chooseClearLink, type LinkChoice, type LinkQuery } from "../core/handoff.ts";
import { type Host, hostOfPath } from "../core/host.ts";
import { claimedPredecessors, clearLinksNear, predecessorCandidates } from "../db/queries/handoff.ts";

export const CHOICE_RANK = { link: 2, fallback: 1 } as const;

export function choosePredecessor(
  db: Database,
  q: Omit<LinkQuery, "claimed">,
  opts: { newestFallback: boolean; host?: Host },
): LinkChoice | null {
  const claimed = claimedPredecessors(db, q.sessionId);
  const linked = chooseClearLink({ ...q, claimed }, clearLinksNear(db, q));
  if (linked || !opts.newestFallback || !q.project) return linked;
  const newest = predecessorCandidates(db, q.project, q.sessionId).find(
    (s) =>
      s.created_at < q.bornAt &&
      // As of the new session's birth: a prompt folds a SessionStart's intent later, when
      // another window may have written since (docs/hooks.md).
      s.updated_at <= q.bornAt &&
      !claimed.has(s.id) &&
      s.transcript_path !== null &&
      // Codex's /clear ends no session and links none: it continues the newest session of its
      // own host in the project, never another agent's window (docs/hosts.md).
      (opts.host === undefined || hostOfPath(s.transcript_path) === opts.host) &&
      // A ghost session never wrote its transcript (`Bun.file`: no node:fs on the hook path).
      Bun.file(s.transcript_path).size > 0,
  );
  return newest
    ? {
        predecessor: newest.id,
        chosenBy: "fallback",
        evidence: "no SessionEnd(clear) linked: newest live session of the project",
      }
    : null;
}
