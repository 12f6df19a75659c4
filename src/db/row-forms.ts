/**
 * The compact forms some rows are stored in since schema 11, and how they read back
 * (docs/architecture.md, "What a row costs"). Rows written before keep their old form; every
 * read takes both. A module of its own: the hooks that write turns load it, not the migrations.
 */

/**
 * The unique key of a transcript detail: a turn's rows on the turn's row id (a few bytes, where
 * the transcript's id took 36), the rows before a first prompt on their transcript. Two parts
 * against three, so the new keys never meet the ones written before.
 */
export function detailKey(turnId: number | null, origin: string, turnNumber: number, ord: number): string {
  return turnId === null ? `${origin}:${turnNumber}:${ord}` : `${turnId}:${ord}`;
}

/**
 * A detail's key in its transcript's terms, in SQL (`d`: the details alias, `turnNumber`: its
 * turn's number): what detailKey gives a turn's row written before schema 11, and what an export
 * file carries whatever the stored form (docs/export.md).
 */
export const DETAIL_FILE_KEY = (d: string, turnNumber: string, origin: string) =>
  `CASE WHEN ${d}.source = 'transcript' AND ${d}.turn_id IS NOT NULL
        THEN ${origin} || ':' || ${turnNumber} || ':' || ${d}.ord ELSE ${d}.ikey END`;

/**
 * The transcript a body or a turn's detail came from is its turn's (schema 12): such rows store
 * '' instead of the 36-byte session id, which a heavy user's year repeated in half a million rows
 * (docs/benchmarks.md, "What a row costs"). Rows before a first prompt (no turn) keep theirs.
 */
export function storedOrigin(turnId: number | null, origin: string): string {
  return turnId === null ? origin : "";
}

/** A body's or detail's origin as read, in SQL (`x`: its alias; `t`: a turns alias joined on x.turn_id, if any). */
export const ORIGIN = (x: string, t?: string) =>
  t === undefined
    ? `CASE ${x}.origin_session_id WHEN '' THEN (SELECT origin_session_id FROM turns WHERE id = ${x}.turn_id) ELSE ${x}.origin_session_id END`
    : `coalesce(nullif(${x}.origin_session_id, ''), ${t}.origin_session_id)`;

/** A reply that is all of the turn's text is stored as '' (a final text is never empty: core/assemble.ts). */
export function storedFinal(text: string, final: string | null): string | null {
  return final !== null && final === text ? "" : final;
}

/** An assistant row's last reply as read, in SQL (`b`: the bodies alias). */
export const FINAL_TEXT = (b: string) =>
  `CASE ${b}.final_text WHEN '' THEN ${b}.text ELSE ${b}.final_text END`;
