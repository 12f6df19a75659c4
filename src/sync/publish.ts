/**
 * This machine's side of a sync (docs/sync.md): what it captured since it last published, as
 * new immutable chunks on its own branch, `refs/heads/throughline/<machine>`, which no other
 * machine writes. A republish (after a forget) writes the branch again from nothing, without
 * the forgotten rows, so nothing reachable from the remote's refs holds them.
 */
import { hostname } from "node:os";
import { isNever, type NeverList } from "../core/never.ts";
import type { Database } from "../db/open.ts";
import {
  forgetPublished,
  markTombstonesPublished,
  originRecords,
  ownBatons,
  ownMarks,
  type Published,
  recordPublished,
  sentHashes,
  sessionRecord,
  unpublishedTombstones,
} from "../db/queries/sync.ts";
import type { Tombstone } from "../db/queries/sync-apply.ts";
import { writeTransaction } from "../db/tx.ts";
import { ThroughlineError } from "../errors.ts";
import { VERSION } from "../version.ts";
import {
  type BatonEntry,
  chunkName,
  chunkText,
  compress,
  type Group,
  groupsOf,
  REF_PREFIX,
  SYNC_FORMAT,
  type SyncSession,
  seqOf,
  tombstoneName,
  tombstoneText,
} from "./chunk.ts";
import { git, gitReason, listTree, runGit, writeBlob, writeTree } from "./git.ts";

/** A chunk holds about this much text before it is cut (compressed, a few hundred KiB). */
const CHUNK_TEXT_BYTES = 8 << 20;

export interface PublishContext {
  db: Database;
  mirror: string;
  url: string;
  machine: string;
  never: NeverList;
  keys: ReadonlyMap<string, string | null>;
  /** The branch as the remote holds it now (null: none yet). */
  tip: string | null;
  rewrite: boolean;
  progress?: ((done: number, total: number) => void) | undefined;
}

export interface PublishReport {
  chunks: number;
  turns: number;
  bytes: number;
  tombstones: number;
  rewritten: boolean;
}

interface Plan {
  files: Map<string, string>;
  published: Published;
  tombstones: Tombstone[];
  report: PublishReport;
}

/** Write the changed sessions' new turns into chunk blobs; returns the files the branch gains. */
function planChunks(ctx: PublishContext, startSeq: number): Plan {
  const { db } = ctx;
  const plan: Plan = {
    files: new Map(),
    published: { marks: [], groups: [] },
    tombstones: [],
    report: { chunks: 0, turns: 0, bytes: 0, tombstones: 0, rewritten: ctx.rewrite },
  };
  let seq = startSeq;
  let sessions: SyncSession[] = [];
  let groups: Group[] = [];
  let size = 0;
  const cut = () => {
    if (sessions.length === 0) return;
    const text = chunkText(sessions, groups, `throughline ${VERSION}`);
    const data = compress(text);
    const name = chunkName(seq++, text);
    plan.files.set(name, writeBlob(ctx.mirror, data));
    plan.report.chunks++;
    plan.report.bytes += data.length;
    sessions = [];
    groups = [];
    size = 0;
  };
  const marks = ownMarks(db).filter(
    (m) => !isNever(ctx.never, { sessionId: m.id, project: m.project }) && (ctx.rewrite || m.mark !== m.sent),
  );
  marks.forEach((m, i) => {
    ctx.progress?.(i, marks.length);
    const rec = sessionRecord(db, m.id);
    if (!rec) return;
    const sent = ctx.rewrite ? new Map<number, string>() : sentHashes(db, m.id);
    const fresh = groupsOf(m.id, originRecords(db, m.id)).filter((g) => sent.get(g.n) !== g.hash);
    const session: SyncSession = {
      ...rec,
      project_key: rec.project ? (ctx.keys.get(rec.project) ?? null) : null,
    };
    sessions.push(session);
    for (const g of fresh) {
      if (size >= CHUNK_TEXT_BYTES) {
        cut();
        sessions.push(session);
      }
      groups.push(g);
      size += groupSize(g);
      if (g.turn) plan.report.turns++;
      plan.published.groups.push({ origin: g.origin, n: g.n, hash: g.hash });
    }
    plan.published.marks.push({ id: m.id, mark: m.mark });
  });
  cut();
  return plan;
}

function groupSize(g: Group): number {
  let n = (g.turn?.length ?? 0) + (g.summary?.length ?? 0);
  for (const l of g.details) n += l.length;
  for (const l of g.events) n += l.length;
  return n;
}

function batonsText(ctx: PublishContext): string {
  const entries: BatonEntry[] = ownBatons(ctx.db)
    .filter((b) => !isNever(ctx.never, { sessionId: b.session_id, project: b.project }))
    .map((b) => ({ ...b, project_key: ctx.keys.get(b.project) ?? null }));
  return `${JSON.stringify(entries)}\n`;
}

function metaText(machine: string): string {
  return `${JSON.stringify({ format: SYNC_FORMAT, machine, host: hostname(), generator: `throughline ${VERSION}` })}\n`;
}

/** The commit of the branch's files (`path → blob`), on top of `parent` (null: a new history). */
function commitFiles(
  mirror: string,
  files: Map<string, string>,
  parent: string | null,
  message: string,
): string {
  const dirs = new Map<string, Map<string, string>>();
  const root = new Map<string, string>();
  for (const [path, id] of files) {
    const slash = path.indexOf("/");
    if (slash < 0) root.set(path, id);
    else {
      const dir = path.slice(0, slash);
      if (!dirs.has(dir)) dirs.set(dir, new Map());
      dirs.get(dir)!.set(path.slice(slash + 1), id);
    }
  }
  const trees = new Map([...dirs].map(([d, entries]) => [d, writeTree(mirror, entries)]));
  const tree = writeTree(mirror, root, trees);
  const args = ["commit-tree", tree, "-m", message, ...(parent ? ["-p", parent] : [])];
  return git(mirror, args, "cannot write to the sync repository").toString().trim();
}

/** Push the branch; "stale" when the remote's branch moved since it was fetched. */
function push(ctx: PublishContext, commit: string): "ok" | "stale" {
  const ref = `${REF_PREFIX}${ctx.machine}`;
  const r = runGit(ctx.mirror, [
    "push",
    "-q",
    `--force-with-lease=${ref}:${ctx.tip ?? ""}`,
    ctx.url,
    `${commit}:${ref}`,
  ]);
  if (r.code === 0) {
    git(
      ctx.mirror,
      ["update-ref", `refs/remotes/tl/${ctx.machine}`, commit],
      "cannot update the sync repository",
    );
    return "ok";
  }
  if (/stale info|fetch first|non-fast-forward/.test(r.stderr)) return "stale";
  throw new ThroughlineError(
    "E_SYNC_PUSH",
    `the sync remote ${ctx.url} refused the push (${gitReason(r.stderr)}): check that you may push to it; nothing was changed here`,
  );
}

/**
 * Publish what changed (everything, on a rewrite). Returns null when the push found the branch
 * moved (the caller fetches and calls again); records what the remote holds only once it
 * accepted the push, so a sync killed before that publishes the same rows again next time.
 */
export function publish(ctx: PublishContext): PublishReport | null {
  const before = ctx.tip && !ctx.rewrite ? listTree(ctx.mirror, ctx.tip) : new Map<string, string>();
  const kept = ctx.tip && ctx.rewrite ? listTree(ctx.mirror, ctx.tip) : new Map<string, string>();
  const files = new Map(before);
  // Tombstones stay through a rewrite: they are keys only, and every machine must still see them.
  for (const [path, id] of kept) if (path.startsWith("tombstones/")) files.set(path, id);
  const seq = Math.max(0, ...[...files.keys()].map(seqOf)) + 1;
  const plan = planChunks(ctx, seq);
  for (const [k, v] of plan.files) files.set(k, v);
  const tombstones = unpublishedTombstones(ctx.db) as Tombstone[];
  if (tombstones.length > 0) {
    const text = tombstoneText(tombstones);
    files.set(tombstoneName(seq + plan.report.chunks, text), writeBlob(ctx.mirror, compress(text)));
    plan.report.tombstones = tombstones.length;
  }
  files.set("meta.json", writeBlob(ctx.mirror, Buffer.from(metaText(ctx.machine))));
  files.set("batons.json", writeBlob(ctx.mirror, Buffer.from(batonsText(ctx))));
  const unchanged =
    !ctx.rewrite && before.size === files.size && [...files].every(([k, v]) => before.get(k) === v);
  if (!unchanged) {
    const message = ctx.rewrite ? "throughline: republish" : `throughline: ${plan.report.chunks} chunk(s)`;
    const commit = commitFiles(ctx.mirror, files, ctx.rewrite ? null : ctx.tip, message);
    if (push(ctx, commit) === "stale") return null;
  }
  writeTransaction(ctx.db, () => {
    if (ctx.rewrite) forgetPublished(ctx.db);
    recordPublished(ctx.db, plan.published);
    markTombstonesPublished(ctx.db, tombstones);
  });
  return plan.report;
}
