/**
 * Test-only Claude Code hook, like hook-recorder.ts, that also saves what the hook process
 * can learn about the client that ran it: every `CLAUDE*` environment variable and the chain
 * of parent processes (pid, ppid, comm, cmdline) read from /proc. Used by windows.test.ts to
 * check, on each CLI version, what links SessionEnd(clear) to the next SessionStart(clear).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface ProcEntry {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
}

function procChain(start: number, max = 8): ProcEntry[] {
  const out: ProcEntry[] = [];
  let pid = start;
  for (let i = 0; i < max && pid > 1; i++) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").slice(0, 300);
      out.push({ pid, ppid, comm, cmdline });
      pid = ppid;
    } catch {
      break;
    }
  }
  return out;
}

const dir = process.argv[2];
if (dir) {
  const text = await Bun.stdin.text();
  let payload: unknown = text;
  try {
    payload = JSON.parse(text);
  } catch {
    // keep the raw text
  }
  const event =
    payload && typeof payload === "object" && "hook_event_name" in payload
      ? String((payload as { hook_event_name: unknown }).hook_event_name)
      : "unknown";
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("CLAUDE")));
  const at = Date.now();
  await Bun.write(
    join(dir, `${at}-${process.pid}-${event}.json`),
    JSON.stringify({
      event,
      at,
      payload,
      env,
      pid: process.pid,
      ppid: process.ppid,
      chain: procChain(process.pid),
    }),
  );
}
