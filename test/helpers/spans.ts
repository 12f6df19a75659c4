/**
 * Whether every searchable row lies within the span its chain key keeps (schema 15, docs/search.md
 * "Scopes"): a row outside it would be missed by a chain-scoped search. Returns the rows outside,
 * by table, so a failure says where.
 */
import type { Database } from "bun:sqlite";

const OUTSIDE = `
  SELECT 'bodies' AS tbl, b.id FROM bodies b JOIN turns t ON t.id = b.turn_id
    LEFT JOIN chain_spans s ON s.key = t.session_id AND s.kind = 'l2'
    WHERE s.key IS NULL OR b.id NOT BETWEEN s.lo AND s.hi
  UNION ALL
  SELECT 'details', d.id FROM details d JOIN turns t ON t.id = d.turn_id
    LEFT JOIN chain_spans s ON s.key = t.session_id AND s.kind = 'l3'
    WHERE s.key IS NULL OR d.id NOT BETWEEN s.lo AND s.hi
  UNION ALL
  SELECT 'details (before a first prompt)', d.id FROM details d
    LEFT JOIN chain_spans s ON s.key = d.origin_session_id AND s.kind = 'loose'
    WHERE d.turn_id IS NULL AND (s.key IS NULL OR d.id NOT BETWEEN s.lo AND s.hi)
  UNION ALL
  SELECT 'events', e.id FROM events e
    LEFT JOIN chain_spans s ON s.key = e.session_id AND s.kind = 'events'
    WHERE s.key IS NULL OR e.id NOT BETWEEN s.lo AND s.hi`;

export function rowsOutsideSpans(db: Database): { tbl: string; id: number }[] {
  return db.query<{ tbl: string; id: number }, []>(OUTSIDE).all();
}

/** How many rows the spans are checked against (a check of an empty database proves nothing). */
export function spannedRows(db: Database): number {
  return db
    .query<{ n: number }, []>(
      "SELECT (SELECT count(*) FROM bodies) + (SELECT count(*) FROM details) + (SELECT count(*) FROM events) AS n",
    )
    .get()!.n;
}
