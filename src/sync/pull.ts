/**
 * The other machines' side of a sync (docs/sync.md): their branches as fetched, every file not
 * yet applied read and checked first (a damaged chunk or a newer format stops the sync before
 * anything is written), then their tombstones, then their chunks in each machine's order, one
 * transaction per file, so a sync killed half-way leaves whole files applied and the next one
 * applies the rest. A turn whose records did not change is left alone: applying twice changes
 * nothing.
 */
import type { Database } from "../db/open.ts";
import { exportImporter } from "../db/queries/export.ts";
import {
  appliedFiles,
  applyTombstone,
  dropTurnGroup,
  hitsOwnPublished,
  isOwnSession,
  keepTombstones,
  markApplied,
  markForeign,
  pruneApplied,
  seenHash,
  setSeen,
  type Tombstone,
  tombstoneSet,
} from "../db/queries/sync-apply.ts";
import { writeTransaction } from "../db/tx.ts";
import { type Chunk, checkMeta, openFile, parseChunk, parseTombstones, seqOf } from "./chunk.ts";
import { listTree, readBlobs } from "./git.ts";

export interface Incoming {
  machine: string;
  files: Map<string, string>;
  /** Names of files to apply, tombstones and chunks, in the machine's order. */
  pending: string[];
}

/** Every other machine's branch: refuses a newer format, lists what is not applied yet. */
export function incoming(db: Database, mirror: string, refs: Map<string, string>, self: string): Incoming[] {
  const out: Incoming[] = [];
  for (const [machine, commit] of refs) {
    const files = listTree(mirror, commit);
    const metaId = files.get("meta.json");
    const meta = metaId ? readBlobs(mirror, [metaId]).get(metaId)!.toString("utf8") : null;
    checkMeta(machine, meta);
    if (machine === self) continue;
    const applied = appliedFiles(db, machine);
    const pending = [...files.keys()]
      .filter((n) => (n.startsWith("chunks/") || n.startsWith("tombstones/")) && !applied.has(n))
      .sort((a, b) => seqOf(a) - seqOf(b) || a.localeCompare(b));
    out.push({ machine, files, pending });
  }
  return out;
}

export interface Verified {
  machine: string;
  name: string;
  tombstones?: Tombstone[];
  chunk?: Chunk;
}

/**
 * Read and check every pending file before anything is written. Files are parsed here once and
 * held: a machine's new files since its last sync are small; a first sync's are read in groups
 * by the caller.
 */
export function verify(mirror: string, sets: readonly Incoming[]): Verified[] {
  const out: Verified[] = [];
  for (const s of sets) {
    const ids = s.pending.map((n) => s.files.get(n)!);
    const blobs = readBlobs(mirror, ids);
    for (const name of s.pending) {
      const text = openFile(s.machine, name, blobs.get(s.files.get(name)!)!);
      if (name.startsWith("tombstones/"))
        out.push({ machine: s.machine, name, tombstones: parseTombstones(s.machine, name, text) });
      else out.push({ machine: s.machine, name, chunk: parseChunk(s.machine, name, text) });
    }
  }
  return out;
}

export interface PullReport {
  machines: number;
  files: number;
  turns: number;
  tombstones: number;
  removed: number;
  /** A tombstone hit what this machine published: its branch must be written again. */
  republish: boolean;
}

/** Apply every verified tombstone file in one transaction; returns what it removed. */
export function applyTombstones(
  db: Database,
  files: readonly Verified[],
  now: number,
  report: PullReport,
): void {
  const list = files.filter((f) => f.tombstones);
  if (list.length === 0) return;
  writeTransaction(db, () => {
    for (const f of list) {
      keepTombstones(db, f.machine, f.tombstones!, now);
      for (const t of f.tombstones!) {
        if (hitsOwnPublished(db, t)) report.republish = true;
        report.removed += applyTombstone(db, t);
        report.tombstones++;
      }
      markApplied(db, f.machine, f.name);
      report.files++;
    }
  });
}

/** Apply one verified chunk in one transaction. */
export function applyChunk(db: Database, f: Verified, report: PullReport): void {
  const chunk = f.chunk!;
  writeTransaction(db, () => {
    const dead = tombstoneSet(db);
    const w = exportImporter(db);
    for (const s of chunk.sessions) {
      if (dead.has(`session ${s.id}`) || isOwnSession(db, s.id)) continue;
      const { project_key, ...rec } = s;
      markForeign(db, {
        session_id: s.id,
        machine: f.machine,
        project_key: project_key ?? null,
        project: s.project,
      });
      w.session(dead.has(`title ${s.id}`) ? { ...rec, title: null } : rec);
    }
    for (const g of chunk.groups.values()) {
      if (g.n >= 0 && dead.has(`turn ${g.origin}:${g.n}`)) continue;
      if (seenHash(db, g.origin, g.n) === g.hash) continue;
      dropTurnGroup(db, g.origin, g.n);
      const r = g.records;
      if (r.turn && w.turn(r.turn)) report.turns++;
      for (const d of r.details)
        if (!(d.turn_number === null && dead.has(`detail ${d.ikey}`))) w.detail(d, 0);
      for (const e of r.events) if (!dead.has(`event ${e.ikey}`)) w.event(e);
      if (r.summary) w.summary(r.summary, 0);
      setSeen(db, g.origin, g.n, g.hash);
    }
    w.finish();
    markApplied(db, f.machine, f.name);
  });
  report.files++;
}

/** Applied names a machine's branch no longer holds are dropped (it republished). */
export function pruneAll(db: Database, sets: readonly Incoming[]): void {
  writeTransaction(db, () => {
    for (const s of sets) pruneApplied(db, s.machine, new Set(s.files.keys()));
  });
}
