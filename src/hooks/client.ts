/**
 * Which `claude` process ran this hook (docs/hooks.md, "Which session a /clear continues"):
 * CLAUDE_PID when the client sets it, else a short walk up the parent chain in /proc. Thin
 * shell: the rules are in core/handoff.ts. No /proc (macOS, Windows) means no client. Read with
 * `Bun.file`: `node:fs` would cost the hook ~2 ms to load (docs/benchmarks.md).
 */
import { clientFromEnv, findClientProcess, type ProcEntry, parseProcStat } from "../core/handoff.ts";
import type { Env } from "../core/paths.ts";

async function readEntry(root: string, pid: number | "self"): Promise<ProcEntry | null> {
  try {
    const stat = parseProcStat(await Bun.file(`${root}/${pid}/stat`).text());
    if (!stat) return null;
    let cmdline = "";
    try {
      cmdline = await Bun.file(`${root}/${pid}/cmdline`).text();
    } catch {
      // comm alone is enough to recognise claude
    }
    return { ...stat, cmdline };
  } catch {
    return null;
  }
}

export async function clientProcess(env: Env): Promise<string | null> {
  const fromEnv = clientFromEnv(env);
  if (fromEnv) return fromEnv;
  // THROUGHLINE_PROC_ROOT lets tests replay a recorded process tree.
  const root = env.THROUGHLINE_PROC_ROOT || "/proc";
  const self = await readEntry(root, "self");
  if (!self) return null;
  return findClientProcess(self.ppid, (pid) => readEntry(root, pid));
}
