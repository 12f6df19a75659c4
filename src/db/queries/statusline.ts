/** What `throughline statusline` shows of memory (docs/monitor.md): one indexed read per call. */
import type { Database } from "bun:sqlite";
import { chainParts, partsWhere } from "./forks.ts";
import { resolveLive } from "./sessions.ts";

export interface StatuslineFacts {
  /** Turns memory holds for the chain. */
  turns: number;
  /** SessionStart recorded a handoff that the first prompt has not delivered yet. */
  pending: boolean;
  /** `/tl` left a baton from this chain: the next session of the project continues it. */
  baton: boolean;
}

export function statuslineFacts(db: Database, sessionId: string): StatuslineFacts {
  const live = resolveLive(db, sessionId).id;
  // A fork's count includes the parent's turns it reads (docs/contract.md#forks).
  const params: Record<string, string | number> = { sid: sessionId, live };
  const inChain = partsWhere(chainParts(db, live), "t", params);
  const row = db
    .query<{ turns: number; pending: number; baton: number }, Record<string, string | number>>(
      `SELECT (SELECT count(*) FROM turns t WHERE ${inChain}) AS turns,
              EXISTS (SELECT 1 FROM pending_handoffs WHERE session_id = $sid) AS pending,
              EXISTS (SELECT 1 FROM handoff_batons WHERE session_id IN ($sid, $live)) AS baton`,
    )
    .get(params)!;
  return { turns: row.turns, pending: row.pending === 1, baton: row.baton === 1 };
}
