/**
 * Hook timings (docs/contract.md#performance): the prompt path and the Stop path, cold processes of
 * the compiled binary. `benchHooks` runs the rows of `ROWS` in order on generated chains; the row
 * makers shared with the corpus's sessions (bench/real.ts) are in hook-rows.ts, the fixtures in
 * hook-fixtures.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestTranscript } from "../src/capture/ingest.ts";
import { ingestSession } from "../src/capture/session.ts";
import { shellQuote } from "../src/core/invocation.ts";
import { databaseState } from "../src/db/marks/status.ts";
import { SETTLED_MS } from "../src/db/marks/store.ts";
import { openForWrite } from "../src/db/open.ts";
import { FOLLOW_UP_PAYLOAD_ENV, HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "../src/hooks/flags.ts";
import { preparePush } from "../src/hooks/prepared-push.ts";
import {
  assertMerged,
  bigTranscript,
  bornAfter,
  type ChainFixture,
  copyDb,
  type HookBench,
  type HookRow,
  hookBench,
  PROJECT,
  pushMadeBy,
  removeDb,
  stopFixture,
  timeHook,
  waitForFile,
} from "./hook-fixtures.ts";
import { handoffRow, printedAheadRow, registeredStopRow, stopAfterCopyRow, stopRow } from "./hook-rows.ts";
import { WORK } from "./lib.ts";

/** The two 1,000-turn chains the handoff rows hand over: read by its Stops, and with the push prepared. */
interface Chains {
  chain: () => ChainFixture;
  prepared: () => ChainFixture;
}

/** A 1,000-turn chain as the session's Stops read it (the read mark left), in a template database. */
function readChain(): ChainFixture {
  const id = "bench-chain-1000";
  const transcript = join(WORK, `${id}.jsonl`);
  writeFileSync(transcript, bigTranscript(id, 1000, 600).text());
  const template = join(WORK, "chain.template.db");
  removeDb(template);
  const db = openForWrite(template);
  // The real clock, as a Stop writes the cursor: the handoff then sees the transcript fully read.
  ingestSession(db, { path: transcript, sessionId: id, project: PROJECT, now: Date.now() });
  db.close();
  // The new sessions are born after the chain's last activity, as a /clear is.
  return { id, transcript, template, project: PROJECT, born: bornAfter(template) };
}

/**
 * The same chain when its last Stop prepared the push (docs/contract.md, "The prepared push"):
 * client-shaped ids, and the invocation the binary computes for itself.
 */
function preparedChain(bin: string, born: number): ChainFixture {
  const id = "b0000000-0000-4000-8000-000000001000";
  const transcript = join(WORK, `${id}.jsonl`);
  writeFileSync(transcript, bigTranscript(id, 1000, 600).text());
  const template = join(WORK, "chain-prepared.template.db");
  removeDb(template);
  const db = openForWrite(template);
  ingestTranscript(db, { path: transcript, sessionId: id, project: PROJECT, now: Date.now() });
  preparePush(db, id, shellQuote(bin), Date.now());
  db.close();
  return { id, transcript, template, project: PROJECT, born };
}

/** Memoised fixtures, made when a row first needs them. */
function chainsFor(bin: string): Chains {
  let chain: ChainFixture | undefined;
  let prepared: ChainFixture | undefined;
  const c = () => (chain ??= readChain());
  return { chain: c, prepared: () => (prepared ??= preparedChain(bin, c().born)) };
}

/** UserPromptSubmit with no pending handoff: the price of every ordinary prompt. */
function promptRow(h: HookBench): void {
  removeDb(h.runDb);
  openForWrite(h.runDb).close();
  const prompt = JSON.stringify({
    session_id: "bench-live",
    transcript_path: join(WORK, "bench-live.jsonl"),
    cwd: PROJECT,
    hook_event_name: "UserPromptSubmit",
    prompt: "continue",
  });
  h.out["hook user-prompt-submit (no pending)"] = timeHook(h, ["hook", "user-prompt-submit"], {
    stdin: () => prompt,
  });
}

/**
 * SessionStart: every new session and every /clear pays it before the first prompt. Claude Code
 * 2.1.332 names its own process in CLAUDE_PID (docs/hooks.md), as here; 2.1.197 did not, and
 * the hook walks /proc instead: the second row (no goal), which finds no `claude` above the
 * bench and so walks the longest way.
 */
function sessionStartRows(h: HookBench): void {
  let ss = 0;
  const startPayload = () =>
    JSON.stringify({
      session_id: `bench-start-${++ss}`,
      transcript_path: join(WORK, `bench-start-${ss}.jsonl`),
      cwd: PROJECT,
      hook_event_name: "SessionStart",
      source: "startup",
    });
  h.out["hook session-start"] = timeHook(h, ["hook", "session-start"], {
    env: { CLAUDE_PID: String(process.pid) },
    stdin: startPayload,
  });
  h.out["hook session-start (no CLAUDE_PID: /proc walk)"] = timeHook(h, ["hook", "session-start"], {
    stdin: startPayload,
  });
}

/** UserPromptSubmit that hands over a 1,000-turn chain: merge + render + print; then with the push prepared. */
function handoffRows(h: HookBench, c: Chains): void {
  const chain = c.chain();
  const newId = handoffRow(
    h,
    "hook user-prompt-submit (handoff, 1,000-turn chain)",
    chain,
    (i) => `bench-new-${i}`,
  );
  assertMerged(h.runDb, newId, chain.id);
  const pNew = handoffRow(
    h,
    "hook user-prompt-submit (handoff, 1,000-turn chain, prepared push)",
    c.prepared(),
    (i) => `c0000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  );
  // A row that measured a render would be a wrong figure: the last run must have printed the prepared push.
  if (pushMadeBy(h.runDb, pNew) !== 1)
    throw new Error(`bench: the handoff of ${pNew} did not print the prepared push`);
}

/** The first prompt after a /clear when SessionStart(clear)'s follow-up rehearsed it. */
function printedAheadRows(h: HookBench, c: Chains): void {
  printedAheadRow(
    h,
    "hook user-prompt-submit (the push printed ahead, 1,000-turn chain)",
    c.prepared(),
    "d0000000-0000-4000-8000-",
  );
}

/**
 * SessionStart(clear) on the 1,000-turn chain: its intent, and the follow-up it starts for the
 * rehearsal (timed until the hook exits; the rehearsal runs behind, waited for untimed).
 */
function clearStartRow(h: HookBench, c: Chains): void {
  const template = c.prepared().template;
  let id = "";
  h.out["hook session-start (clear, starts the rehearsal)"] = timeHook(h, ["hook", "session-start"], {
    env: { CLAUDE_PID: String(process.pid) },
    before: () => {
      // The last run's rehearsal first, and its close, before the copy replaces the files.
      if (id) waitForFile(`${h.runDb}-pending/ahead/${id}`);
      Bun.sleepSync(100);
      copyDb(template, h.runDb);
      id = `e0000000-0000-4000-8000-${String(++h.n).padStart(12, "0")}`;
    },
    stdin: () =>
      JSON.stringify({
        session_id: id,
        transcript_path: join(WORK, `${id}.jsonl`),
        cwd: PROJECT,
        hook_event_name: "SessionStart",
        source: "clear",
      }),
  });
  waitForFile(`${h.runDb}-pending/ahead/${id}`);
  if (!existsSync(`${h.runDb}-pending/ahead/${id}`))
    throw new Error(`bench: SessionStart(clear) of ${id} left no rehearsal`);
}

/** Stop for the newest turn: the cost must not grow with the transcript; then the Stop as registered. */
function stopRows(h: HookBench): void {
  for (const [label, turns, size] of [
    ["hook stop (turn 10)", 10, 10_500],
    ["hook stop (turn 1,000 of a ≥10 MB transcript)", 1000, 10_500],
  ] as const) {
    const f = stopFixture(String(turns), turns, size);
    stopRow(h, label, f, `${(f.bytes / 1024 / 1024).toFixed(1)} MB transcript`);
    if (turns === 1000)
      stopAfterCopyRow(h, "hook stop (turn 1,000, transcript replaced by an identical copy)", f);
  }
  registeredStopRow(h, "hook stop (hand-off as registered)", stopFixture("handoff", 10, 10_500));
}

/** A payload of the 1,000-turn chain's own session. */
function chainEvent(chain: ChainFixture, event: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: chain.id,
    transcript_path: chain.transcript,
    cwd: chain.project,
    hook_event_name: event,
    ...extra,
  });
}

/**
 * SessionEnd(clear) and PreCompact on the 1,000-turn chain, read to its end already: what the
 * client waits for at a /clear and before a compaction; then SessionStart after a compaction,
 * which prints the push for the same chain (docs/contract.md).
 */
function endAndCompactRows(h: HookBench, c: Chains): void {
  const chain = c.chain();
  const before = () => copyDb(chain.template, h.runDb);
  const pid = { CLAUDE_PID: String(process.pid) };
  const end = () => chainEvent(chain, "SessionEnd", { reason: "clear" });
  // CLAUDE_PID as 2.1.332 sets it; the second row (no goal) walks /proc as for 2.1.197.
  h.out["hook session-end (clear, 1,000-turn chain)"] = timeHook(h, ["hook", "session-end"], {
    env: pid,
    before,
    stdin: end,
  });
  h.out["hook session-end (clear, no CLAUDE_PID: /proc walk)"] = timeHook(h, ["hook", "session-end"], {
    before,
    stdin: end,
  });
  h.out["hook pre-compact (1,000-turn chain)"] = timeHook(h, ["hook", "pre-compact"], {
    before,
    stdin: () => chainEvent(chain, "PreCompact", { trigger: "auto", custom_instructions: null }),
  });
  h.out["hook session-start (after compaction: the push, 1,000-turn chain)"] = timeHook(
    h,
    ["hook", "session-start"],
    { env: pid, before, stdin: () => chainEvent(chain, "SessionStart", { source: "compact" }) },
  );
}

/**
 * The same SessionStart(compact) when PreCompact's follow-up rehearsed it (docs/contract.md,
 * "After compaction"): the rehearsal runs untimed after the copy, as it runs while the client
 * compacts (it waits until the copied files settle); the hook prints what it kept, and its own
 * follow-up, which records the push, is waited for untimed after the run.
 */
function compactAheadRow(h: HookBench, c: Chains): void {
  const chain = c.chain();
  const kept = `${h.runDb}-pending/compacted/${chain.id}`;
  const aheadEnv = { CLAUDE_PID: String(process.pid), THROUGHLINE_DETACH: "1" };
  const preCompact = chainEvent(chain, "PreCompact", { trigger: "auto", custom_instructions: null });
  const label = "hook session-start (after compaction: the push printed ahead, 1,000-turn chain)";
  h.out[label] = timeHook(h, ["hook", "session-start"], {
    env: aheadEnv,
    before: () => {
      // The last run's follow-up first: its record, then its close, before the copy replaces the files.
      waitForFile(kept, false);
      Bun.sleepSync(100);
      copyDb(chain.template, h.runDb);
      const r = Bun.spawnSync([h.bin, "hook", "pre-compact"], {
        env: {
          ...process.env,
          ...h.env,
          ...aheadEnv,
          [HOOK_WORKER_ENV]: "1",
          [PUSH_AHEAD_ENV]: "1",
          [FOLLOW_UP_PAYLOAD_ENV]: preCompact,
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      if (r.exitCode !== 0 || !existsSync(kept))
        throw new Error(`bench: no compaction rehearsal for ${chain.id}: ${r.stderr}`);
    },
    stdin: () => chainEvent(chain, "SessionStart", { source: "compact" }),
  });
  // A row that measured the render would be a wrong figure: the last run printed ahead.
  waitForFile(kept, false);
  if (pushMadeBy(h.runDb, chain.id) !== 2)
    throw new Error(`bench: SessionStart(compact) of ${chain.id} did not print the push ahead`);
}

/**
 * `statusline`: Claude Code runs it as often as a hook (docs/monitor.md). A 2.1.x payload for
 * the 1,000-turn chain: context from the payload, turns and handoff from the database.
 */
function statuslineRows(h: HookBench, c: Chains): void {
  const chain = c.chain();
  copyDb(chain.template, h.runDb);
  const status = JSON.stringify({
    session_id: chain.id,
    transcript_path: chain.transcript,
    cwd: chain.project,
    model: { id: "claude-opus-4-6", display_name: "Opus 4.6" },
    context_window: {
      context_window_size: 200_000,
      current_usage: { input_tokens: 10, cache_creation_input_tokens: 900, cache_read_input_tokens: 80_000 },
    },
  });
  // While the database files stay as they were, the line answers from what it kept of them
  // (docs/monitor.md, "Speed"): the files settle first, the warm-up run keeps the facts.
  Bun.sleepSync(SETTLED_MS + 50);
  h.out["statusline (1,000-turn chain)"] = timeHook(h, ["statusline"], { stdin: () => status });
  // Right after a write (a fresh copy before each run): the read-only connection reads them.
  h.out["statusline (after a write: reads the database)"] = timeHook(h, ["statusline"], {
    before: () => copyDb(chain.template, h.runDb),
    stdin: () => status,
  });
}

/**
 * `statusline` right after a Stop, as a user gets it: the detached worker read the session's facts
 * again once it closed the database (docs/monitor.md, "Kept facts"); its Stop and that wait run untimed.
 */
function statuslineAfterStopRow(h: HookBench): void {
  const f = stopFixture("status", 10, 10_500);
  const id = "bench-status";
  const line = JSON.stringify({
    session_id: id,
    transcript_path: f.transcript,
    cwd: PROJECT,
    model: { id: "claude-opus-4-6", display_name: "Opus 4.6" },
    context_window: { context_window_size: 200_000, current_usage: { input_tokens: 10 } },
  });
  const statusEnv = { ...process.env, ...h.env };
  h.out["statusline (after a Stop: its worker kept the facts)"] = timeHook(h, ["statusline"], {
    before: () => {
      copyDb(f.template, h.runDb);
      Bun.sleepSync(SETTLED_MS + 20);
      // The line has kept facts for the session before (it is set up), then the turn's Stop.
      Bun.spawnSync([h.bin, "statusline"], { env: statusEnv, stdin: Buffer.from(line) });
      const r = Bun.spawnSync([h.bin, "hook", "stop"], {
        env: { ...statusEnv, [HOOK_WORKER_ENV]: "1" },
        stdin: Buffer.from(f.payload),
        stderr: "pipe",
      });
      if (r.exitCode !== 0) throw new Error(`bench: the Stop worker failed: ${r.stderr}`);
    },
    stdin: () => line,
  });
  // A row that measured the read would be a wrong figure: the worker's record answers the last run.
  const record = JSON.parse(readFileSync(`${h.runDb}-pending/status/${id}`, "utf8")) as { key: string };
  if (record.key !== databaseState(h.runDb).key)
    throw new Error("bench: the Stop worker left no kept facts for the status line");
}

/** The rows, in the order they run and print. */
const ROWS: ((h: HookBench, c: Chains) => void)[] = [
  promptRow,
  sessionStartRows,
  handoffRows,
  printedAheadRows,
  clearStartRow,
  stopRows,
  endAndCompactRows,
  compactAheadRow,
  statuslineRows,
  statuslineAfterStopRow,
];

export async function benchHooks(opts: { bin: string; runs: number }): Promise<Record<string, HookRow>> {
  const h = hookBench(opts.bin, opts.runs);
  const chains = chainsFor(opts.bin);
  for (const row of ROWS) row(h, chains);
  return h.out;
}
