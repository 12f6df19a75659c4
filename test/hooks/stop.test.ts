import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { CLI_INVOCATION, count, runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { BACKGROUND_HEAD, hookCommand, hookProgram } from "../../src/core/settings.ts";
import { storedFinalText } from "../../src/db/queries/capture.ts";
import { FINAL_TEXT } from "../../src/db/row-forms.ts";
import { runHook } from "../../src/hooks/run.ts";
import { SECRETS } from "../helpers/secrets.ts";

function envFor(dir: string): Record<string, string> & { THROUGHLINE_DB: string } {
  return {
    ...(process.env as Record<string, string>),
    THROUGHLINE_DB: join(dir, "tl.db"),
    THROUGHLINE_FLUSH_WAIT_MS: "2000",
  };
}

function onlyHookErrors(dbPath: string): { errors: number; other: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const other = ["sessions", "turns", "bodies", "details", "events", "ingest_cursors"].reduce(
      (a, t) => a + count(db, `SELECT count(*) n FROM ${t}`),
      0,
    );
    return { errors: count(db, "SELECT count(*) n FROM hook_errors"), other };
  } finally {
    db.close();
  }
}

describe("hook stop: contract (docs/contract.md#hooks)", () => {
  for (const [name, stdin] of [
    ["not JSON", "{nope"],
    ["empty", ""],
    ["missing session_id", JSON.stringify({ transcript_path: "/x.jsonl", hook_event_name: "Stop" })],
    ["a JSON array", "[1,2]"],
  ] as const)
    test(`bad stdin (${name}) → exit 1, one stderr line, only a hook_errors row`, async () => {
      using dir = tempDir();
      const env = envFor(dir.path);
      const out = await runHook("stop", stdin, env);
      expect(out.exitCode).toBe(1);
      expect(out.stdout).toBe("");
      expect(out.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(out.stderr).toStartWith("throughline hook stop: ");
      expect(onlyHookErrors(env.THROUGHLINE_DB!)).toEqual({ errors: 1, other: 0 });
    });

  test("an error that quotes a secret is stored redacted", async () => {
    using dir = tempDir();
    const env = envFor(dir.path);
    const token = SECRETS.github_pat!;
    const out = await runHook(
      "stop",
      JSON.stringify({
        session_id: "s-1",
        transcript_path: `/tmp/${token}/t.jsonl`,
        hook_event_name: "Stop",
      }),
      { ...env, THROUGHLINE_FLUSH_WAIT_MS: "0" },
    );
    expect(out.exitCode).toBe(1);
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    try {
      const rows = db.query("SELECT message FROM hook_errors").all() as { message: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]!.message).toContain("[REDACTED:");
      expect(rows[0]!.message).not.toContain(token);
    } finally {
      db.close();
    }
  });

  test("as a process: exit 1, never 2, one line on stderr, nothing on stdout", () => {
    using dir = tempDir();
    const r = runCli(["hook", "stop"], {
      stdin: "not json",
      env: { ...envFor(dir.path), THROUGHLINE_DETACH: "0" },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("throughline hook stop: stdin is not JSON\n");
  });

  /** A one-turn transcript in `dir` and the Stop payload that points at it. */
  function oneTurn(dir: string, sessionId: string): string {
    const t = new TranscriptBuilder(sessionId);
    t.user("hello").say("hi");
    const path = join(dir, "t.jsonl");
    writeFileSync(path, t.text());
    return JSON.stringify({
      session_id: sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
    });
  }

  test("the process-turn alias runs the same hook, in a detached worker that outlives the client", async () => {
    using dir = tempDir();
    const payload = oneTurn(dir.path, "cccccccc-0000-4000-8000-000000000001");
    const r = runCli(["process-turn"], { stdin: payload, env: envFor(dir.path) });
    expect(r).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    // The foreground process has exited; the worker stores the turn shortly after.
    let turns = 0;
    for (let i = 0; i < 200 && turns === 0; i++) {
      await Bun.sleep(25);
      if (!existsSync(join(dir.path, "tl.db"))) continue;
      const db = new Database(join(dir.path, "tl.db"), { readonly: true });
      try {
        turns = count(db, "SELECT count(*) n FROM turns");
      } catch {
        // schema not created yet by the worker
      } finally {
        db.close();
      }
    }
    expect(turns).toBe(1);
  });

  /** Turns the worker stored within `ms`, polling the database read-only. */
  async function storedWithin(db: string, ms: number): Promise<number> {
    let turns = 0;
    for (const end = Date.now() + ms; turns === 0 && Date.now() < end; ) {
      await Bun.sleep(25);
      if (!existsSync(db)) continue;
      const r = new Database(db, { readonly: true });
      try {
        turns = count(r, "SELECT count(*) n FROM turns");
      } catch {
        // schema not created yet by the worker
      } finally {
        r.close();
      }
    }
    return turns;
  }

  /**
   * What `claude -p` does to an async hook as it exits: SIGTERM to the hook's process group
   * a moment after starting it, before Bun can run any code of ours.
   */
  async function terminatedAtOnce(
    command: string,
    dir: string,
    sessionId: string,
    delayMs = 5,
  ): Promise<number> {
    const payload = oneTurn(dir, sessionId);
    const child = Bun.spawn(["/bin/sh", "-c", command], {
      env: { ...process.env, ...envFor(dir) },
      stdin: new Blob([payload]),
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
    });
    // 2.1.x sends it 1–5 ms after the start; Bun needs ~15 ms to install any handler.
    if (delayMs > 0) await Bun.sleep(delayMs);
    process.kill(-child.pid, "SIGTERM");
    await child.exited;
    return storedWithin(join(dir, "tl.db"), 3_000);
  }

  test.skipIf(process.platform === "win32")(
    "the registered Stop command survives a SIGTERM 5 ms after it starts; the bare command does not",
    async () => {
      using dir = tempDir();
      const command = hookCommand(CLI_INVOCATION, "stop");
      expect(command).toStartWith(BACKGROUND_HEAD);
      expect(await terminatedAtOnce(command, dir.path, "cccccccc-0000-4000-8000-000000000011")).toBe(1);
      // The race is real: without the shield the signal loses the turn. Sent at once: a 5 ms timer on
      // a loaded machine can fire after the bare hook has already handed its work to the detached
      // worker, which then stores the turn (that made this half flaky in CI).
      using bare = tempDir();
      expect(
        await terminatedAtOnce(hookProgram(command), bare.path, "cccccccc-0000-4000-8000-000000000012", 0),
      ).toBe(0);
    },
  );

  test.skipIf(process.platform !== "linux")(
    "the registered command exits before its payload is even written: the client waits for the shell alone",
    async () => {
      using dir = tempDir();
      const payload = oneTurn(dir.path, "cccccccc-0000-4000-8000-000000000015");
      // A pipe this test writes when it chooses: a FIFO opened read-write (Linux does not block on
      // that). The hook stops reading once its payload parses, so it needs no end of input.
      const fifo = join(dir.path, "stdin.fifo");
      expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
      const fd = openSync(fifo, "r+");
      try {
        const shell = Bun.spawn(["/bin/sh", "-c", hookCommand(CLI_INVOCATION, "stop")], {
          env: envFor(dir.path),
          stdin: fd,
          stdout: "pipe",
          stderr: "pipe",
        });
        // Nothing written yet: the `exec` form of earlier releases was still waiting for it here.
        expect(await shell.exited).toBe(0);
        expect(await new Response(shell.stdout).text()).toBe("");
        expect(await new Response(shell.stderr).text()).toBe("");
        writeSync(fd, payload);
        expect(await storedWithin(join(dir.path, "tl.db"), 5_000)).toBe(1);
      } finally {
        closeSync(fd);
      }
    },
    20_000,
  );

  test.skipIf(process.platform === "win32")(
    "a payload that fails its check, through the registered command: exit 0, and the hook records one error",
    async () => {
      using dir = tempDir();
      const env = envFor(dir.path);
      const shell = Bun.spawn(["/bin/sh", "-c", hookCommand(CLI_INVOCATION, "stop")], {
        env,
        stdin: new Blob(["{nope"]),
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await shell.exited).toBe(0);
      expect(await new Response(shell.stderr).text()).toBe("");
      for (const end = Date.now() + 5_000; !existsSync(env.THROUGHLINE_DB) && Date.now() < end; )
        await Bun.sleep(25);
      let seen = { errors: 0, other: 0 };
      for (const end = Date.now() + 5_000; seen.errors === 0 && Date.now() < end; await Bun.sleep(25))
        try {
          seen = onlyHookErrors(env.THROUGHLINE_DB);
        } catch {
          // the hook is still creating the database
        }
      expect(seen).toEqual({ errors: 1, other: 0 });
    },
    20_000,
  );

  /** The detached worker of the Stop hook whose database is `db`, found by its environment, once exec'd. */
  async function findWorker(db: string, ms: number): Promise<number | null> {
    const wanted = [`THROUGHLINE_DB=${db}`, "THROUGHLINE_HOOK_WORKER=1"];
    for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(2)) {
      for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
        let env: string[];
        let argv0: string | undefined;
        try {
          env = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
          argv0 = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0")[0];
        } catch {
          continue; // gone, or not ours to read
        }
        // The shell that starts it carries the same environment: the worker is the program it
        // execs, shielded from its first instruction (the shell's own instant before its `trap`
        // is the one it is not; docs/hooks.md).
        if (wanted.every((w) => env.includes(w)) && argv0 !== "/bin/sh") return Number(pid);
      }
    }
    return null;
  }

  /**
   * The registered Stop command, started on a transcript whose reply is not written yet (the flush
   * race): its worker waits for it. `finish` writes the reply.
   */
  function stopAwaitingReply(dir: string, env: Record<string, string>, sessionId: string, reply: string) {
    const t = new TranscriptBuilder(sessionId);
    t.user("hello");
    const path = join(dir, "t.jsonl");
    writeFileSync(path, t.text());
    const payload = JSON.stringify({
      session_id: sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
      last_assistant_message: reply,
    });
    const hook = Bun.spawn(["/bin/sh", "-c", hookCommand(CLI_INVOCATION, "stop")], {
      env,
      stdin: new Blob([payload]),
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
    });
    return {
      hook,
      finish: () => {
        t.say(reply);
        writeFileSync(path, t.text());
      },
    };
  }

  /** The reply stored for the session within `ms`, polling the database read-only; null if none. */
  async function storedReply(
    dbPath: string,
    sessionId: string,
    want: string,
    ms: number,
  ): Promise<string | null> {
    let reply: string | null = null;
    for (const end = Date.now() + ms; reply !== want && Date.now() < end; await Bun.sleep(25)) {
      if (!existsSync(dbPath)) continue;
      const db = new Database(dbPath, { readonly: true });
      try {
        reply = storedFinalText(db, sessionId);
      } catch {
        // schema not created yet by the worker
      } finally {
        db.close();
      }
    }
    return reply;
  }

  test.skipIf(process.platform !== "linux")(
    "the detached worker survives the client's kill of the hook's process tree (SIGTERM to every descendant)",
    async () => {
      // Claude Code kills an async hook by walking its process tree (`ps`) and sending SIGTERM to
      // every descendant it finds, the worker included when it has started by then. Bun's spawn
      // resets the ignored signals, so the worker has to be shielded again.
      using dir = tempDir();
      const env = envFor(dir.path);
      const sessionId = "cccccccc-0000-4000-8000-000000000013";
      // The worker waits for the reply, alive long enough to be found and signalled.
      const run = stopAwaitingReply(dir.path, env, sessionId, "the final answer");
      const worker = await findWorker(env.THROUGHLINE_DB, 5_000);
      expect(worker).not.toBeNull();
      process.kill(worker!, "SIGTERM");
      process.kill(worker!, "SIGHUP");
      await run.hook.exited;
      run.finish();
      expect(await storedReply(env.THROUGHLINE_DB, sessionId, "the final answer", 5_000)).toBe(
        "the final answer",
      );
    },
    20_000,
  );

  test.skipIf(process.platform === "win32")(
    "the detached worker waits longer for the reply than the foreground hook: one written 3 s after Stop is stored",
    async () => {
      using dir = tempDir();
      const { THROUGHLINE_FLUSH_WAIT_MS: _, ...env } = envFor(dir.path);
      const sessionId = "cccccccc-0000-4000-8000-000000000014";
      const run = stopAwaitingReply(dir.path, env, sessionId, "the late answer");
      await run.hook.exited;
      await Bun.sleep(3_000);
      run.finish();
      expect(await storedReply(env.THROUGHLINE_DB, sessionId, "the late answer", 10_000)).toBe(
        "the late answer",
      );
      const db = new Database(env.THROUGHLINE_DB, { readonly: true });
      expect(count(db, "SELECT count(*) n FROM hook_errors")).toBe(0);
      db.close();
    },
    20_000,
  );

  test("THROUGHLINE_DETACH=0 runs the hook in the foreground", () => {
    using dir = tempDir();
    const payload = oneTurn(dir.path, "cccccccc-0000-4000-8000-000000000007");
    const r = runCli(["hook", "stop"], {
      stdin: payload,
      env: { ...envFor(dir.path), THROUGHLINE_DETACH: "0" },
    });
    expect(r.exitCode).toBe(0);
    const db = new Database(join(dir.path, "tl.db"), { readonly: true });
    expect(count(db, "SELECT count(*) n FROM turns")).toBe(1);
    db.close();
  });

  test("a transcript that appears a little after Stop fires is waited for", async () => {
    using dir = tempDir();
    const env = envFor(dir.path);
    const t = new TranscriptBuilder("cccccccc-0000-4000-8000-000000000008");
    t.user("quick").say("answer");
    const path = join(dir.path, "late.jsonl");
    const later = setTimeout(() => writeFileSync(path, t.text()), 150);
    const payload = {
      session_id: t.sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
      last_assistant_message: "answer",
    };
    const out = await runHook("stop", JSON.stringify(payload), env);
    clearTimeout(later);
    expect(out).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect(count(db, "SELECT count(*) n FROM turns")).toBe(1);
    db.close();
  });

  test("inside the summarizer the hook exits 0 at once and touches nothing", async () => {
    using dir = tempDir();
    const env = { ...envFor(dir.path), THROUGHLINE_INSIDE_SUMMARIZER: "1" };
    expect(await runHook("stop", "garbage", env)).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(existsSync(env.THROUGHLINE_DB)).toBe(false);
  });
});

describe("hook stop: flush race (docs/contract.md#capture)", () => {
  test("waits for last_assistant_message to reach the file, then stores it", async () => {
    using dir = tempDir();
    const env = envFor(dir.path);
    const t = new TranscriptBuilder("cccccccc-0000-4000-8000-000000000002");
    t.user("Summarize the diff");
    const path = join(dir.path, "t.jsonl");
    writeFileSync(path, t.text());
    t.say("The diff renames two functions.");
    const later = setTimeout(() => writeFileSync(path, t.text()), 300);
    const payload = {
      session_id: t.sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
      last_assistant_message: "The diff renames two functions.",
    };
    const out = await runHook("stop", JSON.stringify(payload), env);
    clearTimeout(later);
    expect(out.exitCode).toBe(0);
    const db = new Database(env.THROUGHLINE_DB!, { readonly: true });
    expect(
      db.query(`SELECT ${FINAL_TEXT("bodies")} AS final_text FROM bodies WHERE role='assistant'`).get(),
    ).toEqual({
      final_text: "The diff renames two functions.",
    });
    expect(count(db, "SELECT count(*) n FROM hook_errors")).toBe(0);
    db.close();
  });

  test("gives up after the bounded wait: stores what is there, records why, next Stop finishes the turn", async () => {
    using dir = tempDir();
    const env = { ...envFor(dir.path), THROUGHLINE_FLUSH_WAIT_MS: "200" };
    const t = new TranscriptBuilder("cccccccc-0000-4000-8000-000000000003");
    t.user("Explain the bug");
    const path = join(dir.path, "t.jsonl");
    writeFileSync(path, t.text());
    const payload = {
      session_id: t.sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
      last_assistant_message: "It is an off-by-one.",
    };
    expect((await runHook("stop", JSON.stringify(payload), env)).exitCode).toBe(0);
    t.say("It is an off-by-one.");
    writeFileSync(path, t.text());
    expect((await runHook("stop", JSON.stringify(payload), env)).exitCode).toBe(0);
    const db = new Database(env.THROUGHLINE_DB!, { readonly: true });
    expect(count(db, "SELECT count(*) n FROM turns")).toBe(1);
    expect(count(db, "SELECT count(*) n FROM hook_errors")).toBe(1);
    expect(
      db.query(`SELECT ${FINAL_TEXT("bodies")} AS final_text FROM bodies WHERE role='assistant'`).get(),
    ).toEqual({
      final_text: "It is an off-by-one.",
    });
    db.close();
  });
});

describe("hook stop: repeated Stops", () => {
  test("a second Stop with nothing new does not wait or record an error", async () => {
    using dir = tempDir();
    const env = envFor(dir.path);
    const t = new TranscriptBuilder("cccccccc-0000-4000-8000-000000000004");
    t.user("Name the release").say("Call it v2.0 (token=abc12345 redacted).");
    const path = join(dir.path, "t.jsonl");
    writeFileSync(path, t.text());
    const payload = JSON.stringify({
      session_id: t.sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
      last_assistant_message: "Call it v2.0 (token=abc12345 redacted).",
    });
    expect((await runHook("stop", payload, env)).exitCode).toBe(0);
    const t0 = performance.now();
    expect((await runHook("stop", payload, env)).exitCode).toBe(0);
    expect(performance.now() - t0).toBeLessThan(1500);
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect(count(db, "SELECT count(*) n FROM hook_errors")).toBe(0);
    db.close();
  });
});

describe("L1 summaries (docs/contract.md#l1-summaries)", () => {
  test("past 20 turns, each Stop summarises the oldest unsummarised turn (extractive backend)", async () => {
    using dir = tempDir();
    const env = { ...envFor(dir.path), THROUGHLINE_SUMMARIZER: "extractive" };
    const t = new TranscriptBuilder("cccccccc-0000-4000-8000-000000000005");
    const path = join(dir.path, "t.jsonl");
    const payload = JSON.stringify({
      session_id: t.sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
    });
    for (let i = 1; i <= 23; i++) {
      t.user(`Step ${i}: fix src/mod${i}.ts`).say(`Fixed the null check in src/mod${i}.ts; ${i} tests pass.`);
      writeFileSync(path, t.text());
      expect((await runHook("stop", payload, env)).stderr).toBe("");
    }
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    const rows = db
      .query(
        "SELECT t.turn_number, k.summary, k.backend FROM skeletons k JOIN turns t ON t.id = k.turn_id ORDER BY 1",
      )
      .all() as { turn_number: number; summary: string; backend: string }[];
    db.close();
    expect(rows.map((r) => r.turn_number)).toEqual([1, 2, 3]);
    for (const r of rows) {
      expect(r.backend).toBe("extractive");
      expect(r.summary.length).toBeGreaterThanOrEqual(20);
      expect(r.summary).toContain(`src/mod${r.turn_number}.ts`);
    }
  });

  test("a failing backend leaves the turn unsummarised and records why", async () => {
    using dir = tempDir();
    const env = {
      ...envFor(dir.path),
      THROUGHLINE_SUMMARIZER: "command",
      THROUGHLINE_SUMMARIZER_CMD: "echo boom >&2; exit 3",
    };
    const t = new TranscriptBuilder("cccccccc-0000-4000-8000-000000000006");
    const path = join(dir.path, "t.jsonl");
    for (let i = 1; i <= 21; i++) t.user(`q${i}`).say(`a${i}`);
    writeFileSync(path, t.text());
    const payload = JSON.stringify({
      session_id: t.sessionId,
      transcript_path: path,
      cwd: "/p",
      hook_event_name: "Stop",
    });
    expect((await runHook("stop", payload, env)).exitCode).toBe(0);
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect(db.query("SELECT summary, error FROM skeletons").get()).toEqual({
      summary: null,
      error: "exit 3: boom",
    });
    db.close();
  });
});
