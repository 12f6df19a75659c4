/**
 * Where each chain's rows lie (schema 15, src/db/schema-spans.ts; docs/search.md, "Scopes"): the
 * spans a chain-scoped search reads, and the two writes the triggers cannot see, a merge that
 * moves rows to another key and a forget that leaves a key with no rows.
 */
import type { Database } from "bun:sqlite";

export interface SpanRow {
  kind: string;
  lo: number;
  hi: number;
}

/**
 * Per kind, the widest span of the chain keys `keys`; tool rows before a first prompt ('loose')
 * of the transcripts those keys' turns came from, and of `live` itself.
 */
export function spansOf(db: Database, keys: readonly string[], live: string): SpanRow[] {
  return db
    .query<SpanRow, { keys: string; live: string }>(
      `SELECT kind, min(lo) AS lo, max(hi) AS hi FROM chain_spans
       WHERE (kind <> 'loose' AND key IN (SELECT value FROM json_each($keys)))
          OR (kind = 'loose' AND key IN (SELECT t.origin_session_id FROM turns t
                                         WHERE t.session_id IN (SELECT value FROM json_each($keys))
                                         UNION SELECT $live))
       GROUP BY kind`,
    )
    .all({ keys: JSON.stringify(keys), live });
}

/** The rows of chain key `own` now belong to `key` (a merge, db/queries/handoff.ts): so do their spans. */
export function moveSpans(db: Database, own: string, key: string): void {
  db.query(
    `INSERT INTO chain_spans (key, kind, lo, hi) SELECT $key, kind, lo, hi FROM chain_spans WHERE key = $own AND kind <> 'loose'
     ON CONFLICT (key, kind) DO UPDATE SET lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)`,
  ).run({ key, own });
  db.query("DELETE FROM chain_spans WHERE key = $own AND kind <> 'loose'").run({ own });
}

/** The spans of `keys` that no row holds any more (after a forget): a session id is not kept for nothing. */
export function dropEmptySpans(db: Database, keys: readonly string[]): void {
  if (keys.length === 0) return;
  db.query(
    `DELETE FROM chain_spans WHERE key IN (SELECT value FROM json_each($keys))
       AND NOT EXISTS (SELECT 1 FROM turns WHERE session_id = chain_spans.key)
       AND NOT EXISTS (SELECT 1 FROM events WHERE session_id = chain_spans.key)
       AND NOT EXISTS (SELECT 1 FROM details WHERE turn_id IS NULL AND origin_session_id = chain_spans.key)`,
  ).run({ keys: JSON.stringify(keys) });
}
