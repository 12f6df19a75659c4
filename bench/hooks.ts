/** Hook timings (docs/contract.md#performance): the prompt path and the Stop path, cold processes of the compiled binary. */
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { TranscriptBuilder } from "../harness/transcript.ts";
import { ingestTranscript } from "../src/capture/ingest.ts";
import { ingestSession } from "../src/capture/session.ts";
import { shellQuote } from "../src/core/invocation.ts";
import { hookCommand } from "../src/core/settings.ts";
import type { StartIntent } from "../src/db/marks/pending.ts";
import { databaseState } from "../src/db/marks/status.ts";
import { SETTLED_MS } from "../src/db/marks/store.ts";
import { openForRead, openForWrite } from "../src/db/open.ts";
import { FOLLOW_UP_PAYLOAD_ENV, HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "../src/hooks/flags.ts";
import { preparePush } from "../src/hooks/prepared-push.ts";
import { measure, WORK } from "./lib.ts";

const PROJECT = "/home/dev/bench-project";

/** A transcript of `turns` turns, each with a tool call: `bytesPerTurn` sets the size. */
export function bigTranscript(id: string, turns: number, bytesPerTurn: number): TranscriptBuilder {
  const b = new TranscriptBuilder(id, PROJECT, "2026-06-01T08:00:00.000Z");
  const filler = "x".repeat(Math.max(0, bytesPerTurn - 2500));
  for (let i = 1; i <= turns; i++) {
    b.user(`Step ${i}: update module ${i % 37} and run its tests`);
    b.say(`Looking at module ${i % 37}.`);
    b.tool("Read", { file_path: `/home/dev/bench-project/src/m${i % 37}.ts` }, `// module ${i}\n${filler}`);
    b.tool("Bash", { command: "bun test" }, `${i} pass, 0 fail`);
    b.say(`Module ${i % 37} updated; tests pass (${i}).`);
    b.tick(30_000);
  }
  return b;
}

function removeDb(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  rmSync(`${path}-pending`, { recursive: true, force: true });
}

/**
 * Copy a template database and flush it to disk before the timed run: otherwise the hook's
 * checkpoint fsync pays for writing back the whole freshly copied file.
 */
function copyDb(from: string, to: string): void {
  removeDb(to);
  for (const suffix of ["", "-wal", "-shm"])
    if (existsSync(from + suffix)) {
      copyFileSync(from + suffix, to + suffix);
      const fd = openSync(to + suffix, "r+");
      fsyncSync(fd);
      closeSync(fd);
    }
  // The pending marks go with their database (src/db/marks/).
  if (existsSync(`${from}-pending`)) cpSync(`${from}-pending`, `${to}-pending`, { recursive: true });
}

/** How the push of `sessionId` was made (`injections.prepared`: 0 rendered, 1 prepared, 2 printed ahead). */
function pushMadeBy(dbPath: string, sessionId: string): number | undefined {
  const db = openForRead(dbPath);
  try {
    return db
      .query<{ prepared: number }, [string]>(
        "SELECT prepared FROM injections WHERE session_id = ? ORDER BY id DESC LIMIT 1",
      )
      .get(sessionId)?.prepared;
  } finally {
    db.close();
  }
}

/** What SessionStart(clear) leaves in the marks for `id`: its intent, as of `createdAt`. */
function writeClearIntent(dbPath: string, id: string, createdAt: number): void {
  const start: StartIntent = {
    session_id: id,
    source: "clear",
    client: null,
    prompt_id: null,
    created_at: createdAt,
    cwd: PROJECT,
    transcript_path: join(WORK, `${id}.jsonl`),
  };
  writeFileSync(`${dbPath}-pending/${id}`, JSON.stringify(start));
}

/** Waits (up to 5 s) until `path` exists, or with `present` false until it is gone. */
function waitForFile(path: string, present = true): void {
  for (let i = 0; i < 500 && existsSync(path) !== present; i++) Bun.sleepSync(10);
}

/** Ingests all but the last turn into a template database; returns the paths a run needs. */
function stopFixture(name: string, turns: number, bytesPerTurn: number) {
  const id = `bench-${name}`;
  const b = bigTranscript(id, turns, bytesPerTurn);
  const lines = b.lines;
  const lastStart = lines.findLastIndex((l) => l.includes('"type":"user"') && l.includes(`Step ${turns}:`));
  const transcript = join(WORK, `${id}.jsonl`);
  writeFileSync(transcript, `${lines.slice(0, lastStart).join("\n")}\n`);
  const template = join(WORK, `${id}.template.db`);
  removeDb(template);
  const db = openForWrite(template);
  ingestTranscript(db, { path: transcript, sessionId: id, project: PROJECT, now: Date.now() });
  db.close();
  writeFileSync(transcript, b.text());
  const payload = JSON.stringify({
    session_id: id,
    transcript_path: transcript,
    cwd: PROJECT,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: `Module ${turns % 37} updated; tests pass (${turns}).`,
  });
  return { template, transcript, payload, bytes: Bun.file(transcript).size };
}

export async function benchHooks(opts: { bin: string; runs: number }) {
  const out: Record<string, { median_ms: number; p95_ms: number; runs: number; note?: string }> = {};
  const runDb = join(WORK, "run.db");
  // Measure the work itself: a detached Stop worker would still be running when the next run starts.
  // Isolated from the real home. The summarizer is the offline one: a `claude` on PATH would make
  // the Stop wait for a model call, which runs detached and bounded for a user and is not the
  // Stop's own cost (docs/benchmarks.md).
  const env = {
    THROUGHLINE_DB: runDb,
    THROUGHLINE_DETACH: "0",
    THROUGHLINE_HOME: join(WORK, "home"),
    CLAUDE_CONFIG_DIR: join(WORK, "claude"),
    THROUGHLINE_SUMMARIZER: "extractive",
  };

  // UserPromptSubmit with no pending handoff: the price of every ordinary prompt.
  removeDb(runDb);
  openForWrite(runDb).close();
  const prompt = JSON.stringify({
    session_id: "bench-live",
    transcript_path: join(WORK, "bench-live.jsonl"),
    cwd: PROJECT,
    hook_event_name: "UserPromptSubmit",
    prompt: "continue",
  });
  out["hook user-prompt-submit (no pending)"] = measure(
    opts.runs,
    () => [opts.bin, "hook", "user-prompt-submit"],
    {
      stdin: () => prompt,
      env,
    },
  );

  // SessionStart: every new session and every /clear pays it before the first prompt. Claude Code
  // 2.1.332 names its own process in CLAUDE_PID (docs/hooks.md), as here; 2.1.197 did not, and
  // the hook walks /proc instead: the second row (no goal), which finds no `claude` above the
  // bench and so walks the longest way.
  let ss = 0;
  const startPayload = () =>
    JSON.stringify({
      session_id: `bench-start-${++ss}`,
      transcript_path: join(WORK, `bench-start-${ss}.jsonl`),
      cwd: PROJECT,
      hook_event_name: "SessionStart",
      source: "startup",
    });
  out["hook session-start"] = measure(opts.runs, () => [opts.bin, "hook", "session-start"], {
    env: { ...env, CLAUDE_PID: String(process.pid) },
    stdin: startPayload,
  });
  out["hook session-start (no CLAUDE_PID: /proc walk)"] = measure(
    opts.runs,
    () => [opts.bin, "hook", "session-start"],
    { env, stdin: startPayload },
  );

  // UserPromptSubmit that hands over a 1,000-turn chain: merge + render + print.
  const chainId = "bench-chain-1000";
  const b = bigTranscript(chainId, 1000, 600);
  const chainTranscript = join(WORK, `${chainId}.jsonl`);
  writeFileSync(chainTranscript, b.text());
  const chainTemplate = join(WORK, "chain.template.db");
  removeDb(chainTemplate);
  {
    const db = openForWrite(chainTemplate);
    // As the session's Stops read it, leaving the read mark (src/db/marks/).
    ingestSession(db, {
      path: chainTranscript,
      sessionId: chainId,
      project: PROJECT,
      // The real clock, as a Stop writes the cursor: the handoff then sees the transcript fully read.
      now: Date.now(),
    });
    db.close();
  }
  // The new sessions are born after the chain's last activity, as a /clear is.
  const chainBorn = (() => {
    const db = openForWrite(chainTemplate);
    try {
      return db.query<{ t: number }, []>("SELECT max(updated_at) AS t FROM sessions").get()!.t + 1000;
    } finally {
      db.close();
    }
  })();
  let n = 0;
  /**
   * The first prompt after a /clear, on a copy of `template`: what SessionStart(clear) leaves is
   * its intent in the session's mark; the prompt claims it (the newest live session of the
   * project: the chain, no SessionEnd linking) and hands over. Returns the last run's session id.
   */
  const handoffRow = (label: string, template: string, idOf: (n: number) => string): (() => string) => {
    let id = "";
    out[label] = measure(opts.runs, () => [opts.bin, "hook", "user-prompt-submit"], {
      env,
      before: () => {
        copyDb(template, runDb);
        id = idOf(++n);
        writeClearIntent(runDb, id, chainBorn + n * 1000);
      },
      stdin: () =>
        JSON.stringify({
          session_id: id,
          transcript_path: join(WORK, `${id}.jsonl`),
          cwd: PROJECT,
          hook_event_name: "UserPromptSubmit",
          prompt: "go on",
        }),
    });
    return () => id;
  };
  const newId = handoffRow(
    "hook user-prompt-submit (handoff, 1,000-turn chain)",
    chainTemplate,
    (i) => `bench-new-${i}`,
  )();
  {
    // A row that measured no handoff would be a wrong figure: the last run must have merged the chain.
    const db = openForRead(runDb);
    const merged = db
      .query<{ n: number }, [string, string]>(
        "SELECT count(*) AS n FROM handoffs WHERE session_id = ? AND predecessor = ? AND path = 'auto'",
      )
      .get(newId, chainId)!.n;
    db.close();
    if (merged !== 1) throw new Error(`bench: the handoff of ${newId} did not merge ${chainId}`);
  }

  // The same handoff when the chain's last Stop prepared the push (docs/contract.md, "The prepared
  // push"): client-shaped ids, and the invocation the binary computes for itself.
  const pChain = "b0000000-0000-4000-8000-000000001000";
  const pTranscript = join(WORK, `${pChain}.jsonl`);
  writeFileSync(pTranscript, bigTranscript(pChain, 1000, 600).text());
  const pTemplate = join(WORK, "chain-prepared.template.db");
  removeDb(pTemplate);
  {
    const db = openForWrite(pTemplate);
    ingestTranscript(db, { path: pTranscript, sessionId: pChain, project: PROJECT, now: Date.now() });
    preparePush(db, pChain, shellQuote(opts.bin), Date.now());
    db.close();
  }
  const pNew = handoffRow(
    "hook user-prompt-submit (handoff, 1,000-turn chain, prepared push)",
    pTemplate,
    (i) => `c0000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  )();
  // A row that measured a render would be a wrong figure: the last run must have printed the prepared push.
  if (pushMadeBy(runDb, pNew) !== 1)
    throw new Error(`bench: the handoff of ${pNew} did not print the prepared push`);

  // The same first prompt when SessionStart(clear)'s follow-up rehearsed it (docs/hooks.md, "The
  // push printed ahead"): the rehearsal runs untimed after the copy, as it runs behind the client
  // (it waits until the copied files settle), and the prompt prints what it kept; its own
  // follow-up, the handoff, starts detached and is waited for untimed after the run.
  {
    let id = "";
    const payloadOf = (event: string, extra: Record<string, unknown>) =>
      JSON.stringify({
        session_id: id,
        transcript_path: join(WORK, `${id}.jsonl`),
        cwd: PROJECT,
        hook_event_name: event,
        ...extra,
      });
    const aheadEnv = { ...env, THROUGHLINE_DETACH: "1" };
    const label = "hook user-prompt-submit (the push printed ahead, 1,000-turn chain)";
    out[label] = measure(opts.runs, () => [opts.bin, "hook", "user-prompt-submit"], {
      env: aheadEnv,
      before: () => {
        // The last run's follow-up first: its handoff, then its close, before the copy replaces the files.
        waitForFile(`${runDb}-pending/printed/${id}`, false);
        Bun.sleepSync(100);
        copyDb(pTemplate, runDb);
        id = `d0000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
        writeClearIntent(runDb, id, chainBorn + n * 1000);
        const r = Bun.spawnSync([opts.bin, "hook", "session-start"], {
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
        if (r.exitCode !== 0 || !existsSync(`${runDb}-pending/ahead/${id}`))
          throw new Error(`bench: no rehearsal for ${id}: ${r.stderr}`);
      },
      stdin: () => payloadOf("UserPromptSubmit", { prompt: "go on" }),
    });
    // A row that measured the handoff itself would be a wrong figure: the last run printed ahead,
    // and its follow-up did the handoff.
    waitForFile(`${runDb}-pending/printed/${id}`, false);
    if (pushMadeBy(runDb, id) !== 2)
      throw new Error(`bench: the prompt of ${id} did not print the push ahead`);
  }

  // SessionStart(clear) on the 1,000-turn chain: its intent, and the follow-up it starts for the
  // rehearsal (timed until the hook exits; the rehearsal runs behind, waited for untimed).
  {
    let id = "";
    out["hook session-start (clear, starts the rehearsal)"] = measure(
      opts.runs,
      () => [opts.bin, "hook", "session-start"],
      {
        env: { ...env, CLAUDE_PID: String(process.pid) },
        before: () => {
          // The last run's rehearsal first, and its close, before the copy replaces the files.
          if (id) waitForFile(`${runDb}-pending/ahead/${id}`);
          Bun.sleepSync(100);
          copyDb(pTemplate, runDb);
          id = `e0000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
        },
        stdin: () =>
          JSON.stringify({
            session_id: id,
            transcript_path: join(WORK, `${id}.jsonl`),
            cwd: PROJECT,
            hook_event_name: "SessionStart",
            source: "clear",
          }),
      },
    );
    waitForFile(`${runDb}-pending/ahead/${id}`);
    if (!existsSync(`${runDb}-pending/ahead/${id}`))
      throw new Error(`bench: SessionStart(clear) of ${id} left no rehearsal`);
  }

  // Stop for the newest turn: the cost must not grow with the transcript.
  for (const [label, turns, size] of [
    ["hook stop (turn 10)", 10, 10_500],
    ["hook stop (turn 1,000 of a ≥10 MB transcript)", 1000, 10_500],
  ] as const) {
    const f = stopFixture(String(turns), turns, size);
    out[label] = {
      ...measure(opts.runs, () => [opts.bin, "hook", "stop"], {
        env,
        before: () => copyDb(f.template, runDb),
        stdin: () => f.payload,
      }),
      note: `${(f.bytes / 1024 / 1024).toFixed(1)} MB transcript`,
    };
    if (turns !== 1000) continue;
    // The same Stop after a restore or a sync tool replaced the transcript by a byte-identical
    // copy (a new inode): the cursor holds, checked once against every byte before it.
    out["hook stop (turn 1,000, transcript replaced by an identical copy)"] = {
      ...measure(opts.runs, () => [opts.bin, "hook", "stop"], {
        env,
        before: () => {
          copyDb(f.template, runDb);
          copyFileSync(f.transcript, `${f.transcript}.copy`);
          renameSync(`${f.transcript}.copy`, f.transcript);
        },
        stdin: () => f.payload,
      }),
      note: "new inode, same bytes",
    };
  }

  // The Stop and SubagentStop as registered: the client waits only for the hand-off (the shielded
  // shell, the payload read, the detached worker spawned), not for the ingest the worker does.
  {
    const f = stopFixture("handoff", 10, 10_500);
    const registered = hookCommand(shellQuote(opts.bin), "stop");
    out["hook stop (hand-off as registered)"] = {
      ...measure(opts.runs, () => ["/bin/sh", "-c", registered], {
        env: { ...env, THROUGHLINE_DETACH: "1" },
        before: () => {
          Bun.sleepSync(150); // the previous run's worker finishes before the next copy
          copyDb(f.template, runDb);
        },
        stdin: () => f.payload,
      }),
      note: "until the registered shell exits; the hook goes on in the background",
    };
    Bun.sleepSync(300);
  }

  // SessionEnd(clear) and PreCompact on the 1,000-turn chain, read to its end already: what the
  // client waits for at a /clear and before a compaction.
  const chainEvent = (event: string, extra: Record<string, unknown>) =>
    JSON.stringify({
      session_id: chainId,
      transcript_path: chainTranscript,
      cwd: PROJECT,
      hook_event_name: event,
      ...extra,
    });
  // CLAUDE_PID as 2.1.332 sets it; the second row (no goal) walks /proc as for 2.1.197.
  out["hook session-end (clear, 1,000-turn chain)"] = measure(
    opts.runs,
    () => [opts.bin, "hook", "session-end"],
    {
      env: { ...env, CLAUDE_PID: String(process.pid) },
      before: () => copyDb(chainTemplate, runDb),
      stdin: () => chainEvent("SessionEnd", { reason: "clear" }),
    },
  );
  out["hook session-end (clear, no CLAUDE_PID: /proc walk)"] = measure(
    opts.runs,
    () => [opts.bin, "hook", "session-end"],
    {
      env,
      before: () => copyDb(chainTemplate, runDb),
      stdin: () => chainEvent("SessionEnd", { reason: "clear" }),
    },
  );
  out["hook pre-compact (1,000-turn chain)"] = measure(opts.runs, () => [opts.bin, "hook", "pre-compact"], {
    env,
    before: () => copyDb(chainTemplate, runDb),
    stdin: () => chainEvent("PreCompact", { trigger: "auto", custom_instructions: null }),
  });
  // SessionStart after a compaction: it prints the push for the same chain (docs/contract.md).
  out["hook session-start (after compaction: the push, 1,000-turn chain)"] = measure(
    opts.runs,
    () => [opts.bin, "hook", "session-start"],
    {
      env: { ...env, CLAUDE_PID: String(process.pid) },
      before: () => copyDb(chainTemplate, runDb),
      stdin: () => chainEvent("SessionStart", { source: "compact" }),
    },
  );

  // The same SessionStart(compact) when PreCompact's follow-up rehearsed it (docs/contract.md,
  // "After compaction"): the rehearsal runs untimed after the copy, as it runs while the client
  // compacts (it waits until the copied files settle); the hook prints what it kept, and its own
  // follow-up, which records the push, is waited for untimed after the run.
  {
    const kept = `${runDb}-pending/compacted/${chainId}`;
    const label = "hook session-start (after compaction: the push printed ahead, 1,000-turn chain)";
    const aheadEnv = { ...env, CLAUDE_PID: String(process.pid), THROUGHLINE_DETACH: "1" };
    out[label] = measure(opts.runs, () => [opts.bin, "hook", "session-start"], {
      env: aheadEnv,
      before: () => {
        // The last run's follow-up first: its record, then its close, before the copy replaces the files.
        waitForFile(kept, false);
        Bun.sleepSync(100);
        copyDb(chainTemplate, runDb);
        const r = Bun.spawnSync([opts.bin, "hook", "pre-compact"], {
          env: {
            ...process.env,
            ...aheadEnv,
            [HOOK_WORKER_ENV]: "1",
            [PUSH_AHEAD_ENV]: "1",
            [FOLLOW_UP_PAYLOAD_ENV]: chainEvent("PreCompact", { trigger: "auto", custom_instructions: null }),
          },
          stdout: "pipe",
          stderr: "pipe",
        });
        if (r.exitCode !== 0 || !existsSync(kept))
          throw new Error(`bench: no compaction rehearsal for ${chainId}: ${r.stderr}`);
      },
      stdin: () => chainEvent("SessionStart", { source: "compact" }),
    });
    // A row that measured the render would be a wrong figure: the last run printed ahead.
    waitForFile(kept, false);
    if (pushMadeBy(runDb, chainId) !== 2)
      throw new Error(`bench: SessionStart(compact) of ${chainId} did not print the push ahead`);
  }

  // `statusline`: Claude Code runs it as often as a hook (docs/monitor.md). A 2.1.x payload for
  // the 1,000-turn chain: context from the payload, turns and handoff from the database.
  copyDb(chainTemplate, runDb);
  const status = JSON.stringify({
    session_id: chainId,
    transcript_path: chainTranscript,
    cwd: PROJECT,
    model: { id: "claude-opus-4-6", display_name: "Opus 4.6" },
    context_window: {
      context_window_size: 200_000,
      current_usage: { input_tokens: 10, cache_creation_input_tokens: 900, cache_read_input_tokens: 80_000 },
    },
  });
  // While the database files stay as they were, the line answers from what it kept of them
  // (docs/monitor.md, "Speed"): the files settle first, the warm-up run keeps the facts.
  Bun.sleepSync(SETTLED_MS + 50);
  out["statusline (1,000-turn chain)"] = measure(opts.runs, () => [opts.bin, "statusline"], {
    env,
    stdin: () => status,
  });
  // Right after a write (a fresh copy before each run): the read-only connection reads them.
  out["statusline (after a write: reads the database)"] = measure(opts.runs, () => [opts.bin, "statusline"], {
    env,
    before: () => copyDb(chainTemplate, runDb),
    stdin: () => status,
  });
  // Right after a Stop, as a user gets it: the detached worker read the session's facts again once it
  // closed the database (docs/monitor.md, "Kept facts"); its Stop and that wait run untimed.
  {
    const f = stopFixture("status", 10, 10_500);
    const id = "bench-status";
    const line = JSON.stringify({
      session_id: id,
      transcript_path: f.transcript,
      cwd: PROJECT,
      model: { id: "claude-opus-4-6", display_name: "Opus 4.6" },
      context_window: { context_window_size: 200_000, current_usage: { input_tokens: 10 } },
    });
    const statusEnv = { ...process.env, ...env };
    out["statusline (after a Stop: its worker kept the facts)"] = measure(
      opts.runs,
      () => [opts.bin, "statusline"],
      {
        env,
        before: () => {
          copyDb(f.template, runDb);
          Bun.sleepSync(SETTLED_MS + 20);
          // The line has kept facts for the session before (it is set up), then the turn's Stop.
          Bun.spawnSync([opts.bin, "statusline"], { env: statusEnv, stdin: Buffer.from(line) });
          const r = Bun.spawnSync([opts.bin, "hook", "stop"], {
            env: { ...statusEnv, [HOOK_WORKER_ENV]: "1" },
            stdin: Buffer.from(f.payload),
            stderr: "pipe",
          });
          if (r.exitCode !== 0) throw new Error(`bench: the Stop worker failed: ${r.stderr}`);
        },
        stdin: () => line,
      },
    );
    // A row that measured the read would be a wrong figure: the worker's record answers the last run.
    const record = JSON.parse(readFileSync(`${runDb}-pending/status/${id}`, "utf8")) as { key: string };
    if (record.key !== databaseState(runDb).key)
      throw new Error("bench: the Stop worker left no kept facts for the status line");
  }
  return out;
}
