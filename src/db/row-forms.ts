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

/** A reply that is all of the turn's text is stored as '' (a final text is never empty: core/assemble.ts). */
export function storedFinal(text: string, final: string | null): string | null {
  return final !== null && final === text ? "" : final;
}

/** An assistant row's last reply as read, in SQL (`b`: the bodies alias). */
export const FINAL_TEXT = (b: string) =>
  `CASE ${b}.final_text WHEN '' THEN ${b}.text ELSE ${b}.final_text END`;

/**
 * A tool's output of at least this many bytes is stored once however many rows hold it (the
 * same file read again, the same command printing the same thing): `details.output` is null and
 * `output_ref` names its `detail_texts` row. A reference costs about 40 bytes (the row, its
 * hash's index entry): shorter outputs stay inline (docs/benchmarks.md, "What a row costs").
 */
export const SHARED_OUTPUT_MIN = 256;

/** Whether a detail's output is kept in `detail_texts`. */
export function sharesOutput(kind: string, output: string | null): output is string {
  return kind === "tool_output" && output !== null && output.length >= SHARED_OUTPUT_MIN;
}

/** A detail row's output as read, in SQL (`d`: the details alias). */
export const DETAIL_OUTPUT = (d: string) =>
  `coalesce(${d}.output, (SELECT x.text FROM detail_texts x WHERE x.id = ${d}.output_ref))`;
