/**
 * The user's history on day one (README, "throughline and Claude Code's own memory"): how many
 * sessions `$CLAUDE_CONFIG_DIR/projects` holds that are not in memory yet, and what `import`
 * would take to add them. A quick scan: one directory listing per project folder and one stat per
 * transcript, the same folders, excludes and never list as `import` (capture/import-exclude.ts,
 * capture/never-file.ts); nothing is read into the database. Used by `install`, `doctor` and the
 * first SessionStart (src/hooks/history-notice.ts).
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeConfigDir, type Env, historyNoticePath, throughlineHome } from "../core/paths.ts";
import { ownFileKind } from "../core/transcript-file.ts";
import { historyEntries, partitionFolders } from "./import-exclude.ts";
import { neverTranscriptFilter } from "./never-file.ts";
import { headEntries } from "./transcript-head.ts";

/**
 * Import speed used for the estimate, in MB (10^6 bytes) of transcript per second: the low end
 * of what `bun run bench` measured for replay (the same code as import) on the machine class
 * this project runs on, 2-vCPU Xeon, 8.0–13.3 MB/s (docs/benchmarks.md). A constant, not a
 * timing taken here: the estimate costs nothing, and a faster machine finishes early.
 */
export const IMPORT_MB_PER_S = 8;

export interface HistoryScan {
  /** `$CLAUDE_CONFIG_DIR/projects`. */
  root: string;
  /** Sessions (main transcripts) import would read, and their bytes with their subagent files. */
  sessions: number;
  bytes: number;
  /** Of those, the ones the database has not read at all. */
  pending: number;
  pendingBytes: number;
}

/** What the database has read: transcript paths and their session ids (db/queries/cursors.ts). */
export interface Ingested {
  paths: Set<string>;
  sessions: Set<string>;
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Bytes of `<folder>/<session>/subagents/*.jsonl`, which import reads with their session. */
function subagentBytes(folder: string, session: string): number {
  const dir = join(folder, session, "subagents");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  return names.filter((n) => n.endsWith(".jsonl")).reduce((sum, n) => sum + size(join(dir, n)), 0);
}

/** Main transcripts directly in a project folder (subagent files live below, in `<session>/subagents`). */
function mainTranscripts(folder: string): string[] {
  try {
    return (
      readdirSync(folder, { withFileTypes: true })
        // An older client's flat subagent files (`<session>.sub-agent-<n>.jsonl`) are not sessions.
        .filter((e) => e.isFile() && e.name.endsWith(".jsonl") && !e.name.includes(".sub-agent-"))
        .map((e) => e.name)
        .sort()
    );
  } catch {
    return [];
  }
}

/** An empty file, or one of throughline's own (an export saved there): import makes no session of it. */
function notASession(path: string): boolean {
  if (size(path) === 0) return true;
  try {
    return ownFileKind(headEntries(path)[0]) !== null;
  } catch {
    return false;
  }
}

/** Null when there is no `projects` folder at all (no history). `ingested` null: no database yet. */
export function scanHistory(env: Env, ingested: Ingested | null): HistoryScan | null {
  const root = join(claudeConfigDir(env), "projects");
  let entries: { folders: string[]; files: string[] };
  try {
    if (!statSync(root).isDirectory()) return null;
    entries = historyEntries(root);
  } catch {
    return null;
  }
  const { keep } = partitionFolders(root, entries.folders, { env, excludes: [], defaults: true });
  const never = neverTranscriptFilter(env);
  const scan: HistoryScan = { root, sessions: 0, bytes: 0, pending: 0, pendingBytes: 0 };
  const count = (folder: string, name: string) => {
    const path = join(folder, name);
    if (never && !never(path)) return;
    const session = name.replace(/\.jsonl$/, "");
    const bytes = size(path) + subagentBytes(folder, session);
    scan.sessions++;
    scan.bytes += bytes;
    if (ingested?.paths.has(path) || ingested?.sessions.has(session)) return;
    // What import skips is never in memory: not counted as waiting for it (read only for these few).
    if (notASession(path)) {
      scan.sessions--;
      scan.bytes -= bytes;
      return;
    }
    scan.pending++;
    scan.pendingBytes += bytes;
  };
  for (const folder of keep)
    for (const name of mainTranscripts(join(root, folder))) count(join(root, folder), name);
  for (const name of entries.files) count(root, name);
  return scan;
}

/** `12 KB`, `3.4 MB`, `1.2 GB` (10^3 steps, as the benchmarks count MB). */
export function formatSize(bytes: number): string {
  if (bytes < 1e6) return `${Math.max(1, Math.round(bytes / 1e3))} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(bytes < 1e8 ? 1 : 0)} MB`;
  return `${(bytes / 1e9).toFixed(1)} GB`;
}

/** How long `import` takes for `bytes` at IMPORT_MB_PER_S: `under a second`, `about 40 s`, `about 3 min`. */
export function importTime(bytes: number): string {
  const s = bytes / (IMPORT_MB_PER_S * 1e6);
  if (s < 1) return "under a second";
  if (s < 90) return `about ${Math.round(s)} s`;
  if (s < 90 * 60) return `about ${Math.round(s / 60)} min`;
  return `about ${(s / 3600).toFixed(1)} h`;
}

/**
 * The one line `install`, `doctor` and the first SessionStart say, or null when nothing is
 * waiting (no history, or all of it in memory already).
 */
export function historyNotice(scan: HistoryScan | null, invocation: string): string | null {
  if (!scan || scan.pending === 0) return null;
  const one = scan.pending === 1;
  return `${one ? "1 session" : `${scan.pending} sessions`} (${formatSize(scan.pendingBytes)}) in ${scan.root} ${one ? "is" : "are"} not in memory yet: ${importHint(scan, invocation)}`;
}

/** `` `<invocation> import` adds them (about 40 s at import's measured 8 MB/s) ``. */
export function importHint(scan: HistoryScan, invocation: string): string {
  return `\`${invocation} import\` adds ${scan.pending === 1 ? "it" : "them"} (${importTime(scan.pendingBytes)} at import's measured ${IMPORT_MB_PER_S} MB/s)`;
}

/**
 * Record that the user has been told (`$THROUGHLINE_HOME/history-notice`). `exclusive`: only if no
 * one did before, false when the marker was there already (two first SessionStarts say it once).
 */
export function claimNotice(env: Env, exclusive = true): boolean {
  mkdirSync(throughlineHome(env), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(historyNoticePath(env), `${new Date().toISOString()}\n`, {
      flag: exclusive ? "wx" : "w",
      mode: 0o600,
    });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}
