/**
 * Times as people and models read them, and `detail <when>` parsing (docs/contract.md#pulls-read-only). Pure.
 *
 * Clock times are UTC everywhere (push, pulls, `detail` input), and say so. Two reasons:
 * a `[HH:MM:SS]` handle baked into a push must find the same turn whatever the time zone of
 * the process that reads it later, and the first local-time conversion in a process costs
 * 6-10 ms (ICU time-zone initialisation), about one whole cold start of the compiled binary.
 */
import { ThroughlineError } from "../errors.ts";

/** `HH:MM:SS` (UTC). */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** `YYYY-MM-DD` (UTC). */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ISO-8601 UTC with milliseconds: the form baked into pull commands. */
export function formatIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `09:00:01–09:12:00` on one day, dates added when the range crosses midnight. */
export function formatRange(from: number, to: number): string {
  if (formatDate(from) === formatDate(to))
    return from === to ? formatClock(from) : `${formatClock(from)}–${formatClock(to)}`;
  return `${formatDate(from)} ${formatClock(from)} – ${formatDate(to)} ${formatClock(to)}`;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** Strict ISO-8601 with a zone (`Z` or an offset), as `--before` takes it; null when not one. */
export function parseIsoInstant(text: string): number | null {
  if (!ISO_INSTANT.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The one reading of a time flag (`--before`, `--since`, `--now`, `since <date>`): ISO-8601 with a
 * zone as written, anything without a zone (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fff]]`, with a
 * space or a `T`) in UTC, as every time throughline prints is, whatever the machine's zone.
 * A bare date is its first millisecond. Null when the text is not a time.
 */
export function parseInstant(text: string): number | null {
  const t = text.trim();
  const zoned = parseIsoInstant(t.replace(/z$/, "Z").replace(/^(\d{4}-\d{2}-\d{2})t/, "$1T"));
  if (zoned !== null) return zoned;
  const window = parseAbsolute(t.replace(/^(\d{4}-\d{2}-\d{2})t/, "$1T"));
  return window ? window.from : null;
}

/** parseInstant for a flag, with the one-line error every command gives. */
export function instantFlag(flag: string, value: string): number {
  const ms = parseInstant(value);
  if (ms === null)
    throw new ThroughlineError(
      "E_ARGS",
      `${flag} must be a date or time: YYYY-MM-DD, YYYY-MM-DD HH:MM (UTC) or ISO-8601 with a zone, like 2026-03-01T09:00:00.000Z; got "${value}"`,
    );
  return ms;
}

interface ClockTime {
  h: number;
  m: number;
  s: number;
  ms: number;
  /** Width of the time as written: a minute for `HH:MM`, a second for `HH:MM:SS`, 1 ms with a fraction. */
  width: number;
}

/** What `detail <when>` asked for, before it is placed on a date. */
export type WhenSpec =
  | { kind: "clock"; from: ClockTime; to: ClockTime }
  | { kind: "absolute"; from: number; to: number };

/** An inclusive window of epoch milliseconds. */
export interface TimeWindow {
  from: number;
  to: number;
}

const CLOCK = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;

function parseClock(text: string): ClockTime | null {
  const m = CLOCK.exec(text);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 23 || min > 59 || s > 59) return null;
  const frac = m[4];
  const ms = frac === undefined ? 0 : Number(frac.padEnd(3, "0"));
  const width = frac !== undefined ? 1 : m[3] !== undefined ? 1000 : 60_000;
  return { h, m: min, s, ms, width };
}

/** An absolute time as written: ISO with a zone, or `YYYY-MM-DD[ HH:MM[:SS]]` read as UTC. */
function parseAbsolute(text: string): TimeWindow | null {
  if (ISO_INSTANT.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isFinite(ms)) return null;
    const width = /\.\d/.test(text) ? 1 : /T\d{2}:\d{2}:\d{2}/.test(text) ? 1000 : 60_000;
    return { from: ms, to: ms + width - 1 };
  }
  const m = LOCAL_DATE_TIME.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  if (m[4] === undefined) {
    const from = Date.UTC(y, mo, d);
    const to = Date.UTC(y, mo, d + 1) - 1;
    return Number.isFinite(from) && mo <= 11 && d <= 31 ? { from, to } : null;
  }
  const clock = parseClock(`${m[4]}:${m[5]}${m[6] === undefined ? "" : `:${m[6]}`}${m[7] ? `.${m[7]}` : ""}`);
  if (!clock) return null;
  const from = Date.UTC(y, mo, d, clock.h, clock.m, clock.s, clock.ms);
  return { from, to: from + clock.width - 1 };
}

type Point = { kind: "clock"; clock: ClockTime } | { kind: "absolute"; window: TimeWindow };

function parsePoint(text: string): Point | null {
  const t = text.trim();
  const clock = parseClock(t);
  if (clock) return { kind: "clock", clock };
  const window = parseAbsolute(t);
  return window ? { kind: "absolute", window } : null;
}

function whenError(input: string): ThroughlineError {
  return new ThroughlineError(
    "E_ARGS",
    `cannot read "${input}" as a time: use HH:MM, HH:MM:SS, a range A-B (e.g. 14:00-14:30) or ISO-8601 (2026-03-01T09:00:00.000Z)`,
  );
}

function combine(a: Point, b: Point, input: string): WhenSpec {
  if (a.kind === "clock" && b.kind === "clock") return { kind: "clock", from: a.clock, to: b.clock };
  if (a.kind === "absolute" && b.kind === "absolute") {
    if (b.window.to < a.window.from) throw whenError(input);
    return { kind: "absolute", from: a.window.from, to: b.window.to };
  }
  throw new ThroughlineError(
    "E_ARGS",
    `"${input}" mixes a clock time and a date: write both ends the same way (14:00-14:30, or two ISO times)`,
  );
}

/** Range separators: `..`, an en or em dash, `~`, or a hyphen that leaves two valid times. */
const RANGE_SEPARATORS = ["..", "–", "—", "~"];

/** Parse `detail <when>`: `HH:MM`, `HH:MM:SS`, a range `A-B`, or ISO-8601. Throws on anything else. */
export function parseWhen(input: string): WhenSpec {
  const text = input.trim();
  const single = parsePoint(text);
  if (single)
    return single.kind === "clock"
      ? { kind: "clock", from: single.clock, to: single.clock }
      : { kind: "absolute", from: single.window.from, to: single.window.to };
  for (const sep of RANGE_SEPARATORS) {
    const i = text.indexOf(sep);
    if (i < 0) continue;
    const a = parsePoint(text.slice(0, i));
    const b = parsePoint(text.slice(i + sep.length));
    if (a && b) return combine(a, b, input);
  }
  for (let i = text.indexOf("-"); i >= 0; i = text.indexOf("-", i + 1)) {
    const a = parsePoint(text.slice(0, i));
    const b = parsePoint(text.slice(i + 1));
    if (a && b) return combine(a, b, input);
  }
  throw whenError(input);
}

const DAY_MS = 86_400_000;

function atDay(dayStart: number, c: ClockTime, dayOffset = 0): number {
  return dayStart + dayOffset * DAY_MS + c.h * 3_600_000 + c.m * 60_000 + c.s * 1000 + c.ms;
}

/**
 * Candidate windows for a spec, newest first, given the span of the scope's turns. Clock
 * times are placed on the dates the turns actually have, from the newest date back (plus the
 * day before the oldest, for a range that crosses midnight), never on "today".
 */
export function* candidateWindows(spec: WhenSpec, span: TimeWindow): Generator<TimeWindow> {
  if (spec.kind === "absolute") {
    yield { from: spec.from, to: spec.to };
    return;
  }
  const startOf = (c: ClockTime) => atDay(0, c);
  const crosses = startOf(spec.to) < startOf(spec.from);
  const lastDay = Math.floor(span.to / DAY_MS) * DAY_MS;
  const stop = Math.floor(span.from / DAY_MS) * DAY_MS - DAY_MS;
  for (let day = lastDay; day >= stop; day -= DAY_MS) {
    const from = atDay(day, spec.from);
    const to = atDay(day, spec.to, crosses ? 1 : 0) + spec.to.width - 1;
    if (to >= span.from && from <= span.to) yield { from, to };
  }
}
