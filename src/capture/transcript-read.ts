/**
 * A transcript file against its cursor: byte ranges read whole, the fingerprint that says the
 * bytes before the cursor are the ones it was saved for, and the observation a run decides from.
 */

import type { Database } from "bun:sqlite";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { type CursorRow, getCursor } from "../db/queries/capture.ts";
import { ThroughlineError } from "../errors.ts";

function readAt(fd: number, buf: Uint8Array, start: number): number {
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, start + off);
    if (n <= 0) break;
    off += n;
  }
  return off;
}

export function readRange(fd: number, start: number, end: number): Uint8Array {
  const buf = new Uint8Array(Math.max(0, end - start));
  const n = readAt(fd, buf, start);
  return n === buf.length ? buf : buf.subarray(0, n);
}

export function withFile<T>(path: string, fn: (fd: number) => T): T {
  const fd = openSync(path, "r");
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

/** Bytes just before the cursor that every run compares (see `cursorStillValid`). */
const PROBE = 4096;

/**
 * Saved in the cursor's `identity`: `c2:<dev>:<ino>:<crc32 of bytes 0..offset>:<crc32 of the
 * PROBE bytes before offset>`. Older cursors hold `<dev>:<ino>` only.
 */
export interface Fingerprint {
  file: string;
  crc: number;
  probe: number;
}

function formatFingerprint(f: Fingerprint): string {
  return `c2:${f.file}:${f.crc}:${f.probe}`;
}

function parseFingerprint(identity: string | null): Fingerprint | null {
  const m = identity ? /^c2:(\d+:\d+):(\d+):(\d+)$/.exec(identity) : null;
  return m ? { file: m[1]!, crc: Number(m[2]), probe: Number(m[3]) } : null;
}

function probeCrc(fd: number, end: number): number {
  return Bun.hash.crc32(readRange(fd, Math.max(0, end - PROBE), end));
}

/** CRC-32 of bytes 0..end, read in 1 MiB blocks. */
function prefixCrc(fd: number, end: number): number {
  let crc = 0;
  for (let at = 0; at < end; at += 1 << 20)
    crc = Bun.hash.crc32(readRange(fd, at, Math.min(end, at + (1 << 20))), crc);
  return crc;
}

/**
 * Whether the bytes before the cursor are still the ones it was saved for. The same file
 * (device and inode: Claude Code only appends) is checked on the bytes just before the cursor,
 * a few microseconds. Another file at the path (a restore, a sync tool, an editor that writes a
 * new file) is checked on all of them, once: a byte-identical copy keeps its cursor instead of
 * being read again from byte 0, and a copy whose earlier bytes differ is read again
 * (docs/benchmarks-history.md, "Where a Stop resumes").
 */
function cursorStillValid(
  path: string,
  cursor: CursorRow | null,
  st: { dev: number; ino: number; size: number },
): boolean {
  if (cursor === null || st.size < cursor.offset) return false;
  const file = `${st.dev}:${st.ino}`;
  const f = parseFingerprint(cursor.identity);
  if (f === null) return cursor.identity === file;
  try {
    return withFile(path, (fd) => {
      if (probeCrc(fd, cursor.offset) !== f.probe) return false;
      return f.file === file || prefixCrc(fd, cursor.offset) === f.crc;
    });
  } catch {
    return false;
  }
}

/**
 * The fingerprint of bytes 0..`end` of the file open as `fd`, of which `buf` holds `from`..:
 * the CRC continues the cursor's own when it covers the bytes before `buf`.
 */
export function fingerprintAfterRead(
  fd: number,
  st: { dev: number; ino: number },
  buf: Uint8Array,
  from: number,
  end: number,
  cursor: CursorRow | null,
): string {
  const prior = from === 0 ? null : parseFingerprint(cursor?.identity ?? null);
  const crc =
    from === 0
      ? Bun.hash.crc32(buf.subarray(0, end))
      : prior !== null && cursor !== null && cursor.offset >= from && cursor.offset <= end
        ? Bun.hash.crc32(buf.subarray(cursor.offset - from, end - from), prior.crc)
        : prefixCrc(fd, end); // a cursor saved before fingerprints: computed once
  return formatFingerprint({ file: `${st.dev}:${st.ino}`, crc, probe: probeCrc(fd, end) });
}

function statOrThrow(path: string) {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (err) {
    // Only a missing file is "not found"; a permission or I/O error says what it is.
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new ThroughlineError("E_NO_TRANSCRIPT", `transcript not found: ${path}`);
    throw new ThroughlineError("E_READ", `cannot read transcript ${path}: ${(err as Error).message}`);
  }
  // A FIFO or device would block the read or never end; a directory cannot be read as lines.
  if (!st.isFile()) throw new ThroughlineError("E_NOT_FILE", `transcript is not a regular file: ${path}`);
  return st;
}

/** Codex's rollouts (docs/hosts.md): their reader loads only for them, off Claude Code's hooks' graph. */
export function codexRollout(path: string): typeof import("../core/codex-rollout.ts") | null {
  if (!basename(path).startsWith("rollout-")) return null;
  const m = require("../core/codex-rollout.ts") as typeof import("../core/codex-rollout.ts");
  return m.isRolloutPath(path) ? m : null;
}

export function sessionIdFromPath(path: string): string {
  return codexRollout(path)?.rolloutSessionId(path) ?? basename(path).replace(/\.jsonl$/, "");
}

/** What a run decides from: the file's size, the cursor of earlier runs and whether it still holds. */
export interface Observed {
  /** The file as stat saw it: tells a parallel writer's change apart under the lock. */
  stat: string;
  size: number;
  cursor: CursorRow | null;
  /** The bytes before the cursor are the ones it was saved for (see `fingerprint`). */
  valid: boolean;
}

export function observe(db: Database, path: string): Observed {
  return observeWith(path, getCursor(db, path));
}

/** The file as it is now, against a cursor read from the database earlier (or by another thread's caller). */
export function observeWith(path: string, cursor: CursorRow | null): Observed {
  const st = statOrThrow(path);
  return {
    stat: `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`,
    size: st.size,
    cursor,
    valid: cursorStillValid(path, cursor, st),
  };
}

export function sameObserved(a: Observed, b: Observed): boolean {
  if (a.stat !== b.stat || a.size !== b.size || a.valid !== b.valid) return false;
  if (a.cursor === null || b.cursor === null) return a.cursor === b.cursor;
  const x = a.cursor;
  const y = b.cursor;
  return (
    x.offset === y.offset &&
    x.turn_offset === y.turn_offset &&
    x.turn_number === y.turn_number &&
    x.identity === y.identity &&
    x.size === y.size &&
    x.skipped_lines === y.skipped_lines &&
    x.session_id === y.session_id
  );
}
