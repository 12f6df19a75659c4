/**
 * `recall [words…]` (docs/activity.md): plain words in, a structured activity query out. Type words
 * pick event types, time phrases pick a range relative to `now`, everything else (minus stop
 * words) is a keyword. Pure: calendar days are those of the process time zone (`TZ`), like
 * every clock time throughline prints.
 */
import { formatClock, formatDate, parseInstant } from "./clock.ts";
import type { EventType } from "./events.ts";

/** The 20-row cap of the activity table. */
export const ACTIVITY_ROWS = 20;

export interface TimeRange {
  from: number;
  /** Inclusive. */
  to: number;
  /** How the words said it: `the last 30 minutes`, `today`, `since 14:00`. */
  label: string;
}

export type ActivityMode =
  | "summary"
  | "type"
  | "time"
  | "keyword"
  | "type+time"
  | "type+keyword"
  | "time+keyword"
  | "type+time+keyword";

export interface ActivityQuery {
  /** The words as given, joined by spaces. */
  text: string;
  types: EventType[] | null;
  /** The type words as written (`errors`, `edits`), for the description. */
  typeWords: string[];
  range: TimeRange | null;
  keywords: string[];
  mode: ActivityMode;
}

const TYPE_WORDS: Record<string, EventType[]> = {
  error: ["error"],
  errors: ["error"],
  failure: ["error"],
  failures: ["error"],
  failed: ["error"],
  broken: ["error"],
  decision: ["decision"],
  decisions: ["decision"],
  decided: ["decision"],
  edit: ["file_edit", "file_create"],
  edits: ["file_edit", "file_create"],
  edited: ["file_edit", "file_create"],
  file: ["file_edit", "file_create"],
  files: ["file_edit", "file_create"],
  change: ["file_edit", "file_create"],
  changes: ["file_edit", "file_create"],
  changed: ["file_edit", "file_create"],
  created: ["file_create"],
  creates: ["file_create"],
  commit: ["git_commit"],
  commits: ["git_commit"],
  committed: ["git_commit"],
  checkout: ["git_checkout"],
  checkouts: ["git_checkout"],
  branch: ["git_checkout"],
  branches: ["git_checkout"],
  test: ["test_run"],
  tests: ["test_run"],
  tested: ["test_run"],
  phase: ["phase_change"],
  phases: ["phase_change"],
  todo: ["phase_change"],
  todos: ["phase_change"],
  progress: ["phase_change"],
  skill: ["skill_start", "skill_end"],
  skills: ["skill_start", "skill_end"],
  agent: ["skill_start", "skill_end"],
  agents: ["skill_start", "skill_end"],
  subagents: ["skill_start", "skill_end"],
};

export const STOP_WORDS = new Set(
  `a about above after again all am an and any are as at be been before being but by can could did do does doing done
  during each few for from get got had has have having he her here how i if in into is it its just last latest let list
  made make me more most my no nor not now of on once only or other our out over please recent recently same she should
  show since so some such tell than that the their them then there these they this those through to too under until up us very
  was we were what when where which while who whom why will with would you your happened happen activity events event
  anything everything something give find`
    .split(/\s+/)
    .filter(Boolean),
);

const UNIT_MS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

const UNIT_NAME: Record<number, [string, string]> = {
  1000: ["second", "seconds"],
  60000: ["minute", "minutes"],
  3600000: ["hour", "hours"],
  86400000: ["day", "days"],
  604800000: ["week", "weeks"],
};

function lastRange(n: number, unit: number, now: number): TimeRange {
  const [one, many] = UNIT_NAME[unit]!;
  return { from: now - n * unit, to: now, label: n === 1 ? `the last ${one}` : `the last ${n} ${many}` };
}

/** Days and clock times are UTC, like every time throughline prints (see core/clock.ts). */
function startOfDay(ms: number, offsetDays = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + offsetDays);
}

const CLOCK = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?(am|pm)?$/;

/** `14:00`, `9:30`, `2pm`, `14:00:30` today, or yesterday when that is still ahead of `now`. */
function sinceClock(text: string, now: number): number | null {
  const m = CLOCK.exec(text);
  if (!m || (m[2] === undefined && m[4] === undefined)) return null;
  let h = Number(m[1]);
  const min = m[2] === undefined ? 0 : Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (m[4] === "pm" && h < 12) h += 12;
  if (m[4] === "am" && h === 12) h = 0;
  if (h > 23 || min > 59 || s > 59) return null;
  const d = new Date(now);
  let at = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), h, min, s);
  if (at > now) at = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - 1, h, min, s);
  return at;
}

/** `since <date>`: read as every time flag is (core/clock.ts parseInstant; words arrive lower-cased). */
function sinceDate(text: string): number | null {
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? parseInstant(text) : null;
}

/** Try to read a time phrase at `tokens[i]`; returns the range and how many tokens it used. */
function timePhrase(tokens: readonly string[], i: number, now: number): [TimeRange, number] | null {
  const t = tokens[i]!;
  if (t === "today") return [{ from: startOfDay(now), to: startOfDay(now, 1) - 1, label: "today" }, 1];
  if (t === "yesterday")
    return [{ from: startOfDay(now, -1), to: startOfDay(now) - 1, label: "yesterday" }, 1];
  if (t === "last" || t === "past") {
    const a = tokens[i + 1];
    const b = tokens[i + 2];
    if (a === undefined) return null;
    if (UNIT_MS[a] !== undefined && a.length > 1) return [lastRange(1, UNIT_MS[a]!, now), 2];
    const compact = /^(\d+(?:\.\d+)?)([a-z]+)$/.exec(a);
    if (compact && UNIT_MS[compact[2]!] !== undefined)
      return [lastRange(Number(compact[1]), UNIT_MS[compact[2]!]!, now), 2];
    if (/^\d+(?:\.\d+)?$/.test(a) && b !== undefined && UNIT_MS[b] !== undefined)
      return [lastRange(Number(a), UNIT_MS[b]!, now), 3];
    return null;
  }
  if (t === "since") {
    const a = tokens[i + 1];
    if (a === undefined) return null;
    if (a === "yesterday") return [{ from: startOfDay(now, -1), to: now, label: "since yesterday" }, 2];
    if (a === "today" || a === "midnight")
      return [{ from: startOfDay(now), to: now, label: "since midnight" }, 2];
    const clock = sinceClock(a, now);
    if (clock !== null) return [{ from: clock, to: now, label: `since ${a}` }, 2];
    const date = sinceDate(a);
    if (date !== null) return [{ from: date, to: now, label: `since ${a}` }, 2];
  }
  return null;
}

function tokenize(words: readonly string[]): string[] {
  return words
    .join(" ")
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[("'“‘`]+|[)"'”’`?!,;:.]+$/g, ""))
    .filter(Boolean);
}

/** Parse recall words against a reference time `now` (epoch ms). */
export function parseActivityQuery(words: readonly string[], now: number): ActivityQuery {
  const tokens = tokenize(words);
  const types = new Set<EventType>();
  const typeWords: string[] = [];
  const keywords: string[] = [];
  let range: TimeRange | null = null;
  for (let i = 0; i < tokens.length; ) {
    const phrase = timePhrase(tokens, i, now);
    if (phrase) {
      range = phrase[0]; // the last time phrase wins
      i += phrase[1];
      continue;
    }
    const t = tokens[i]!;
    const typed = TYPE_WORDS[t];
    if (typed) {
      for (const x of typed) types.add(x);
      typeWords.push(t);
    } else if (!STOP_WORDS.has(t) && !keywords.includes(t)) keywords.push(t);
    i++;
  }
  const parts = [
    types.size > 0 ? "type" : "",
    range ? "time" : "",
    keywords.length > 0 ? "keyword" : "",
  ].filter(Boolean);
  return {
    text: words.join(" ").trim(),
    types: types.size > 0 ? [...types] : null,
    typeWords,
    range,
    keywords,
    mode: (parts.length > 0 ? parts.join("+") : "summary") as ActivityMode,
  };
}

/** `2026-03-01 14:03:22`, local time. */
export function formatStamp(ms: number): string {
  return `${formatDate(ms)} ${formatClock(ms)}`;
}

/** A range as people read it: `2026-03-01 13:30:00–14:00:00` or across days with both dates. */
export function formatSpan(from: number, to: number): string {
  if (formatDate(from) === formatDate(to))
    return `${formatDate(from)} ${formatClock(from)}–${formatClock(to)}`;
  return `${formatStamp(from)} – ${formatStamp(to)}`;
}

/** A range label with its bounds: `today (2026-03-01)`, `the last hour (2026-03-01 13:00:00–14:00:00)`. */
export function describeRange(r: TimeRange): string {
  if (r.label === "today" || r.label === "yesterday") return `${r.label} (${formatDate(r.from)})`;
  return `${r.label} (${formatSpan(r.from, r.to)})`;
}

/**
 * Words without a type word ask for the turn where something happened, not for every event of
 * it: ranked events are then grouped by turn, the best-ranked one standing for the turn with the
 * others listed as `also` (docs/activity.md, "Keyword queries"). A type word (`edits auth`) asks
 * for the events themselves, which stay one row each.
 */
export function groupsByTurn(q: Pick<ActivityQuery, "types" | "keywords">): boolean {
  return q.types === null && q.keywords.length > 0;
}
