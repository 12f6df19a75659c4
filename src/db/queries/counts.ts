import type { Database } from "bun:sqlite";
import { chainParts, partsWhere } from "./forks.ts";

/** Rows per memory layer, over the whole database. */
export interface LayerCounts {
  sessions: number;
  live_sessions: number;
  turns: number;
  l2_bodies: number;
  l3_details: number;
  l1_summaries: number;
  events: number;
  hook_errors: number;
}

export function layerCounts(db: Database): LayerCounts {
  const n = (sql: string) => (db.query(sql).get() as { n: number }).n;
  return {
    sessions: n("SELECT count(*) AS n FROM sessions"),
    live_sessions: n("SELECT count(*) AS n FROM sessions WHERE merged_into IS NULL"),
    turns: n("SELECT count(*) AS n FROM turns"),
    l2_bodies: n("SELECT count(*) AS n FROM bodies"),
    l3_details: n("SELECT count(*) AS n FROM details"),
    l1_summaries: n("SELECT count(*) AS n FROM skeletons WHERE summary IS NOT NULL"),
    events: n("SELECT count(*) AS n FROM events"),
    hook_errors: n("SELECT count(*) AS n FROM hook_errors"),
  };
}

/** Rows that came from one session's own transcript (`origin_session_id`), wherever they live now. */
export function originCounts(
  db: Database,
  origin: string,
): { turns: number; details: number; events: number } {
  const q = (sql: string) => (db.query(sql).get({ origin }) as { n: number }).n;
  return {
    turns: q("SELECT count(*) AS n FROM turns WHERE origin_session_id = $origin"),
    // A turn's details through the turn, the rows before its first prompt by their own index.
    details: q(
      `SELECT (SELECT count(*) FROM turns t JOIN details d ON d.turn_id = t.id WHERE t.origin_session_id = $origin)
            + (SELECT count(*) FROM details WHERE turn_id IS NULL AND origin_session_id = $origin) AS n`,
    ),
    events: q("SELECT count(*) AS n FROM events WHERE origin_session_id = $origin"),
  };
}

/** A session's turns: from its own transcript, and held by it as a chain's live end. */
export function turnCounts(db: Database, id: string): { own: number; chain: number } {
  const own = (
    db.query("SELECT count(*) AS n FROM turns WHERE origin_session_id = $id").get({ id }) as { n: number }
  ).n;
  // A fork's chain includes the parent's turns it reads (docs/contract.md#forks).
  const params: Record<string, string | number> = { id };
  const inChain = partsWhere(chainParts(db, id), "t", params);
  const chain = (
    db
      .query(
        `SELECT count(*) AS n FROM turns t WHERE ${inChain}
         AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = $id AND merged_into IS NOT NULL)`,
      )
      .get(params) as { n: number }
  ).n;
  return { own, chain };
}
