/**
 * Which `claude` process ran this hook (docs/hooks.md, "Which session a /clear continues"):
 * CLAUDE_PID when the client sets it, else a short walk up the parent chain in /proc. Thin
 * shell: the rules are in core/handoff.ts. No /proc (macOS, Windows) means no client.
 */
import { readFileSync } from "node:fs";
import { clientFromEnv, findClientProcess, type ProcEntry, parseProcStat } from "../core/handoff.ts";
import type { Env } from "../core/paths.ts";

function readEntry(root: string, pid: number | "self"): ProcEntry | null {
  try {
    const stat = parseProcStat(readFileSync(`${root}/${pid}/stat`, "utf8"));
    if (!stat) return null;
    let cmdline = "";
    try {
      cmdline = readFileSync(`${root}/${pid}/cmdline`, "utf8");
    } catch {
      // comm alone is enough to recognise claude
    }
    return { ...stat, cmdline };
  } catch {
    return null;
  }
}

export function clientProcess(env: Env): string | null {
  const fromEnv = clientFromEnv(env);
  if (fromEnv) return fromEnv;
  // THROUGHLINE_PROC_ROOT lets tests replay a recorded process tree.
  const root = env.THROUGHLINE_PROC_ROOT || "/proc";
  const self = readEntry(root, "self");
  if (!self) return null;
  return findClientProcess(self.ppid, (pid) => readEntry(root, pid));
}
