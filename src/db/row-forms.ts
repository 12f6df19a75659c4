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
export const DETAIL_FILE_KEY = (d: string, turnNumber: string) =>
  `CASE WHEN ${d}.source = 'transcript' AND ${d}.turn_id IS NOT NULL
        THEN ${d}.origin_session_id || ':' || ${turnNumber} || ':' || ${d}.ord ELSE ${d}.ikey END`;

/** A reply that is all of the turn's text is stored as '' (a final text is never empty: core/assemble.ts). */
export function storedFinal(text: string, final: string | null): string | null {
  return final !== null && final === text ? "" : final;
}

/** An assistant row's last reply as read, in SQL (`b`: the bodies alias). */
export const FINAL_TEXT = (b: string) =>
  `CASE ${b}.final_text WHEN '' THEN ${b}.text ELSE ${b}.final_text END`;
