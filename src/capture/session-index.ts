/**
 * Writes the session-index files (docs/monitor.md) from the database's rows, so what they hold
 * was redacted on the way in. Directories 0700, files 0600. Used by `export session-index` and,
 * when opted in, by the PostToolUse and Stop hooks: only core, db and bun built-ins.
 */
import type { Database } from "bun:sqlite";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { selfArgv } from "../core/invocation.ts";
import { indexLine, lastSeq, sessionIndexDir } from "../core/session-index.ts";
import { originEvents, originProject } from "../db/queries/session-index.ts";
import { writeTransaction } from "../db/tx.ts";

function ensureDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Replace a file in one step: a reader sees the old file or the new one, never half of one. */
function replaceFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export interface WrittenIndex {
  sessionId: string;
  project: string;
  dir: string;
  events: number;
}

/**
 * Rewrite one session's events.jsonl (and summary.md, when given) from the database. The same
 * rows give the same bytes, so running it again changes nothing.
 */
export function writeSessionIndex(
  db: Database,
  configDir: string,
  sessionId: string,
  summary: string | null,
): WrittenIndex | null {
  const project = originProject(db, sessionId);
  if (project === null) return null;
  const dir = sessionIndexDir(configDir, project, sessionId);
  ensureDir(dir);
  const rows = originEvents(db, sessionId);
  replaceFile(`${dir}/events.jsonl`, rows.map(indexLine).join(""));
  if (summary !== null) replaceFile(`${dir}/summary.md`, summary.endsWith("\n") ? summary : `${summary}\n`);
  return { sessionId, project, dir, events: rows.length };
}

/** The last 64 KiB of a file as text ("" when it does not exist). */
function tail(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "";
  }
  try {
    const buf = new Uint8Array(64 << 10);
    const size = Bun.file(path).size;
    const start = Math.max(0, size - buf.length);
    const n = readSync(fd, buf, 0, buf.length, start);
    return new TextDecoder().decode(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
}

/**
 * Append the session's events newer than the file's last line (PostToolUse). Inside an
 * IMMEDIATE transaction: parallel hooks of one session take turns, so none appends a line
 * another already wrote.
 */
export function appendSessionIndex(db: Database, configDir: string, sessionId: string): number {
  return writeTransaction(db, () => {
    const project = originProject(db, sessionId);
    if (project === null) return 0;
    const dir = sessionIndexDir(configDir, project, sessionId);
    const path = `${dir}/events.jsonl`;
    const fresh = !existsSync(path);
    const rows = originEvents(db, sessionId, fresh ? 0 : lastSeq(tail(path)));
    if (rows.length === 0) return 0;
    ensureDir(dir);
    writeFileSync(path, rows.map(indexLine).join(""), { flag: "a", mode: 0o600 });
    return rows.length;
  });
}

/**
 * Stop: rewrite the session's files, summary.md included, with `export session-index`. The
 * summary is the one `recall` prints, and its renderer is no hook code (docs/architecture.md):
 * it runs in a child process, from the Stop worker that already runs detached from the client.
 */
export async function refreshSessionIndex(
  env: Record<string, string | undefined>,
  sessionId: string,
  timeoutMs = 10_000,
): Promise<number | null> {
  const child = Bun.spawn([...selfArgv(), "export", "session-index", "--session", sessionId, "--quiet"], {
    env: { ...env, NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  const timer = setTimeout(() => child.kill(), timeoutMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}
