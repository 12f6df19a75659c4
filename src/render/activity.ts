/**
 * Output of `recall [words…]` (docs/activity.md): the Markdown a model reads, and the
 * `throughline.activity.v1` JSON. Pure: a view model in, text out.
 */
import {
  ACTIVITY_ROWS,
  type ActivityQuery,
  describeRange,
  formatSpan,
  formatStamp,
} from "../core/activity-query.ts";
import { formatClock, formatIso } from "../core/clock.ts";
import type { EventType } from "../core/events.ts";
import { hostField, hostTag, type MarkedHost } from "../core/host.ts";
import type { JsonObject } from "../core/jsonl.ts";
import { plural } from "../core/text.ts";

export interface ActivityEvent {
  ts: number;
  seq: number;
  type: EventType;
  summary: string;
  detail: JsonObject;
  session: string;
  origin: string;
  /** The host of the event's session when it is not Claude Code (core/host.ts hostMark). */
  host?: MarkedHost;
  project: string | null;
  turnNumber: number | null;
  /** Grouped by turn (a keyword query): the other matching events of the same turn. */
  also?: { ts: number; seq: number; type: EventType; summary: string }[];
}

export interface SummaryFacts {
  first: number | null;
  last: number | null;
  byType: Partial<Record<EventType, number>>;
  lastPhase: ActivityEvent | null;
  commits: ActivityEvent[];
  tests: ActivityEvent[];
  /** Errors after the last passing test run (or commit), newest first, and how many in all. */
  openErrors: ActivityEvent[];
  openErrorCount: number;
  /** The count stopped at its cap: `openErrorCount - 1` is a lower bound. */
  openErrorCountCapped?: boolean;
  openSince: number | null;
  decisions: ActivityEvent[];
  files: { path: string; n: number; last: number }[];
}

export interface ActivityView {
  query: ActivityQuery;
  /** `session 1234…` or `every session of /path/project`. */
  scopeLabel: string;
  /** The project of the scope, when known: file paths under it are shown relative to it. */
  project: string | null;
  /** The scope holds no event at all. */
  empty: boolean;
  total: number;
  /** Counting stopped at its cap: `total - 1` is a lower bound. */
  totalCapped?: boolean;
  /** Shown events, newest first (at most ACTIVITY_ROWS). */
  events: ActivityEvent[];
  /** Keywords matched with OR because no event held all of them. */
  anyKeyword: boolean;
  /** One row per turn (a keyword query without a type word); `total` still counts events. */
  groupedByTurn?: boolean;
  summary: SummaryFacts | null;
}

function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
}

export function renderEventTable(events: readonly ActivityEvent[]): string {
  const rows = events.map(
    (e) => `| ${formatStamp(e.ts)}${hostTag(e.host)} | ${e.type} | ${cell(e.summary)}${alsoText(e)} |`,
  );
  return ["| Time | Type | Summary |", "|------|------|---------|", ...rows].join("\n");
}

/** ` (also in this turn: 2 file_edit, test_run)`, or nothing. */
function alsoText(e: ActivityEvent): string {
  if (!e.also || e.also.length === 0) return "";
  const n = new Map<string, number>();
  for (const a of e.also) n.set(a.type, (n.get(a.type) ?? 0) + 1);
  const parts = [...n].map(([type, k]) => (k === 1 ? type : `${k} ${type}`));
  return ` *(also in this turn: ${parts.join(", ")})*`;
}

function heading(v: ActivityView): string {
  return `## Recall: ${v.query.text || "activity summary"}`;
}

/** What the shown events were selected from: a range or the scope, then the filters. */
function fromText(v: ActivityView): string {
  const q = v.query;
  const parts = [
    q.range
      ? `${q.range.label.startsWith("since") ? "" : "from "}${describeRange(q.range)} in ${v.scopeLabel}`
      : `from ${v.scopeLabel}`,
  ];
  if (q.types) parts.push(`type ${q.types.join(", ")}`);
  if (q.keywords.length > 0)
    parts.push(
      `matching ${q.keywords.map((k) => `"${k}"`).join(v.anyKeyword ? " or " : " and ")}${v.anyKeyword ? " (no event held every word)" : ""}`,
    );
  return parts.join(", ");
}

function moreLine(v: ActivityView): string | null {
  if (v.total <= v.events.length) return null;
  const of = v.totalCapped ? `more than ${v.total - 1}` : String(v.total);
  return `*(showing ${v.events.length} of ${of} matching events)*`;
}

/** `3 errors`, `1 error`; empty for 0. */
function count(n: number, one: string, many?: string): string {
  return n === 0 ? "" : plural(n, one, many);
}

function noun(n: number): string {
  return n === 1 ? "event" : "events";
}

function emptyText(v: ActivityView, command: string): string {
  return [
    heading(v),
    `The activity index is empty for ${v.scopeLabel}: no edits, commits, test runs, errors or decisions have been recorded there yet.`,
    "",
    `To enable it, run \`${command} install\` (it registers the PostToolUse hook that records activity as it happens); ` +
      `past sessions get their events with \`${command} import\` (or \`${command} replay <transcript.jsonl>\`). ` +
      "To look beyond this session, add `--all-sessions` (every session of the project) or `--all` (every project).",
  ].join("\n");
}

function noMatchText(v: ActivityView, command: string): string {
  const hints: string[] = [];
  if (v.query.keywords.length > 0) hints.push("drop or change a keyword");
  if (v.query.range) hints.push("widen the time range (`today`, `yesterday`, or no time phrase)");
  if (v.query.types) hints.push("remove the type word to see every kind of event");
  if (!v.scopeLabel.startsWith("every "))
    hints.push("add `--all-sessions` to search every session of the project");
  hints.push(`run \`${command} recall\` with no words for the summary`);
  return [
    heading(v),
    `No events match: ${fromText(v).replace(/^from /, "")}.`,
    "",
    `Try a broader query: ${hints.join("; ")}.`,
  ].join("\n");
}

function relativeTo(project: string | null, path: string): string {
  if (project && project !== "/" && path.startsWith(`${project}/`)) return path.slice(project.length + 1);
  return path;
}

function line(e: ActivityEvent): string {
  return `${formatClock(e.ts)}${hostTag(e.host)} ${e.summary}`;
}

function summaryText(v: ActivityView, s: SummaryFacts): string {
  const out: string[] = [heading(v)];
  const span = s.first !== null && s.last !== null ? `, ${formatSpan(s.first, s.last)}` : "";
  out.push(
    `**Showing:** ${v.events.length} ${noun(v.events.length)} from ${v.scopeLabel}${span}, ${v.total} in all`,
  );
  out.push("");
  if (s.lastPhase) out.push(`**Last phase:** ${line(s.lastPhase)}`);
  if (s.openErrorCount > 0) {
    const since =
      s.openSince !== null ? ` since the last passing test or commit (${formatStamp(s.openSince)})` : "";
    const n = s.openErrorCountCapped ? `more than ${s.openErrorCount - 1}` : String(s.openErrorCount);
    out.push(`**Open errors:** ${n}${since}`);
    for (const e of s.openErrors) out.push(`- ${line(e)}`);
  } else out.push("**Open errors:** none");
  const tests = s.byType.test_run ?? 0;
  if (tests > 0) {
    out.push(`**Test runs:** ${tests}, newest first`);
    for (const e of s.tests) out.push(`- ${line(e)}`);
  }
  const commits = s.byType.git_commit ?? 0;
  if (commits > 0) {
    out.push(`**Commits:** ${commits}, newest first`);
    for (const e of s.commits) out.push(`- ${line(e)}`);
  }
  if (s.decisions.length > 0) {
    out.push(`**Decisions:** ${s.byType.decision ?? s.decisions.length}, newest first`);
    for (const e of s.decisions) out.push(`- ${line(e)}`);
  }
  if (s.files.length > 0)
    out.push(
      `**Files most touched:** ${s.files.map((f) => `\`${relativeTo(v.project, f.path)}\` (${f.n} ${f.n === 1 ? "change" : "changes"})`).join(", ")}`,
    );
  const edits = (s.byType.file_edit ?? 0) + (s.byType.file_create ?? 0);
  const counts = [
    count(edits, "file change"),
    count(s.byType.error ?? 0, "error"),
    count(s.byType.phase_change ?? 0, "phase change"),
    count(s.byType.skill_start ?? 0, "skill/agent run"),
    count(s.byType.git_checkout ?? 0, "branch switch", "branch switches"),
  ].filter(Boolean);
  if (counts.length > 0) out.push(`**Done:** ${counts.join(", ")}`);
  out.push("", "### Latest events", "", renderEventTable(v.events));
  const more = moreLine(v);
  if (more) out.push("", more);
  return out.join("\n");
}

/** The Markdown docs/activity.md describes. */
/** `command` is the invocation the hints are spelled with (core/invocation.ts). */
export function renderActivity(v: ActivityView, command = "throughline"): string {
  if (v.empty) return emptyText(v, command);
  if (v.summary) return summaryText(v, v.summary);
  if (v.events.length === 0) return noMatchText(v, command);
  const out = [
    heading(v),
    `**Showing:** ${v.events.length} ${noun(v.events.length)} ${fromText(v)}`,
    "",
    renderEventTable(v.events),
  ];
  const more = moreLine(v);
  if (more) out.push("", more);
  return out.join("\n");
}

function eventJson(e: ActivityEvent): JsonObject {
  return {
    ts: formatIso(e.ts),
    seq: e.seq,
    type: e.type,
    summary: e.summary,
    detail: e.detail,
    session: e.session,
    ...hostField(e.host),
    project: e.project,
    turn_key: e.turnNumber === null ? null : `${e.origin}:${e.turnNumber}`,
    ...(e.also
      ? {
          also_in_turn: e.also.map((a) => ({
            ts: formatIso(a.ts),
            seq: a.seq,
            type: a.type,
            summary: a.summary,
          })),
        }
      : {}),
  };
}

/** `throughline.activity.v1`. */
export function activityJson(v: ActivityView): JsonObject {
  const q = v.query;
  const out: JsonObject = {
    schema: "throughline.activity.v1",
    query: q.text,
    mode: q.mode,
    total: v.total,
    total_is_lower_bound: v.totalCapped === true,
    shown: v.events.length,
    grouped_by_turn: v.groupedByTurn === true,
    events: v.events.map(eventJson),
    filters: {
      types: q.types,
      from: q.range ? formatIso(q.range.from) : null,
      to: q.range ? formatIso(q.range.to) : null,
      range: q.range?.label ?? null,
      keywords: q.keywords,
      any_keyword: v.anyKeyword,
    },
    scope: v.scopeLabel,
    empty_index: v.empty,
  };
  const s = v.summary;
  if (s)
    out.summary = {
      first: s.first === null ? null : formatIso(s.first),
      last: s.last === null ? null : formatIso(s.last),
      counts: s.byType as JsonObject,
      last_phase: s.lastPhase ? eventJson(s.lastPhase) : null,
      open_errors: s.openErrors.map(eventJson),
      open_error_count: s.openErrorCount,
      tests: s.tests.map(eventJson),
      commits: s.commits.map(eventJson),
      decisions: s.decisions.map(eventJson),
      files: s.files.map((f) => ({ path: f.path, changes: f.n, last: formatIso(f.last) })),
    };
  return out;
}

export { ACTIVITY_ROWS };
