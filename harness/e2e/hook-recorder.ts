/**
 * Test-only Claude Code hook: saves its stdin payload as one JSON file in the directory given
 * as the first argument, prints nothing and exits 0. Registered next to throughline's own hooks
 * by `installHooks(..., { record: true })`, so a scenario can see exactly which events fired
 * with which payload, without wrapping (and slowing) the hook under test.
 *
 * With `--process` as the second argument it also saves what the hook process can learn about
 * the client that ran it: every `CLAUDE*` environment variable and the chain of parent processes
 * (pid, ppid, comm, cmdline) from /proc. That recorded test/fixtures/hooks/two-windows-*.json,
 * what links SessionEnd(clear) to the next SessionStart(clear) on each CLI version.
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
    // Keep the raw text: a malformed payload is itself worth seeing.
  }
  const event =
    payload && typeof payload === "object" && "hook_event_name" in payload
      ? String((payload as { hook_event_name: unknown }).hook_event_name)
      : "unknown";
  const at = Date.now();
  const client =
    process.argv[3] === "--process"
      ? {
          env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("CLAUDE"))),
          pid: process.pid,
          ppid: process.ppid,
          chain: procChain(process.pid),
        }
      : {};
  await Bun.write(
    join(dir, `${at}-${process.pid}-${event}.json`),
    JSON.stringify({ event, at, payload, ...client }),
  );
}
