/**
 * Migration 7 (docs/project-identity.md, "Where a session started"): file every session under
 * the project of the directory it started in. Until then a session's project followed the newest
 * `cwd` a hook or an ingest saw, so a session that started in `~/work` and later `cd`-ed into
 * `~/work/api` was filed under `~/work/api`.
 *
 * The first directory was never stored. What is stored, in order of trust:
 * 1. the transcript itself (`sessions.transcript_path`, else the session's cursor): its first
 *    entry with a `cwd` is the start, exactly;
 * 2. the transcript's folder: Claude Code names `projects/<folder>/` after the start directory
 *    (`transcriptFolderOf`), lossy, so it is matched against the directories the database knows
 *    (every project and event project, and their ancestors); used only when exactly one matches;
 * 3. neither (the file is gone and the folder matches nothing known): the session keeps its project.
 * Events of the session follow its project. Runs once, inside the migration's transaction; the
 * file reads load `node:fs` here only.
 */
import type { Database } from "bun:sqlite";
import { ancestors, normalizeProject, transcriptFolderOf } from "../core/paths.ts";
import { projectOf } from "./project.ts";
import { setSessionProject } from "./queries/sessions.ts";

/** How far into a transcript its first `cwd` is looked for (summary lines can precede it). */
const HEAD_MAX_BYTES = 4 << 20;
const CHUNK = 64 << 10;

/** The first `cwd` a transcript names, or null (missing, unreadable, none in its head). */
export function firstCwdOf(path: string): string | null {
  const fs: typeof import("node:fs") = require("node:fs");
  let fd: number;
  try {
    fd = fs.openSync(path, "r");
  } catch {
    return null;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return null;
    const decoder = new TextDecoder();
    let carry = "";
    const buf = new Uint8Array(CHUNK);
    for (let at = 0; at < HEAD_MAX_BYTES; ) {
      const n = fs.readSync(fd, buf, 0, CHUNK, at);
      if (n <= 0) return null;
      at += n;
      const lines = (carry + decoder.decode(buf.subarray(0, n), { stream: true })).split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.includes('"cwd"')) continue;
        try {
          const v = JSON.parse(line) as { cwd?: unknown };
          if (typeof v.cwd === "string" && v.cwd !== "") return v.cwd;
        } catch {
          // not a JSON line: the next one may be
        }
      }
    }
    return null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** `…/projects/<folder>/<session>.jsonl` → `<folder>`; null for a file kept anywhere else. */
function transcriptFolder(path: string): string | null {
  const parts = normalizeProject(path).split("/");
  return parts.length >= 3 && parts[parts.length - 3] === "projects" ? parts[parts.length - 2]! : null;
}

interface Row {
  id: string;
  project: string | null;
  transcript_path: string | null;
}

export function fileSessionsWhereTheyStarted(db: Database): void {
  const sessions = db
    .query<Row, []>(
      `SELECT s.id, s.project,
              coalesce(s.transcript_path,
                       (SELECT c.transcript_path FROM ingest_cursors c
                        WHERE c.session_id = s.id AND c.transcript_path NOT LIKE '%/subagents/%'
                        ORDER BY c.updated_at LIMIT 1)) AS transcript_path
       FROM sessions s`,
    )
    .all();
  if (sessions.length === 0) return;
  const fs: typeof import("node:fs") = require("node:fs");
  // Folder name → the known directories it could stand for; built on first need.
  let known: Map<string, Set<string>> | null = null;
  const knownDirs = (): Map<string, Set<string>> => {
    if (known) return known;
    known = new Map();
    const rows = db
      .query<{ p: string }, []>(
        `SELECT project AS p FROM sessions WHERE project IS NOT NULL
         UNION SELECT project FROM events WHERE project IS NOT NULL`,
      )
      .all();
    for (const { p } of rows)
      for (const dir of ancestors(normalizeProject(p))) {
        const name = transcriptFolderOf(dir);
        const set = known.get(name) ?? new Set<string>();
        set.add(dir);
        known.set(name, set);
      }
    return known;
  };
  const identities = new Map<string, string>();
  for (const s of sessions) {
    if (!s.transcript_path) continue;
    let dir = firstCwdOf(s.transcript_path);
    if (dir === null) {
      const folder = transcriptFolder(s.transcript_path);
      const matches = folder === null ? undefined : knownDirs().get(folder);
      if (matches?.size !== 1) continue;
      dir = [...matches][0]!;
    }
    let project = identities.get(dir);
    if (project === undefined) {
      project = projectOf(dir);
      identities.set(dir, project);
    }
    if (project === s.project) continue;
    // A directory that is gone resolves to itself: the identity stored while it existed (its
    // repository, at or above it) stays.
    const normal = normalizeProject(dir);
    if (s.project && !fs.existsSync(dir) && ancestors(normal).includes(s.project)) continue;
    setSessionProject(db, s.id, project);
  }
}
