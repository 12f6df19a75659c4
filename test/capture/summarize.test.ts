/**
 * The summarizer with a fake `claude` on PATH (a script that records its argv and stdin): the
 * flags that keep it out of the history, the daily ceiling, the atomic claim, the bound on a
 * hanging backend, and the counts `status --json` reports (README, "What the summarizer costs").
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDb, tempDir, USER_PATH } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { summarizeNext } from "../../src/capture/summarize.ts";
import { claudeArgv, SUMMARY_INPUT_MAX_CHARS, summaryInput } from "../../src/core/summarize.ts";
import { claimNextTurn } from "../../src/db/queries/summaries.ts";

const DAY = 86_400_000;
/** Mid-morning of some day, as the clock the Stop hook passes in. */
const T0 = 20_000 * DAY + 9 * 3_600_000;

/** A `claude` that records each call (argv one per line, stdin) and answers with a summary. */
function fakeClaude(dir: string, body = 'echo "Summary of the turn: fixed src/x.ts, 3 tests pass."'): string {
  const bin = join(dir, "bin");
  const log = join(dir, "calls");
  mkdirSync(bin, { recursive: true });
  mkdirSync(log, { recursive: true });
  writeFileSync(
    join(bin, "claude"),
    `#!/bin/sh
n=$(date +%s%N)-$$
for a in "$@"; do printf '%s\\n' "$a"; done > "${log}/$n.argv"
cat > "${log}/$n.stdin"
env | grep '^THROUGHLINE_INSIDE_SUMMARIZER=' > "${log}/$n.env"
pwd > "${log}/$n.cwd"
${body}
`,
  );
  chmodSync(join(bin, "claude"), 0o755);
  return bin;
}

function calls(dir: string): { argv: string[]; stdin: string; env: string; cwd: string }[] {
  const log = join(dir, "calls");
  const ids = readdirSync(log)
    .filter((f) => f.endsWith(".argv"))
    .map((f) => f.slice(0, -".argv".length))
    .sort();
  return ids.map((i) => ({
    argv: readFileSync(join(log, `${i}.argv`), "utf8")
      .split("\n")
      .slice(0, -1),
    stdin: readFileSync(join(log, `${i}.stdin`), "utf8"),
    env: readFileSync(join(log, `${i}.env`), "utf8").trim(),
    cwd: readFileSync(join(log, `${i}.cwd`), "utf8").trim(),
  }));
}

/** A chain of `turns` turns in `db`, all in one session; returns its id. */
function chain(
  db: Database,
  dir: string,
  turns: number,
  id = "dddddddd-0000-4000-8000-000000000001",
): string {
  const t = new TranscriptBuilder(id);
  for (let i = 1; i <= turns; i++)
    t.user(`Step ${i}: fix src/mod${i}.ts`).say(`Fixed src/mod${i}.ts; ${i} tests pass.`);
  const path = join(dir, `${id}.jsonl`);
  writeFileSync(path, t.text());
  ingestTranscript(db, { path, now: T0 });
  return id;
}

function envWith(dir: string, bin: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${bin}:${USER_PATH}`,
    HOME: join(dir, "home"),
    THROUGHLINE_HOME: join(dir, "tl"),
    THROUGHLINE_SUMMARIZER: "auto",
    ...extra,
  };
}

function skeletons(db: Database) {
  return db
    .query(
      "SELECT t.turn_number AS turn, k.summary, k.backend, k.error FROM skeletons k JOIN turns t ON t.id = k.turn_id ORDER BY 1",
    )
    .all() as { turn: number; summary: string | null; backend: string; error: string | null }[];
}

describe("summarizer: the claude backend (fake claude on PATH)", () => {
  test("auto picks claude; it runs with the no-persistence and no-tools flags, --bare only with an API key, from the empty summarizer dir", () => {
    using dir = tempDir();
    using t = tempDb();
    const bin = fakeClaude(dir.path);
    const live = chain(t.db, dir.path, 22);
    expect(summarizeNext(t.db, live, envWith(dir.path, bin), T0)).toMatchObject({ ok: true });
    expect(
      summarizeNext(t.db, live, envWith(dir.path, bin, { ANTHROPIC_API_KEY: "sk-test" }), T0),
    ).toMatchObject({
      ok: true,
    });
    const [plain, keyed] = calls(dir.path);
    for (const c of [plain!, keyed!]) {
      expect(c.argv.slice(0, 2)).toEqual(["-p", expect.stringContaining("Summarize this conversation turn")]);
      expect(c.argv).toContain("--no-session-persistence");
      expect(c.argv.slice(c.argv.indexOf("--model"), c.argv.indexOf("--model") + 2)).toEqual([
        "--model",
        "haiku",
      ]);
      // `--tools ""`: no tool definitions in the request, and the next word is a flag, not a prompt.
      expect(c.argv[c.argv.indexOf("--tools") + 1]).toBe("");
      expect(c.argv[c.argv.indexOf("--tools") + 2]).toStartWith("--");
      expect(c.argv).toContain("--strict-mcp-config");
      expect(c.env).toBe("THROUGHLINE_INSIDE_SUMMARIZER=1");
      expect(c.cwd).toBe(join(dir.path, "tl", "summarizer"));
      expect(readdirSync(c.cwd)).toEqual([]);
    }
    // --bare reads no subscription login: only with ANTHROPIC_API_KEY set.
    expect(plain!.argv).not.toContain("--bare");
    expect(keyed!.argv).toContain("--bare");
    expect(plain!.stdin).toBe(summaryInput("Step 1: fix src/mod1.ts", "Fixed src/mod1.ts; 1 tests pass."));
    expect(skeletons(t.db)).toEqual([
      {
        turn: 1,
        summary: "Summary of the turn: fixed src/x.ts, 3 tests pass.",
        backend: "claude",
        error: null,
      },
      {
        turn: 2,
        summary: "Summary of the turn: fixed src/x.ts, 3 tests pass.",
        backend: "claude",
        error: null,
      },
    ]);
  });

  test("the daily ceiling: past THROUGHLINE_L1_DAILY_MAX attempts today, claude is not run and turns stay unsummarised until the next UTC day", () => {
    using dir = tempDir();
    using t = tempDb();
    const bin = fakeClaude(dir.path);
    const live = chain(t.db, dir.path, 26);
    const env = envWith(dir.path, bin, { THROUGHLINE_L1_DAILY_MAX: "2" });
    expect(summarizeNext(t.db, live, env, T0)).not.toBeNull();
    expect(summarizeNext(t.db, live, env, T0 + 1000)).not.toBeNull();
    expect(summarizeNext(t.db, live, env, T0 + 2000)).toBeNull();
    expect(summarizeNext(t.db, live, env, T0 + 3000)).toBeNull();
    expect(calls(dir.path)).toHaveLength(2);
    expect(skeletons(t.db).map((s) => s.turn)).toEqual([1, 2]);
    // The extractive backend is free: the ceiling does not apply to it.
    expect(
      summarizeNext(t.db, live, { ...env, THROUGHLINE_SUMMARIZER: "extractive" }, T0 + 4000),
    ).toMatchObject({
      ok: true,
    });
    // The next UTC day, claude runs again.
    const tomorrow = Math.floor(T0 / DAY) * DAY + DAY + 60_000;
    expect(summarizeNext(t.db, live, env, tomorrow)).toMatchObject({ ok: true });
    expect(calls(dir.path)).toHaveLength(3);
    expect(skeletons(t.db).map((s) => [s.turn, s.backend])).toEqual([
      [1, "claude"],
      [2, "claude"],
      [3, "extractive"],
      [4, "claude"],
    ]);
    // 0 turns model summaries off altogether.
    expect(summarizeNext(t.db, live, { ...env, THROUGHLINE_L1_DAILY_MAX: "0" }, tomorrow)).toBeNull();
    expect(calls(dir.path)).toHaveLength(3);
  });

  test("a failed attempt counts towards the ceiling (it cost a request) and stores no summary", () => {
    using dir = tempDir();
    using t = tempDb();
    const bin = fakeClaude(dir.path, "echo overloaded >&2; exit 1");
    const live = chain(t.db, dir.path, 23);
    const env = envWith(dir.path, bin, { THROUGHLINE_L1_DAILY_MAX: "1" });
    expect(summarizeNext(t.db, live, env, T0)).toMatchObject({ ok: false });
    expect(calls(dir.path)).toHaveLength(2); // one retry within the same claim
    expect(summarizeNext(t.db, live, env, T0 + 1)).toBeNull();
    expect(skeletons(t.db)).toEqual([
      { turn: 1, summary: null, backend: "claude", error: "exit 1: overloaded" },
    ]);
  });

  test("a hanging backend is killed with its process group within the bound, and not retried", () => {
    using dir = tempDir();
    using t = tempDb();
    const pidFile = join(dir.path, "grandchild.pid");
    // The grandchild keeps stdout open: without the group kill it would outlive the worker.
    const bin = fakeClaude(dir.path, `sleep 30 & echo $! > "${pidFile}"; sleep 30`);
    const live = chain(t.db, dir.path, 21);
    const started = performance.now();
    const r = summarizeNext(
      t.db,
      live,
      envWith(dir.path, bin, { THROUGHLINE_SUMMARIZER_TIMEOUT_MS: "400" }),
      T0,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ ok: false });
    expect(calls(dir.path)).toHaveLength(1);
    expect(skeletons(t.db)[0]).toMatchObject({ summary: null, error: "timed out after 400 ms" });
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    // Gone, or a zombie waiting for init to reap it: either way it no longer runs.
    const running = () => {
      const st = Bun.spawnSync(["ps", "-o", "stat=", "-p", String(grandchild)])
        .stdout.toString()
        .trim();
      return st !== "" && !st.startsWith("Z");
    };
    let alive = running();
    for (let i = 0; i < 50 && alive; i++) {
      Bun.sleepSync(20);
      alive = running();
    }
    expect(alive).toBe(false);
  });

  test("the claim is atomic: a claimed turn is not handed to a second Stop; a claim whose worker died is taken again later", () => {
    using t = tempDb();
    using dir = tempDir();
    const live = chain(t.db, dir.path, 22);
    const req = {
      live,
      window: 20,
      backend: "claude",
      now: T0,
      dayStart: T0 - 1000,
      max: null,
      staleBefore: T0 - 600_000,
    };
    const first = claimNextTurn(t.db, req);
    const second = claimNextTurn(t.db, req);
    expect(first && "turn" in first && first.turn.turn_number).toBe(1);
    expect(second && "turn" in second && second.turn.turn_number).toBe(2);
    expect(claimNextTurn(t.db, req)).toBeNull();
    // Ten minutes on, both claims are stale (their workers' budget is 90 s): turn 1 comes back.
    const later = claimNextTurn(t.db, { ...req, now: T0 + 700_000, staleBefore: T0 + 100_000 });
    expect(later && "turn" in later && later.turn.turn_number).toBe(1);
  });

  test("two Stop workers at once summarise different turns", async () => {
    using dir = tempDir();
    using t = tempDb();
    const bin = fakeClaude(dir.path, 'sleep 0.3; echo "Summary of the turn: fixed src/x.ts, 3 tests pass."');
    chain(t.db, dir.path, 23);
    t.db.close();
    const script = join(dir.path, "worker.ts");
    writeFileSync(
      script,
      `import { openForWrite } from ${JSON.stringify(join(import.meta.dir, "../../src/db/open.ts"))};
import { summarizeNext } from ${JSON.stringify(join(import.meta.dir, "../../src/capture/summarize.ts"))};
const db = openForWrite(process.argv[2]);
console.log(JSON.stringify(summarizeNext(db, "dddddddd-0000-4000-8000-000000000001", process.env, ${T0})));
db.close();`,
    );
    const env = { ...process.env, ...envWith(dir.path, bin) };
    const procs = [0, 1].map(() => Bun.spawn(["bun", script, t.path], { env, stdout: "pipe" }));
    const outs = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    const turns = outs.map((o) => JSON.parse(o).turnId as number);
    expect(new Set(turns).size).toBe(2);
    expect(calls(dir.path)).toHaveLength(2);
  });

  test("status --json and doctor report the counts per backend, today and in all", () => {
    using dir = tempDir();
    using t = tempDb();
    const bin = fakeClaude(dir.path);
    const live = chain(t.db, dir.path, 25);
    const now = Date.now();
    const env = envWith(dir.path, bin, { THROUGHLINE_L1_DAILY_MAX: "3" });
    summarizeNext(t.db, live, env, now - 2 * DAY); // an earlier day: in all, not today
    summarizeNext(t.db, live, env, now);
    summarizeNext(t.db, live, env, now);
    summarizeNext(t.db, live, { ...env, THROUGHLINE_SUMMARIZER: "extractive" }, now);
    const cliEnv = { ...env, THROUGHLINE_DB: t.path };
    const status = JSON.parse(runCli(["status", "--json"], { env: cliEnv }).stdout);
    expect(status.summaries).toMatchObject({
      backend: "claude",
      chosen_by: "auto: claude on PATH",
      daily_max: 3,
      used_today: 2,
      ceiling_reached: false,
      by_backend: [
        { backend: "claude", today: 2, failed_today: 0, total: 3 },
        { backend: "extractive", today: 1, failed_today: 0, total: 1 },
      ],
    });
    expect(status.counts.l1_summaries).toBe(4);
    const text = runCli(["status"], { env: cliEnv }).stdout;
    expect(text).toContain("claude 2 today, 3 in all · extractive 1 today, 1 in all");
    expect(text).toContain("2/3 of today's ceiling");
    summarizeNext(t.db, live, env, now);
    const doctor = runCli(["doctor"], { env: cliEnv }).stdout;
    expect(doctor).toMatch(/ok {3}summaries: claude 3 today, 4 in all .*3\/3 of today's ceiling: reached/);
    expect(existsSync(join(dir.path, "home", ".claude"))).toBe(false);
  });
});

describe("summarizer input", () => {
  test("a very long turn is cut in the middle, keeping the ask and the outcome", () => {
    const text = summaryInput(`ask ${"u".repeat(30_000)}`, `${"a".repeat(30_000)} outcome`);
    expect(text.length).toBeLessThanOrEqual(SUMMARY_INPUT_MAX_CHARS + 60);
    expect(text).toStartWith("User: ask ");
    expect(text).toEndWith(" outcome");
    expect(text).toMatch(/\[… \d+ characters left out …\]/);
  });

  test("argv: --tools is followed by a flag, so the prompt is never read as a tool name", () => {
    const argv = claudeArgv("Summarize.", { bare: false });
    expect(argv.slice(0, 3)).toEqual(["claude", "-p", "Summarize."]);
    expect(argv[argv.indexOf("--tools") + 2]).toStartWith("--");
  });
});
