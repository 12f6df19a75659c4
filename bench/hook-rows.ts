/**
 * Row makers the hook suites share (bench/hooks.ts on generated chains, bench/real.ts on the corpus's
 * sessions): the handoff at the first prompt after a /clear, rendered or printed ahead, the Stop's own
 * work and the Stop as registered. Each adds its row to `h.out` and checks it measured what it says.
 */
import { copyFileSync, existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { shellQuote } from "../src/core/invocation.ts";
import { hookCommand } from "../src/core/settings.ts";
import { FOLLOW_UP_PAYLOAD_ENV, HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "../src/hooks/flags.ts";
import {
  type ChainFixture,
  copyDb,
  type HookBench,
  pushMadeBy,
  type StopFixture,
  timeHook,
  waitForFile,
  writeClearIntent,
} from "./hook-fixtures.ts";
import { measure, WORK } from "./lib.ts";

/**
 * The first prompt after a /clear, on a copy of `chain.template`: what SessionStart(clear) leaves is
 * its intent in the session's mark; the prompt claims it (the newest live session of the project:
 * the chain, no SessionEnd linking) and hands over. Returns the last run's session id.
 */
export function handoffRow(
  h: HookBench,
  label: string,
  chain: ChainFixture,
  idOf: (n: number) => string,
): string {
  let id = "";
  h.out[label] = timeHook(h, ["hook", "user-prompt-submit"], {
    before: () => {
      copyDb(chain.template, h.runDb);
      id = idOf(++h.n);
      writeClearIntent(h.runDb, id, chain.born + h.n * 1000, chain.project);
    },
    stdin: () =>
      JSON.stringify({
        session_id: id,
        transcript_path: join(WORK, `${id}.jsonl`),
        cwd: chain.project,
        hook_event_name: "UserPromptSubmit",
        prompt: "go on",
      }),
  });
  return id;
}

/**
 * The same first prompt when SessionStart(clear)'s follow-up rehearsed it (docs/hooks.md, "The
 * push printed ahead"): the rehearsal runs untimed after the copy, as it runs behind the client
 * (it waits until the copied files settle), and the prompt prints what it kept; its own
 * follow-up, the handoff, starts detached and is waited for untimed after the run.
 */
export function printedAheadRow(h: HookBench, label: string, chain: ChainFixture, prefix: string): void {
  let id = "";
  const payloadOf = (event: string, extra: Record<string, unknown>) =>
    JSON.stringify({
      session_id: id,
      transcript_path: join(WORK, `${id}.jsonl`),
      cwd: chain.project,
      hook_event_name: event,
      ...extra,
    });
  const aheadEnv = { ...h.env, THROUGHLINE_DETACH: "1" };
  h.out[label] = timeHook(h, ["hook", "user-prompt-submit"], {
    env: aheadEnv,
    before: () => {
      // The last run's follow-up first: its handoff, then its close, before the copy replaces the files.
      waitForFile(`${h.runDb}-pending/printed/${id}`, false);
      Bun.sleepSync(100);
      copyDb(chain.template, h.runDb);
      id = `${prefix}${String(++h.n).padStart(12, "0")}`;
      writeClearIntent(h.runDb, id, chain.born + h.n * 1000, chain.project);
      const r = Bun.spawnSync([h.bin, "hook", "session-start"], {
        env: {
          ...process.env,
          ...aheadEnv,
          [HOOK_WORKER_ENV]: "1",
          [PUSH_AHEAD_ENV]: "1",
          [FOLLOW_UP_PAYLOAD_ENV]: payloadOf("SessionStart", { source: "clear" }),
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      if (r.exitCode !== 0 || !existsSync(`${h.runDb}-pending/ahead/${id}`))
        throw new Error(`bench: no rehearsal for ${id}: ${r.stderr}`);
    },
    stdin: () => payloadOf("UserPromptSubmit", { prompt: "go on" }),
  });
  // A row that measured the handoff itself would be a wrong figure: the last run printed ahead,
  // and its follow-up did the handoff.
  waitForFile(`${h.runDb}-pending/printed/${id}`, false);
  if (pushMadeBy(h.runDb, id) !== 2)
    throw new Error(`bench: the prompt of ${id} did not print the push ahead`);
}

/** The Stop's own work (the worker, `THROUGHLINE_DETACH=0`) on a fresh copy of the fixture's template. */
export function stopRow(h: HookBench, label: string, f: StopFixture, note: string): void {
  h.out[label] = {
    ...timeHook(h, ["hook", "stop"], { before: () => copyDb(f.template, h.runDb), stdin: () => f.payload }),
    note,
  };
}

/**
 * The same Stop after a restore or a sync tool replaced the transcript by a byte-identical copy
 * (a new inode): the cursor holds, checked once against every byte before it.
 */
export function stopAfterCopyRow(h: HookBench, label: string, f: StopFixture): void {
  h.out[label] = {
    ...timeHook(h, ["hook", "stop"], {
      before: () => {
        copyDb(f.template, h.runDb);
        copyFileSync(f.transcript, `${f.transcript}.copy`);
        renameSync(`${f.transcript}.copy`, f.transcript);
      },
      stdin: () => f.payload,
    }),
    note: "new inode, same bytes",
  };
}

/**
 * The Stop and SubagentStop as registered: the client waits only for the hand-off (the shielded
 * shell, the payload read, the detached worker spawned), not for the ingest the worker does.
 */
export function registeredStopRow(h: HookBench, label: string, f: StopFixture): void {
  const registered = hookCommand(shellQuote(h.bin), "stop");
  h.out[label] = {
    ...measure(h.runs, () => ["/bin/sh", "-c", registered], {
      env: { ...h.env, THROUGHLINE_DETACH: "1" },
      before: () => {
        Bun.sleepSync(150); // the previous run's worker finishes before the next copy
        copyDb(f.template, h.runDb);
      },
      stdin: () => f.payload,
    }),
    note: "until the registered shell exits; the hook goes on in the background",
  };
  Bun.sleepSync(300);
}
