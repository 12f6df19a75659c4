/**
 * `replay`: ingest recorded transcripts as if every Stop had fired. Main transcripts go
 * first so that subagent files (flat `*.sub-agent-*.jsonl` or `<session>/subagents/agent-*.jsonl`)
 * find the turn that started them.
 */
import type { Database } from "bun:sqlite";
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { isObject, parseLine } from "../core/jsonl.ts";
import { ThroughlineError } from "../errors.ts";
import { ingestSubagent, ingestTranscript } from "./ingest.ts";

export interface ReplaySession {
  session_id: string;
  file: string;
  turns: number;
  bodies: number;
  details: number;
  events: number;
  skipped_lines: number;
  bytes: number;
}

export interface ReplayReport {
  schema: "throughline.replay.v1";
  sessions: ReplaySession[];
  totals: Omit<ReplaySession, "session_id" | "file"> & { files: number; sessions: number };
  elapsed_ms: number;
}

function collect(path: string, out: string[]): void {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new ThroughlineError("E_NOT_FOUND", `no such file or directory: ${path}`);
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      const child = join(path, name);
      if (name.endsWith(".jsonl") || statSync(child).isDirectory()) collect(child, out);
    }
  } else out.push(resolve(path));
}

/** First entry that carries a uuid tells whether the file is a subagent's own transcript. */
export function isSubagentFile(path: string): boolean {
  if (path.includes("/subagents/") || /\.sub-agent-[^/]*\.jsonl$/.test(basename(path))) return true;
  const fd = openSync(path, "r");
  try {
    const buf = new Uint8Array(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    for (const line of new TextDecoder().decode(buf.subarray(0, n)).split("\n")) {
      const e = parseLine(line);
      if (isObject(e) && typeof e.uuid === "string")
        return e.isSidechain === true && typeof e.agentId === "string";
    }
  } finally {
    closeSync(fd);
  }
  return false;
}

function counts(db: Database, origin: string): { turns: number; details: number; events: number } {
  const q = (sql: string) => (db.query(sql).get({ origin }) as { n: number }).n;
  return {
    turns: q("SELECT count(*) AS n FROM turns WHERE origin_session_id = $origin"),
    details: q("SELECT count(*) AS n FROM details WHERE origin_session_id = $origin"),
    events: q("SELECT count(*) AS n FROM events WHERE origin_session_id = $origin"),
  };
}

export interface ReplayOptions {
  now?: () => number;
  /** Keep only the files this accepts (import's --project and --since). */
  filter?: (file: string) => boolean;
  /** Called after each file: how many are done out of how many. */
  onProgress?: (done: number, total: number) => void;
}

export function replay(db: Database, paths: string[], opts: ReplayOptions = {}): ReplayReport {
  const now = opts.now ?? Date.now;
  const t0 = performance.now();
  const all: string[] = [];
  for (const p of paths) collect(p, all);
  const files = opts.filter ? all.filter(opts.filter) : all;
  let done = 0;
  const tick = () => opts.onProgress?.(++done, files.length);
  const subagents = files.filter(isSubagentFile);
  const mains = files.filter((f) => !subagents.includes(f));
  const sessions: ReplaySession[] = [];
  for (const file of mains) {
    const r = ingestTranscript(db, { path: file, now: now() });
    const c = counts(db, r.sessionId);
    sessions.push({
      session_id: r.sessionId,
      file,
      turns: c.turns,
      bodies: c.turns * 2,
      details: c.details,
      events: c.events,
      skipped_lines: r.skippedLines,
      bytes: statSync(file).size,
    });
    tick();
  }
  for (const file of subagents) {
    const r = ingestSubagent(db, file, now());
    sessions.push({
      session_id: r.sessionId,
      file,
      turns: 0,
      bodies: 0,
      details: 1,
      events: r.events,
      skipped_lines: r.skippedLines,
      bytes: statSync(file).size,
    });
    tick();
  }
  const sum = (k: keyof Omit<ReplaySession, "session_id" | "file">) => sessions.reduce((a, s) => a + s[k], 0);
  return {
    schema: "throughline.replay.v1",
    sessions,
    totals: {
      files: sessions.length,
      sessions: new Set(sessions.map((s) => s.session_id)).size,
      turns: sum("turns"),
      bodies: sum("bodies"),
      details: sum("details"),
      events: sum("events"),
      skipped_lines: sum("skipped_lines"),
      bytes: sum("bytes"),
    },
    elapsed_ms: Math.round(performance.now() - t0),
  };
}
