/**
 * The files of a machine's sync branch (docs/sync.md): chunks of `throughline.export.v1`
 * records compressed with zstd and named after the hash of their text (so a damaged one is
 * found before anything is written), tombstone files holding keys only, `meta.json` (the
 * format, which a newer throughline raises) and `batons.json`.
 */
import { createHash } from "node:crypto";
import {
  type DetailRecord,
  type EventRecord,
  EXPORT_SCHEMA,
  exportLine,
  parseRecord,
  type SessionRecord,
  type SummaryRecord,
  type TurnRecord,
} from "../core/export-format.ts";
import type { OriginRecords } from "../db/queries/sync.ts";
import type { Tombstone, TombstoneKind } from "../db/queries/sync-apply.ts";
import { ThroughlineError } from "../errors.ts";

/** Raised when the files' layout or meaning changes: an older throughline then refuses the remote. */
export const SYNC_FORMAT = 1;
export const REF_PREFIX = "refs/heads/throughline/";

export type SyncSession = SessionRecord & { project_key?: string | null };

/** One turn's records (n = -1: the rows before the transcript's first prompt), as lines. */
export interface Group {
  origin: string;
  n: number;
  turn: string | null;
  details: string[];
  events: string[];
  summary: string | null;
  hash: string;
}

export function sha(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

export function groupHash(g: Omit<Group, "hash">): string {
  return sha([g.turn ?? "", ...g.details, "\u0000", ...g.events, "\u0000", g.summary ?? ""].join(""));
}

function emptyGroup(origin: string, n: number): Omit<Group, "hash"> {
  return { origin, n, turn: null, details: [], events: [], summary: null };
}

/** A session's records grouped by turn, each with its hash. */
export function groupsOf(origin: string, r: OriginRecords): Group[] {
  const by = new Map<number, Omit<Group, "hash">>();
  const at = (n: number | null) => {
    const k = n ?? -1;
    const g = by.get(k) ?? emptyGroup(origin, k);
    by.set(k, g);
    return g;
  };
  for (const t of r.turns) at(t.turn_number).turn = exportLine(t);
  for (const d of r.details) at(d.turn_number).details.push(exportLine(d));
  for (const e of r.events) at(e.turn_number).events.push(exportLine(e));
  for (const s of r.summaries) at(s.turn_number).summary = exportLine(s);
  return [...by.values()].sort((a, b) => a.n - b.n).map((g) => ({ ...g, hash: groupHash(g) }));
}

/** A chunk's text: header, sessions, then every group's records by kind, and the end record. */
export function chunkText(
  sessions: readonly SyncSession[],
  groups: readonly Group[],
  generator: string,
): string {
  const turns = groups.flatMap((g) => (g.turn ? [g.turn] : []));
  const details = groups.flatMap((g) => g.details);
  const events = groups.flatMap((g) => g.events);
  const summaries = groups.flatMap((g) => (g.summary ? [g.summary] : []));
  const header = exportLine({
    record: "header",
    schema: EXPORT_SCHEMA,
    exported_at: new Date(0).toISOString(),
    generator,
    db_schema_version: 0,
  });
  const counts = {
    sessions: sessions.length,
    turns: turns.length,
    details: details.length,
    events: events.length,
    summaries: summaries.length,
  };
  return [
    header,
    ...sessions.map((s) => exportLine(s as SessionRecord)),
    ...turns,
    ...details,
    ...events,
    ...summaries,
    exportLine({ record: "end", counts }),
  ].join("");
}

export function chunkName(seq: number, text: string): string {
  return `chunks/${String(seq).padStart(8, "0")}-${sha(text).slice(0, 40)}.jsonl.zst`;
}

export function tombstoneName(seq: number, text: string): string {
  return `tombstones/${String(seq).padStart(8, "0")}-${sha(text).slice(0, 40)}.json.zst`;
}

/** The sequence number a file name starts with (its place in the machine's order). */
export function seqOf(name: string): number {
  const m = /^(?:chunks|tombstones)\/(\d+)-/.exec(name);
  return m ? Number(m[1]) : 0;
}

export const compress = (text: string): Uint8Array => Bun.zstdCompressSync(Buffer.from(text, "utf8"));

export function corrupt(machine: string, name: string, why: string): ThroughlineError {
  return new ThroughlineError(
    "E_SYNC_CORRUPT",
    `${name} on the remote (machine ${machine}) is damaged (${why}): run \`throughline sync --republish\` on that machine; nothing was changed here`,
  );
}

/** A file's text, checked against the hash its name carries. */
export function openFile(machine: string, name: string, data: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Bun.zstdDecompressSync(data));
  } catch {
    throw corrupt(machine, name, "not zstd-compressed UTF-8");
  }
  const want = /-([0-9a-f]{40})\.json/.exec(name)?.[1];
  if (want !== sha(text).slice(0, 40)) throw corrupt(machine, name, "its content does not match its name");
  return text;
}

export interface Chunk {
  sessions: SyncSession[];
  groups: Map<
    string,
    Group & {
      records: { turn?: TurnRecord; details: DetailRecord[]; events: EventRecord[]; summary?: SummaryRecord };
    }
  >;
}

type RecordOf = ReturnType<typeof parseRecord>;

/** A chunk's records, every line checked (src/core/export-format.ts) and grouped by turn. */
export function parseChunk(machine: string, name: string, text: string): Chunk {
  const chunk: Chunk = { sessions: [], groups: new Map() };
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let ended = false;
  const groupOf = (origin: string, n: number | null) => {
    const key = `${origin}:${n ?? -1}`;
    const g = chunk.groups.get(key) ?? {
      ...emptyGroup(origin, n ?? -1),
      hash: "",
      records: { details: [], events: [] },
    };
    chunk.groups.set(key, g);
    return g;
  };
  lines.forEach((line, i) => {
    let r: RecordOf;
    try {
      r = parseRecord(line, i + 1);
    } catch (err) {
      throw corrupt(machine, name, (err as Error).message);
    }
    if ((i === 0) !== (r.record === "header") || ended)
      throw corrupt(machine, name, `line ${i + 1} is out of place`);
    if (r.record === "end") ended = true;
    else if (r.record === "session") chunk.sessions.push(r);
    else if (r.record === "turn") {
      const g = groupOf(r.origin_session_id, r.turn_number);
      g.turn = `${line}\n`;
      g.records.turn = r;
    } else if (r.record === "detail") {
      const g = groupOf(r.origin_session_id, r.turn_number);
      g.details.push(`${line}\n`);
      g.records.details.push(r);
    } else if (r.record === "event") {
      const g = groupOf(r.origin_session_id, r.turn_number);
      g.events.push(`${line}\n`);
      g.records.events.push(r);
    } else if (r.record === "summary") {
      const g = groupOf(r.origin_session_id, r.turn_number);
      g.summary = `${line}\n`;
      g.records.summary = r;
    }
  });
  if (!ended) throw corrupt(machine, name, "it ends before its end record");
  for (const g of chunk.groups.values()) g.hash = groupHash(g);
  return chunk;
}

const KINDS: readonly TombstoneKind[] = ["turn", "event", "detail", "session", "title"];

export function tombstoneText(items: readonly Tombstone[]): string {
  return `${JSON.stringify({ format: SYNC_FORMAT, tombstones: items.map((t) => [t.kind, t.key]) })}\n`;
}

export function parseTombstones(machine: string, name: string, text: string): Tombstone[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw corrupt(machine, name, "not JSON");
  }
  const list = (v as { tombstones?: unknown } | null)?.tombstones;
  if (!Array.isArray(list)) throw corrupt(machine, name, "no tombstones list");
  return list.map((t) => {
    if (!Array.isArray(t) || !KINDS.includes(t[0]) || typeof t[1] !== "string")
      throw corrupt(machine, name, "a tombstone is not [kind, key]");
    return { kind: t[0] as TombstoneKind, key: t[1] };
  });
}

export interface Meta {
  format: number;
  machine: string;
  host: string;
  generator: string;
}

/** A machine's meta.json; refuses a format this throughline does not know. */
export function checkMeta(machine: string, text: string | null): void {
  let format = 1;
  if (text !== null)
    try {
      const v = JSON.parse(text) as Partial<Meta>;
      if (typeof v.format === "number") format = v.format;
    } catch {
      throw corrupt(machine, "meta.json", "not JSON");
    }
  if (format > SYNC_FORMAT)
    throw new ThroughlineError(
      "E_SYNC_NEWER",
      `the remote holds memory written by a newer throughline (sync format ${format}, machine ${machine}; this one reads ${SYNC_FORMAT}): upgrade throughline here and run \`throughline sync\` again; nothing was changed`,
    );
}

export interface BatonEntry {
  project: string;
  project_key: string | null;
  session_id: string;
  created_at: number;
}
