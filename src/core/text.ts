/**
 * Cutting and counting text for output: the one place a length limit, an ellipsis or a plural
 * is spelled. Lengths are UTF-16 code units, and a cut never splits a surrogate pair. Pure.
 */

/** The first `max` code units, one fewer where the last would be half a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** The first `keep` characters, then `mark` when anything was cut. */
export function clip(text: string, keep: number, mark = " …"): string {
  return text.length > keep ? `${cutChars(text, keep)}${mark}` : text;
}

/** `text` in at most `max` characters, `mark` included, where it had to be cut. */
export function fit(text: string, max: number, mark = " …"): string {
  return text.length <= max ? text : `${cutChars(text, max - mark.length).trimEnd()}${mark}`;
}

/** Whitespace runs (newlines included) become one space, then the line is fitted to `max`. */
export function flatLine(text: string, max: number, mark = " …"): string {
  return fit(text.replace(/\s+/g, " ").trim(), max, mark);
}

/** How many bytes `text` takes as UTF-8: what Claude Code measures a Bash output by. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The longest prefix of `text` (from `start`) that takes at most `bytes` bytes as UTF-8. */
export function sliceBytes(text: string, start: number, bytes: number): string {
  let lo = start;
  let hi = Math.min(text.length, start + bytes);
  if (utf8Length(text.slice(start, hi)) <= bytes) return text.slice(start, hi);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (utf8Length(text.slice(start, mid)) <= bytes) lo = mid;
    else hi = mid;
  }
  return cutChars(text.slice(start), lo - start);
}

/** `1 turn`, `2 turns`; `many` for irregular plurals. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
