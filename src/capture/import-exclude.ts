/**
 * Which folders of `$CLAUDE_CONFIG_DIR/projects` `import` leaves out: the sessions other tools
 * run in the background are not the user's conversations (README, "What the summarizer costs").
 *
 * - throughline's own summarizer runs from `$THROUGHLINE_HOME/summarizer`; today it writes no
 *   transcript (`--no-session-persistence`), older versions did. Always skipped.
 * - Known observer folders (DEFAULT_EXCLUDES) unless `--no-default-excludes`.
 * - Whatever `--exclude <glob>[,<glob>…]` names (matched against the folder name).
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Env, throughlineHome } from "../core/paths.ts";
import { SUMMARIZER_DIR } from "../core/summarize.ts";
import { ThroughlineError } from "../errors.ts";

/** claude-mem's observer runs headless `claude` in `~/.claude-mem/observer-sessions`. */
export const DEFAULT_EXCLUDES = ["*-claude-mem-observer-sessions"] as const;

/** Claude Code names a project's folder after its path with every non-alphanumeric turned into `-`. */
export function projectFolderName(dir: string): string {
  return resolve(dir).replace(/[^A-Za-z0-9]/g, "-");
}

/** The folder names throughline's summarizer would write to (as given and with symlinks resolved). */
export function summarizerFolders(env: Env): string[] {
  const dir = join(throughlineHome(env), SUMMARIZER_DIR);
  const names = new Set([projectFolderName(dir)]);
  try {
    names.add(projectFolderName(realpathSync(dir)));
  } catch {
    // not created yet: the summarizer never ran here
  }
  return [...names];
}

/** `*` any run of characters, `?` one; the whole folder name must match. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

export function parseExcludes(value: string | undefined): string[] {
  if (value === undefined) return [];
  const globs = value
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
  if (globs.length === 0)
    throw new ThroughlineError("E_ARGS", "--exclude: give a folder glob, e.g. '*-scratch'");
  return globs;
}

export interface SkippedFolder {
  folder: string;
  /** `throughline summarizer`, `default exclude <glob>` or `--exclude <glob>`. */
  reason: string;
  transcripts: number;
}

function countTranscripts(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).length;
  } catch {
    return 0;
  }
}

/** Why `name` is left out, or null when it is imported. */
function skipReason(
  name: string,
  own: readonly string[],
  rules: { glob: string; re: RegExp; label: string }[],
) {
  if (own.includes(name)) return "throughline summarizer";
  const hit = rules.find((r) => r.re.test(name));
  return hit ? `${hit.label} ${hit.glob}` : null;
}

/**
 * Split `folders` (names directly under `root`) into those to import and those skipped, with
 * the reason and how many transcripts each skipped folder held.
 */
export function partitionFolders(
  root: string,
  folders: readonly string[],
  opts: { env: Env; excludes: readonly string[]; defaults: boolean },
): { keep: string[]; skipped: SkippedFolder[] } {
  const own = summarizerFolders(opts.env);
  const rules = [
    ...(opts.defaults ? DEFAULT_EXCLUDES.map((g) => ({ glob: g, label: "default exclude" })) : []),
    ...opts.excludes.map((g) => ({ glob: g, label: "--exclude" })),
  ].map((r) => ({ ...r, re: globToRegExp(r.glob) }));
  const keep: string[] = [];
  const skipped: SkippedFolder[] = [];
  for (const name of folders) {
    const reason = skipReason(name, own, rules);
    if (reason) skipped.push({ folder: name, reason, transcripts: countTranscripts(join(root, name)) });
    else keep.push(name);
  }
  return { keep, skipped };
}

/** What lies directly under `root`: project folders, and any loose transcript (imported as before). */
export function historyEntries(root: string): { folders: string[]; files: string[] } {
  const folders: string[] = [];
  const files: string[] = [];
  for (const name of readdirSync(root).sort()) {
    try {
      if (statSync(join(root, name)).isDirectory()) folders.push(name);
      else if (name.endsWith(".jsonl")) files.push(name);
    } catch {
      // vanished while listing: nothing to import
    }
  }
  return { folders, files };
}
