/**
 * A Codex fork's link to its parent (docs/hosts.md, "Forks"). Codex writes a fork as a new
 * rollout that does not copy the parent's history: its `session_meta.history_base` names the
 * parent thread and the byte where the fork's history ends. The fork point is the newest prompt
 * of the parent's rollout before that byte; stored as the fork's `sessions.fork_uuid`, it makes
 * the fork's chain read the parent's turns up to there, as a Claude Code fork's does
 * (docs/contract.md#forks). Read once, when the fork's rollout is read from its start.
 */
import { fstatSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ForkBase } from "../core/codex-rollout.ts";
import { splitLines } from "../core/jsonl.ts";
import { codexRollout, readRange, withFile } from "./transcript-read.ts";

/** Forks of forks whose history holds no prompt of their own are followed this far. */
const MAX_HOPS = 16;

const DAY_DIRS = /^\d+$/;

function inDir(dir: string, id: string): string | null {
  try {
    const name = readdirSync(dir).find((f) => f.startsWith("rollout-") && f.endsWith(`-${id}.jsonl`));
    return name ? join(dir, name) : null;
  } catch {
    return null;
  }
}

function numbered(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => DAY_DIRS.test(f))
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

/**
 * The rollout of thread `id`: beside `near` first (a parent is mostly made the same day, and a
 * copied set of rollouts sits in one folder), then in every day of `$CODEX_HOME/sessions`
 * (`near` being `sessions/YYYY/MM/DD/rollout-…`), newest first.
 */
export function findRollout(near: string, id: string): string | null {
  const dir = dirname(near);
  const here = inDir(dir, id);
  if (here) return here;
  const root = dirname(dirname(dirname(dir)));
  if (basename(root) !== "sessions") return null;
  for (const y of numbered(root))
    for (const m of numbered(join(root, y)))
      for (const d of numbered(join(root, y, m))) {
        const day = join(root, y, m, d);
        if (day === dir) continue;
        const found = inDir(day, id);
        if (found) return found;
      }
  return null;
}

/** The first line of a file, read in blocks until its newline (a session_meta holds the base prompt). */
function firstLine(fd: number): string {
  let end = 1 << 16;
  for (;;) {
    const buf = readRange(fd, 0, end);
    const nl = buf.indexOf(0x0a);
    if (nl >= 0 || buf.length < end) return new TextDecoder().decode(nl >= 0 ? buf.subarray(0, nl) : buf);
    end *= 4;
  }
}

/**
 * The fork point of the rollout at `path` whose first line is `first`: the uuid of the parent's
 * newest prompt before the fork; null for a rollout that is no fork, or a parent not found.
 */
export function codexForkPoint(path: string, first: string): string | null {
  const m = codexRollout(path);
  let base: ForkBase | null = m ? m.forkBaseOf(first) : null;
  let near = path;
  for (let hop = 0; m && base !== null && hop < MAX_HOPS; hop++) {
    const parent = findRollout(near, base.parent);
    if (parent === null) return null;
    const b: ForkBase = base;
    const found = withFile(parent, (fd) => {
      const end = b.endByte ?? Number.MAX_SAFE_INTEGER;
      const bytes = readRange(fd, 0, Math.min(end, fstatSync(fd).size));
      const uuid = m.lastPromptBefore(splitLines(bytes, 0).lines, b);
      // A fork of a fork made before its first prompt: the fork point is in the grandparent.
      return { uuid, next: uuid === null ? m.forkBaseOf(firstLine(fd)) : null };
    });
    if (found.uuid !== null) return found.uuid;
    base = found.next;
    near = parent;
  }
  return null;
}
