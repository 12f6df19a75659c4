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

/**
 * Deepest nesting accepted in a transcript line or hook payload. JSON.parse takes far deeper
 * input than the recursive code after it (stringify, redaction, event extraction) survives:
 * a line nested 40,000 levels parsed, then overflowed the stack and stopped every later Stop.
 * Real transcripts nest under 10 levels (docs/hooks.md).
 */
export const MAX_JSON_DEPTH = 256;

/**
 * The body of a JSON string from just after its opening quote: up to its closing quote, or to
 * the end of the text (or a final lone backslash) when it does not close there. Sticky: set
 * `lastIndex` first. One native match per string: a loop over the characters of a string cost
 * a cold process ~50 ns each (docs/benchmarks.md).
 */
export const STRING_BODY = /(?:[^"\\]|\\[\s\S])*/y;

/** Does this JSON text open more than `max` objects/arrays at once? Strings are skipped. */
export function nestedDeeperThan(t: string, max: number = MAX_JSON_DEPTH): boolean {
  if (t.length <= 2 * max) return false; // too short to hold max+1 openers and their closers
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x22) {
      STRING_BODY.lastIndex = i + 1;
      STRING_BODY.exec(t);
      i = STRING_BODY.lastIndex;
      if (t.charCodeAt(i) !== 0x22) return false; // unterminated: not valid JSON anyway
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Parse one line; anything that is not a JSON object, or is nested deeper than
 * MAX_JSON_DEPTH, is reported as `null` (skipped and counted).
 */
export function parseLine(text: string): JsonObject | null {
  const t = text.trim();
  if (t.length === 0 || t[0] !== "{") return null;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return null;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  // The depth of the parsed value is the text's (nestedDeeperThan), found by walking its few
  // containers instead of every structural character: a replay's parse half as long
  // (docs/benchmarks.md, "Import throughput").
  if (t.length > 2 * MAX_JSON_DEPTH && valueDeeperThan(v, MAX_JSON_DEPTH)) return null;
  return v as JsonObject;
}

/** Does this parsed value hold more than `max` objects/arrays inside each other (itself counting one)? */
export function valueDeeperThan(v: object, max: number = MAX_JSON_DEPTH): boolean {
  const stack: object[] = [v];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const x = stack.pop()!;
    const d = depths.pop()!;
    if (d > max) return true;
    for (const k of Array.isArray(x) ? x : Object.values(x))
      if (k !== null && typeof k === "object") {
        stack.push(k);
        depths.push(d + 1);
      }
  }
  return false;
}

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A stored JSON object (an event's `detail`); a damaged or non-object one reads as `{}`. */
export function objectOrEmpty(text: string): JsonObject {
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * The entry types the transcript assembler reads (src/core/assemble.ts, `dispatch`): every other
 * type carries no memory of a turn.
 */
export const ASSEMBLED_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
  "custom-title",
]);

/**
 * An entry the assembler takes nothing from: of a type it does not read, with no id or place it
 * would note, and of this session (the client's `mode`, `atis-latch` and `queue-operation`
 * lines). Its time is only the session's latest, which a hook reading it passes anyway.
 */
export function carriesNothing(entry: JsonObject, sessionId: string): boolean {
  return (
    !ASSEMBLED_TYPES.has(str(entry.type) ?? "") &&
    entry.uuid === undefined &&
    entry.cwd === undefined &&
    (entry.sessionId === undefined || entry.sessionId === sessionId)
  );
}

/** Why `parseLine` refused a line: shown beside its number by replay and import. */
export function lineProblem(text: string): string {
  const t = text.trim();
  if (t.length === 0) return "blank";
  // Invalid UTF-8 decodes to U+FFFD; control characters other than white space are no text.
  if (t.includes("\uFFFD") || /\p{Cc}/u.test(t.replace(/\s/g, ""))) return "binary or not UTF-8";
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return t[0] === "{" ? "cut short or malformed JSON" : "not JSON";
  }
  if (!isObject(v)) return "a JSON value, not an object";
  return `nested deeper than ${MAX_JSON_DEPTH} levels`;
}

/**
 * A line Claude Code wrote: an object with a `type` and one of the fields its entries carry (a
 * session, an id, a message, a summary's leaf, a snapshot's message). A file without one is no
 * transcript, and replay and import make no session of it.
 */
export function isTranscriptEntry(entry: JsonObject): boolean {
  return (
    typeof entry.type === "string" &&
    (entry.sessionId !== undefined ||
      entry.uuid !== undefined ||
      entry.message !== undefined ||
      entry.leafUuid !== undefined ||
      entry.messageId !== undefined)
  );
}
