/**
 * Migration 15: where each chain's rows lie in the searched tables (docs/search.md, "Scopes"). Apart
 * from src/db/schema.ts, which holds the other migrations, as one idea: the table, its first fill
 * and the triggers that keep it (a merge keeps it too: db/queries/handoff.ts mergeChain).
 */

/**
 * Widen the span of chain key `key` in `kind` to hold row `new.id` (migration 15). A NULL key (a
 * row whose turn is gone) is no chain's row: nothing is written.
 */
const SPAN_UPSERT = (key: string, kind: string) =>
  `INSERT INTO chain_spans (key, kind, lo, hi) SELECT k, ${kind}, new.id, new.id FROM (SELECT ${key} AS k) WHERE k IS NOT NULL
  ON CONFLICT (key, kind) DO UPDATE SET lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)
  WHERE excluded.lo < lo OR excluded.hi > hi;`;
/** A tool row's span: its turn's chain key, else (before a first prompt) its transcript's. */
const DETAIL_SPAN_KEY =
  "CASE WHEN new.turn_id IS NULL THEN new.origin_session_id ELSE (SELECT session_id FROM turns WHERE id = new.turn_id) END";
const DETAIL_SPAN_KIND = "CASE WHEN new.turn_id IS NULL THEN 'loose' ELSE 'l3' END";

export const CHAIN_SPANS = `
-- Per chain key (turns.session_id, events.session_id) and table, the lowest and highest row id it
-- ever held; 'loose' keys the tool rows before a transcript's first prompt by their transcript.
-- A chain-scoped search walks each index only between them. Kept by the triggers below and by a
-- merge (db/queries/handoff.ts mergeChain); a delete leaves them wider, never narrower.
CREATE TABLE chain_spans (key TEXT NOT NULL, kind TEXT NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL,
  PRIMARY KEY (key, kind)) WITHOUT ROWID;
INSERT INTO chain_spans (key, kind, lo, hi)
  SELECT t.session_id, 'l2', min(b.id), max(b.id) FROM bodies b JOIN turns t ON t.id = b.turn_id GROUP BY t.session_id;
INSERT INTO chain_spans (key, kind, lo, hi)
  SELECT t.session_id, 'l3', min(d.id), max(d.id) FROM details d JOIN turns t ON t.id = d.turn_id GROUP BY t.session_id;
INSERT INTO chain_spans (key, kind, lo, hi)
  SELECT origin_session_id, 'loose', min(id), max(id) FROM details WHERE turn_id IS NULL GROUP BY origin_session_id;
INSERT INTO chain_spans (key, kind, lo, hi)
  SELECT session_id, 'events', min(id), max(id) FROM events GROUP BY session_id;
CREATE TRIGGER bodies_span AFTER INSERT ON bodies BEGIN
  ${SPAN_UPSERT("(SELECT session_id FROM turns WHERE id = new.turn_id)", "'l2'")}
END;
CREATE TRIGGER bodies_span_turn AFTER UPDATE OF turn_id ON bodies BEGIN
  ${SPAN_UPSERT("(SELECT session_id FROM turns WHERE id = new.turn_id)", "'l2'")}
END;
CREATE TRIGGER details_span AFTER INSERT ON details BEGIN
  ${SPAN_UPSERT(DETAIL_SPAN_KEY, DETAIL_SPAN_KIND)}
END;
CREATE TRIGGER details_span_turn AFTER UPDATE OF turn_id, origin_session_id ON details BEGIN
  ${SPAN_UPSERT(DETAIL_SPAN_KEY, DETAIL_SPAN_KIND)}
END;
CREATE TRIGGER events_span AFTER INSERT ON events BEGIN
  ${SPAN_UPSERT("new.session_id", "'events'")}
END;
`;
