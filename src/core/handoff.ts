/**
 * Handoff decisions (SPEC §4.1, §5), pure: the hook gathers rows, this decides what to do.
 */

/** A baton is consumed only by a session born within this long after it was written. */
export const BATON_TTL_MS = 60 * 60 * 1000;

export type HandoffPath = "baton" | "auto" | "none";

export interface BatonRow {
  project: string;
  session_id: string;
  created_at: number;
}

export interface HandoffInput {
  sessionId: string;
  /** When the consuming session was born (its SessionStart). */
  bornAt: number;
  baton: BatonRow | null;
  /** Predecessor frozen at SessionStart(clear), if any. */
  frozen: string | null;
}

export type BatonFate = "consume" | "keep" | "expire" | "none";

export interface HandoffDecision {
  path: HandoffPath;
  predecessor: string | null;
  baton: BatonFate;
  /** Why the baton was not used, when there was one. */
  note: string | null;
}

/** `/tl`, `/tl <words>` or `/tl\n…`: the person asks to hand this session to the next one. */
export function isBatonPrompt(prompt: string): boolean {
  return prompt === "/tl" || prompt.startsWith("/tl ") || prompt.startsWith("/tl\n");
}

export function decideHandoff(input: HandoffInput): HandoffDecision {
  const { baton } = input;
  let fate: BatonFate = "none";
  let note: string | null = null;
  if (baton) {
    if (baton.session_id === input.sessionId) {
      fate = "keep";
      note = "baton is this session's own";
    } else if (baton.created_at > input.bornAt) {
      fate = "keep";
      note = "baton written after this session was born: left for a later session";
    } else if (input.bornAt - baton.created_at > BATON_TTL_MS) {
      fate = "expire";
      note = "baton older than 1 hour: expired";
    } else {
      return { path: "baton", predecessor: baton.session_id, baton: "consume", note: null };
    }
  }
  if (input.frozen && input.frozen !== input.sessionId)
    return { path: "auto", predecessor: input.frozen, baton: fate, note };
  return { path: "none", predecessor: null, baton: fate, note };
}

export type MergeSkip =
  | "self_merge"
  | "missing_predecessor"
  | "predecessor_already_merged"
  | "predecessor_not_older"
  | "chain_cycle";

export interface MergeCheckInput {
  sessionId: string;
  sessionCreatedAt: number;
  predecessor: { id: string; created_at: number; merged_into: string | null } | null;
  predecessorId: string;
}

/** Why a merge must not happen, or null when it may. */
export function mergeSkipReason(input: MergeCheckInput): MergeSkip | null {
  if (input.predecessorId === input.sessionId) return "self_merge";
  const p = input.predecessor;
  if (!p) return "missing_predecessor";
  if (p.merged_into !== null) return "predecessor_already_merged";
  if (p.created_at >= input.sessionCreatedAt) return "predecessor_not_older";
  return null;
}
