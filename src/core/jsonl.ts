/** One complete line of a transcript, with the byte range it occupies in the file. */
export interface RawLine {
  start: number;
  end: number; // offset just after the terminating "\n"
  text: string;
}

export interface SplitResult {
  lines: RawLine[];
  /** Offset just after the last complete line: everything before it is consumed. */
  consumedTo: number;
}

const NL = 0x0a;
const decoder = new TextDecoder();

/**
 * Split on `\n` bytes only: JSON string values may legally contain U+2028/2029, so line
 * splitting on decoded text would cut entries in half. An unterminated tail is a line that
 * Claude Code has not finished writing yet, so it is left unconsumed rather than parsed.
 */
export function splitLines(bytes: Uint8Array, baseOffset: number): SplitResult {
  const lines: RawLine[] = [];
  let pos = 0;
  for (;;) {
    const nl = bytes.indexOf(NL, pos);
    if (nl < 0) break;
    if (nl > pos) {
      let end = nl;
      if (bytes[end - 1] === 0x0d) end--; // tolerate CRLF
      lines.push({
        start: baseOffset + pos,
        end: baseOffset + nl + 1,
        text: decoder.decode(bytes.subarray(pos, end)),
      });
    }
    pos = nl + 1;
  }
  return { lines, consumedTo: baseOffset + pos };
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Parse one line; anything that is not a JSON object is reported as `null` (skipped and counted). */
export function parseLine(text: string): JsonObject | null {
  const t = text.trim();
  if (t.length === 0 || t[0] !== "{") return null;
  try {
    const v = JSON.parse(t) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : null;
  } catch {
    return null;
  }
}

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
