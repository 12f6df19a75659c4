/**
 * `throughline.export.v1` (docs/export.md): one JSON object per line. A header, then every
 * session, turn (with both L2 rows), L3 detail, event and L1 summary, then an end record with
 * the counts. Rows refer to each other by natural keys (session ids, origin session + turn
 * number, idempotency keys), never by row ids, so a file imports into any database. Times are
 * milliseconds since the epoch (UTC). Text is exported as stored: redacted text stays redacted.
 * Pure: the writer and the reader live in src/capture/export-file.ts and src/db/queries/export.ts.
 */
import { ThroughlineError } from "../errors.ts";

export const EXPORT_SCHEMA = "throughline.export.v1";

export interface HeaderRecord {
  record: "header";
  schema: typeof EXPORT_SCHEMA;
  exported_at: string;
  generator: string;
  /** `PRAGMA user_version` of the database it was written from (informative). */
  db_schema_version: number;
}

export interface SessionRecord {
  record: "session";
  id: string;
  project: string | null;
  transcript_path: string | null;
  created_at: number;
  updated_at: number;
  merged_into: string | null;
  title: string | null;
  /** Key of the chain the session belongs to (docs/architecture.md, "Chains"); absent before schema 5. */
  chain?: string;
  /** A fork: the prompt uuid of the newest turn it copied (docs/contract.md#forks); absent before schema 8. */
  fork_uuid?: string | null;
}

export interface TurnRecord {
  record: "turn";
  /** Live end of the chain the turn belongs to. */
  session_id: string;
  origin_session_id: string;
  turn_number: number;
  started_at: number;
  ended_at: number;
  user_chars: number;
  assistant_chars: number;
  /** L2: the prompt, the assistant's text, its final reply; null when the row is absent. */
  user: string | null;
  assistant: string | null;
  final_text: string | null;
  /** The prompt entry's uuid (docs/contract.md#forks); absent before schema 8. */
  uuid?: string | null;
}

export interface DetailRecord {
  record: "detail";
  origin_session_id: string;
  /** Null: content before the transcript's first prompt. */
  turn_number: number | null;
  source: string;
  ord: number;
  kind: string;
  tool_name: string | null;
  tool_use_id: string | null;
  input: string | null;
  output: string | null;
  is_error: boolean;
  created_at: number;
  ikey: string;
}

export interface EventRecord {
  record: "event";
  session_id: string;
  origin_session_id: string;
  project: string | null;
  turn_number: number | null;
  seq: number;
  ts: number;
  type: string;
  summary: string;
  /** The event's detail as stored: a string holding JSON. */
  detail: string;
  tool_use_id: string | null;
  ikey: string;
}

export interface SummaryRecord {
  record: "summary";
  origin_session_id: string;
  turn_number: number;
  summary: string | null;
  backend: string;
  error: string | null;
  created_at: number;
}

export interface ExportCounts {
  sessions: number;
  turns: number;
  details: number;
  events: number;
  summaries: number;
}

export interface EndRecord {
  record: "end";
  counts: ExportCounts;
}

export type BodyRecord = SessionRecord | TurnRecord | DetailRecord | EventRecord | SummaryRecord;
export type ExportRecord = HeaderRecord | BodyRecord | EndRecord;

/** Body records appear in this order; the reader relies on a turn preceding its details and summary. */
export const RECORD_ORDER = ["session", "turn", "detail", "event", "summary"] as const;

export const COUNT_KEY: Record<BodyRecord["record"], keyof ExportCounts> = {
  session: "sessions",
  turn: "turns",
  detail: "details",
  event: "events",
  summary: "summaries",
};

export function emptyCounts(): ExportCounts {
  return { sessions: 0, turns: 0, details: 0, events: 0, summaries: 0 };
}

type Kind = "string" | "string?" | "string|absent" | "string?|absent" | "int" | "int?" | "bool";

const FIELDS: { [K in ExportRecord["record"]]: Record<string, Kind> } = {
  header: { schema: "string", exported_at: "string", generator: "string", db_schema_version: "int" },
  session: {
    id: "string",
    project: "string?",
    transcript_path: "string?",
    created_at: "int",
    updated_at: "int",
    merged_into: "string?",
    title: "string?",
    chain: "string|absent",
    fork_uuid: "string?|absent",
  },
  turn: {
    session_id: "string",
    origin_session_id: "string",
    turn_number: "int",
    started_at: "int",
    ended_at: "int",
    user_chars: "int",
    assistant_chars: "int",
    user: "string?",
    assistant: "string?",
    final_text: "string?",
    uuid: "string?|absent",
  },
  detail: {
    origin_session_id: "string",
    turn_number: "int?",
    source: "string",
    ord: "int",
    kind: "string",
    tool_name: "string?",
    tool_use_id: "string?",
    input: "string?",
    output: "string?",
    is_error: "bool",
    created_at: "int",
    ikey: "string",
  },
  event: {
    session_id: "string",
    origin_session_id: "string",
    project: "string?",
    turn_number: "int?",
    seq: "int",
    ts: "int",
    type: "string",
    summary: "string",
    detail: "string",
    tool_use_id: "string?",
    ikey: "string",
  },
  summary: {
    origin_session_id: "string",
    turn_number: "int",
    summary: "string?",
    backend: "string",
    error: "string?",
    created_at: "int",
  },
  end: {},
};

function fits(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case "string":
      return typeof v === "string";
    case "string?":
      return v === null || typeof v === "string";
    case "string|absent":
      return v === undefined || typeof v === "string";
    case "string?|absent":
      return v === undefined || v === null || typeof v === "string";
    case "int":
      return Number.isSafeInteger(v);
    case "int?":
      return v === null || Number.isSafeInteger(v);
    case "bool":
      return typeof v === "boolean";
  }
}

function bad(lineNo: number, what: string): ThroughlineError {
  return new ThroughlineError("E_EXPORT_FORMAT", `line ${lineNo}: ${what}`);
}

/**
 * One line of an export, checked field by field: a damaged or foreign file fails with the
 * line and field that is wrong, before anything reaches the database.
 */
export function parseRecord(line: string, lineNo: number): ExportRecord {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw bad(lineNo, "not JSON");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw bad(lineNo, "not a JSON object");
  const o = v as Record<string, unknown>;
  const kind = o.record;
  if (typeof kind !== "string" || !Object.hasOwn(FIELDS, kind))
    throw bad(lineNo, `unknown record ${JSON.stringify(kind ?? null)}`);
  const fields = FIELDS[kind as ExportRecord["record"]];
  for (const [name, k] of Object.entries(fields))
    if (!fits(o[name], k))
      throw bad(lineNo, `${kind}.${name}: expected ${k.replace("?", " or null").replace("|", " or ")}`);
  if (kind === "header" && o.schema !== EXPORT_SCHEMA)
    throw bad(lineNo, `schema ${JSON.stringify(o.schema)} is not ${EXPORT_SCHEMA}`);
  if (kind === "end") {
    const c = o.counts as Record<string, unknown> | undefined;
    if (
      !c ||
      typeof c !== "object" ||
      Object.keys(emptyCounts()).some((key) => !Number.isSafeInteger(c[key]))
    )
      throw bad(lineNo, "end.counts: expected sessions, turns, details, events, summaries");
  }
  return o as unknown as ExportRecord;
}

export function exportLine(r: ExportRecord): string {
  return `${JSON.stringify(r)}\n`;
}
