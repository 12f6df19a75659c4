/**
 * The text rules of the continuation measurement, written to behave like the reference
 * measurement's Python: its `\w`, `\s`, `\d` and `\b` are Unicode-aware, its lengths count code
 * points, and its pipes translate `\r\n` and `\r` to `\n`. JavaScript differs on each, so every
 * pattern here spells those classes out; a mismatch would move which facts count.
 */

/** Python's `str.isspace()` set, which is also its regex `\s`; JavaScript's `\s` adds U+FEFF and lacks \x1c-\x1f and \x85. */
export const WS =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\w` (letters, numbers and `_` in any script), for use inside a character class. */
export const W = "\\p{L}\\p{N}_";

const EDGE_WS = new RegExp(`^[${WS}]+|[${WS}]+$`, "gu");
const LEAD_WS = new RegExp(`^[${WS}]+`, "u");
const RUN_WS = new RegExp(`[${WS}]+`, "u");
const SURROGATE = /[\uD800-\uDFFF]/;

export const strip = (s: string): string => s.replace(EDGE_WS, "");
export const lstrip = (s: string): string => s.replace(LEAD_WS, "");
/** `str.split()` with no separator: runs of whitespace, no empty parts. */
export const splitWords = (s: string): string[] => s.split(RUN_WS).filter((x) => x !== "");

/** Length in code points, as Python's `len`. */
export function cpLength(s: string): number {
  return SURROGATE.test(s) ? Array.from(s).length : s.length;
}

/** The first `n` code points, as Python's `s[:n]`. */
export function cpHead(s: string, n: number): string {
  if (!SURROGATE.test(s)) return s.slice(0, n);
  return Array.from(s).slice(0, n).join("");
}

/** What Python's text-mode pipes hand over: universal newlines. */
export const universalNewlines = (s: string): string => s.replace(/\r\n?/g, "\n");

/** Round as the reference does for reported ratios (4 decimals). */
export const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

const isWordCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * Where `fact` first occurs in `text`, case-sensitive, not inside a longer ASCII word (332 is not
 * found in 13328, nor getUser in getUserName); a JSON `\n`, `\t` or `\r` just before counts as a
 * boundary. -1 when it does not occur.
 */
export function firstAt(fact: string, text: string): number {
  let i = text.indexOf(fact);
  if (i < 0) return -1;
  const n = fact.length;
  const nl = isWordCode(fact.charCodeAt(0));
  const nr = isWordCode(fact.charCodeAt(n - 1));
  if (!nl && !nr) return i;
  while (i >= 0) {
    const prev = text.charCodeAt(i - 1);
    const left =
      !nl ||
      i === 0 ||
      !isWordCode(prev) ||
      ((prev === 110 || prev === 116 || prev === 114) && i >= 2 && text.charCodeAt(i - 2) === 92);
    if (left && (!nr || i + n >= text.length || !isWordCode(text.charCodeAt(i + n)))) return i;
    i = text.indexOf(fact, i + 1);
  }
  return -1;
}

const JSON_ESC: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};
const escapes = new Map<string, string>();

/**
 * The fact as it reads inside JSON text (`detail` prints tool inputs as JSON). Python's
 * `json.dumps(ensure_ascii=False)`, which unlike JSON.stringify leaves lone surrogates alone.
 */
export function escaped(fact: string): string {
  let e = escapes.get(fact);
  if (e === undefined) {
    e = fact.replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
      /[\x00-\x1f"\\]/g,
      (c) => JSON_ESC[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    escapes.set(fact, e);
  }
  return e;
}

export function present(fact: string, text: string): boolean {
  if (firstAt(fact, text) >= 0) return true;
  const e = escaped(fact);
  return e !== fact && firstAt(e, text) >= 0;
}
