/**
 * `throughline sync` (docs/sync.md), in this order: fetch every machine's branch; refuse a newer
 * format and read and check every new file (nothing is written before both pass); publish this
 * machine's new chunks and tombstones on its own branch (a push race: fetch and retry); apply
 * the others' tombstones, then their chunks; file their sessions under this machine's
 * directory of the same project; take in their batons; and, when a tombstone hit something
 * this machine had published, write its branch again without it.
 */
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { readNever } from "../capture/never-file.ts";
import { dropAllAhead } from "../db/marks/ahead.ts";
import type { Database } from "../db/open.ts";
import { projectOf } from "../db/project.ts";
import { scrub } from "../db/queries/forget.ts";
import { deleteAllPrepared } from "../db/queries/prepared.ts";
import { hasPublished, setSyncState, syncState } from "../db/queries/sync.ts";
import { adoptProjects, optimizeIndexes } from "../db/queries/sync-apply.ts";
import { writeTransaction } from "../db/tx.ts";
import { ThroughlineError } from "../errors.ts";
import { takeBatons } from "./batons.ts";
import { REF_PREFIX } from "./chunk.ts";
import { gitReason, mirrorOf, remoteRefs, runGit } from "./git.ts";
import { refreshProjectKeys } from "./projects.ts";
import { type PublishReport, publish } from "./publish.ts";
import {
  applyChunk,
  applyTombstones,
  type Incoming,
  incoming,
  type PullReport,
  pruneAll,
  type Verified,
  verify,
} from "./pull.ts";

export interface SyncReport {
  schema: "throughline.sync.v1";
  remote: string;
  machine: string;
  pushed: PublishReport;
  pulled: PullReport & { batons: number };
  projects_adopted: number;
  duration_ms: number;
}

export interface SyncOptions {
  remote?: string | undefined;
  republish?: boolean;
  now: number;
  progress?: ((what: string, done: number, total: number) => void) | undefined;
}

/** A path given as the remote is a local repository: made absolute, so any directory syncs it. */
export function remoteUrl(given: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(given) || /^[^/]+@[^/:]+:/.test(given)) return given;
  return isAbsolute(given) ? given : resolve(given);
}

function fetchRemote(mirror: string, url: string, recorded: string | undefined): void {
  const r = runGit(mirror, ["fetch", "-q", "--prune", "--no-tags", url, `+${REF_PREFIX}*:refs/remotes/tl/*`]);
  if (r.code !== 0)
    throw new ThroughlineError(
      "E_SYNC_REMOTE",
      `cannot fetch the sync remote ${url} (${gitReason(r.stderr)}): check the address and your access${
        recorded && recorded !== url ? `; the recorded remote ${recorded} is kept` : ""
      }; nothing was changed`,
    );
}

/** One sync at a time per database: a lock file holding the pid, taken over from a dead process. */
function lock(mirror: string): () => void {
  const path = `${mirror}/throughline-sync.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch {
      const pid = Number(readFileSync(path, "utf8").trim());
      if (pid > 0 && pid !== process.pid && alive(pid))
        throw new ThroughlineError("E_SYNC_BUSY", `another sync is running (pid ${pid}): wait for it to end`);
      rmSync(path, { force: true });
    }
  }
  throw new ThroughlineError("E_SYNC_BUSY", `cannot take ${path}: remove it if no sync is running`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function machineId(db: Database): string {
  const known = syncState(db).machine;
  if (known) return known;
  const id = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex");
  writeTransaction(db, () => setSyncState(db, "machine", id));
  return id;
}

/** Publish, fetching again and retrying when the branch moved under the push. */
function publishWithRetry(
  db: Database,
  base: { mirror: string; url: string; machine: string; rewrite: boolean; opts: SyncOptions },
): PublishReport {
  const never = readNever(process.env);
  const keys = refreshProjectKeys(db, base.opts.now, projectOf(process.cwd()));
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0) fetchRemote(base.mirror, base.url, undefined);
    const tip = remoteRefs(base.mirror).get(base.machine) ?? null;
    const rewrite = base.rewrite || (tip === null && hasPublished(db));
    const report = publish({
      db,
      mirror: base.mirror,
      url: base.url,
      machine: base.machine,
      never,
      keys,
      tip,
      rewrite,
      progress: base.opts.progress && ((d, t) => base.opts.progress!("publishing", d, t)),
    });
    if (report) return report;
  }
  throw new ThroughlineError(
    "E_SYNC_PUSH",
    `the sync remote ${base.url} kept moving under the push: run sync again`,
  );
}

/** Apply what the others published; returns the report and whether this machine must republish. */
function pull(
  db: Database,
  dbPath: string,
  checked: { sets: Incoming[]; files: Verified[] },
  opts: SyncOptions,
): PullReport {
  const { sets, files } = checked;
  const report: PullReport = {
    machines: sets.length,
    files: 0,
    turns: 0,
    tombstones: 0,
    removed: 0,
    republish: false,
  };
  applyTombstones(db, files, opts.now, report);
  if (report.removed > 0) {
    writeTransaction(db, () => {
      optimizeIndexes(db);
      deleteAllPrepared(db);
    });
    dropAllAhead(dbPath);
    scrub(db);
  }
  const chunks = files.filter((f) => f.chunk);
  chunks.forEach((f, i) => {
    opts.progress?.("applying", i, chunks.length);
    applyChunk(db, f, report);
  });
  pruneAll(db, sets);
  return report;
}

/** The whole sync on an open writer connection. */
export function runSync(db: Database, dbPath: string, opts: SyncOptions): SyncReport {
  const started = performance.now();
  const state = syncState(db);
  const given = opts.remote ?? state.remote;
  if (!given)
    throw new ThroughlineError(
      "E_SYNC_NO_REMOTE",
      "no sync remote is recorded: run `throughline sync --remote <git url or path>` (an empty repository will do)",
    );
  const url = remoteUrl(given);
  if (!existsSync(dbPath)) throw new ThroughlineError("E_NO_DB", `no database at ${dbPath}`);
  const mirror = mirrorOf(dbPath);
  const unlock = lock(mirror);
  try {
    fetchRemote(mirror, url, state.remote);
    // Nothing is written before every new file of the others is read and checked.
    const sets = incoming(db, mirror, remoteRefs(mirror), state.machine ?? "");
    const checked = { sets, files: verify(mirror, sets) };
    const machine = machineId(db);
    const rewrite = opts.republish === true || state.republish === "1";
    const pushed = publishWithRetry(db, { mirror, url, machine, rewrite, opts });
    const pulled = pull(db, dbPath, checked, opts);
    const adopted = writeTransaction(db, () => adoptProjects(db));
    const batons = takeBatons(db, mirror, machine, opts.now);
    if (pulled.republish) {
      const again = publishWithRetry(db, { mirror, url, machine, rewrite: true, opts });
      pushed.chunks += again.chunks;
      pushed.bytes += again.bytes;
      pushed.rewritten = true;
    }
    writeTransaction(db, () => {
      setSyncState(db, "remote", url);
      setSyncState(db, "last_sync", String(opts.now));
      setSyncState(db, "republish", null);
      setSyncState(db, "last_error", null);
    });
    return {
      schema: "throughline.sync.v1",
      remote: url,
      machine,
      pushed,
      pulled: { ...pulled, batons },
      projects_adopted: adopted,
      duration_ms: Math.round(performance.now() - started),
    };
  } finally {
    unlock();
  }
}
