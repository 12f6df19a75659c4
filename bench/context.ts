/**
 * Benches of the push and the pull commands (docs/contract.md#performance), called by bench/run.ts:
 * - `benchPull`: median time of `context`, the baked `recall --l2` / `recall --l1`, and
 *   `detail` on a generated 100,000-turn database, each as a ratio to the floor (goal ≤ 3×);
 * - `budgetFill`: chars pushed / 9,500 and turns pushed over every corpus session, with the
 *   check that the fill is maximal and never over the cap.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CLI_INVOCATION } from "../harness/db.ts";
import { type SeedTurn, seedChain } from "../harness/pull.ts";
import { replay } from "../src/capture/replay.ts";
import { formatClock } from "../src/core/clock.ts";
import { nextOlderTurn, renderContext } from "../src/core/context.ts";
import { CONTEXT_BUDGET } from "../src/core/turn-block.ts";
import { openForRead, openForWrite } from "../src/db/open.ts";
import { loadContextInput } from "../src/db/queries/chain.ts";
import { measure, ROOT, round, WORK } from "./lib.ts";

export const BENCH_TURNS = 100_000;
export const BENCH_CHAINS = 100;
const DB_VERSION = "v2";

function words(n: number, salt: number): string {
  const vocab = [
    "parser",
    "fixed",
    "src/core/context.ts",
    "test",
    "budget",
    "turn",
    "42",
    "edge",
    "日本語",
    "ok",
  ];
  let s = "";
  for (let i = 0; s.length < n; i++) s += `${vocab[(i * 7 + salt) % vocab.length]} `;
  return s.slice(0, n);
}

const chainId = (c: number) => `bench-${String(c).padStart(3, "0")}-${DB_VERSION}`;

/** The database is built once (about a minute: FTS indexing dominates) and reused while its content version holds. */
function reusable(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    const db = openForRead(path);
    try {
      const n = db.query<{ n: number }, []>("SELECT count(*) AS n FROM turns").get()!.n;
      return n === BENCH_TURNS;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** 100 chains of 1,000 turns: 100,000 turns with L2, some L3 and L1 for most older turns. */
function buildDb(path: string): { session: string; middle: number } {
  const perChain = BENCH_TURNS / BENCH_CHAINS;
  const t0 = Date.UTC(2025, 0, 1);
  const session = chainId(BENCH_CHAINS - 1);
  const middle = t0 + ((BENCH_CHAINS - 1) * perChain + perChain / 2) * 90_000;
  if (reusable(path)) return { session, middle };
  for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
  const db = openForWrite(path);
  for (let c = 0; c < BENCH_CHAINS; c++) {
    const turns: SeedTurn[] = [];
    for (let i = 0; i < perChain; i++) {
      const start = t0 + (c * perChain + i) * 90_000;
      turns.push({
        startedAt: start,
        endedAt: start + 60_000,
        user: words(80 + ((i * 37) % 400), i),
        assistant: words(200 + ((i * 53) % 2400), i + 3),
        tools: i % 3 === 0 ? ["Bash", "Read", "Edit"] : ["Read"],
        ...(i < perChain - 40 ? { summary: words(120, i + 5) } : {}),
      });
    }
    seedChain(db, chainId(c), turns, `/home/dev/bench-${c}`);
  }
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return { session, middle };
}

export async function benchPull(opts: {
  bin: string[];
  floorMs: number;
  runs: number;
}): Promise<Record<string, { median_ms: number; ratio: number; goal?: string; note?: string }>> {
  const path = join(WORK, `pull-${BENCH_TURNS}-${DB_VERSION}.db`);
  const t = performance.now();
  const { session, middle } = buildDb(path);
  console.error(
    `  ${BENCH_TURNS.toLocaleString("en-US")}-turn database ready in ${Math.round(performance.now() - t)} ms`,
  );
  const run = (args: string[]) => [...opts.bin, ...args, "--db", path];
  const ctx = Bun.spawnSync(run(["context", "--session", session, "--json"]), { cwd: ROOT });
  if (ctx.exitCode !== 0) throw new Error(`context failed: ${ctx.stderr}`);
  const pull = JSON.parse(ctx.stdout.toString()).pull as { l2: string | null; l1: string | null };
  // The baked commands are simple words (the bench session id needs no quoting).
  const baked = (cmd: string | null) => {
    if (cmd === null) throw new Error("the bench push baked no pull command");
    return cmd.split(" ").slice(1);
  };
  const cases: [string, string[]][] = [
    ["context (100,000-turn db)", ["context", "--session", session]],
    ["recall --l2 (baked, 100,000-turn db)", baked(pull.l2)],
    ["recall --l1 (baked, 1,000-turn chain, 100,000-turn db)", baked(pull.l1)],
    ["detail HH:MM (100,000-turn db)", ["detail", formatClock(middle).slice(0, 5), "--session", session]],
  ];
  const out: Record<string, { median_ms: number; ratio: number; goal?: string }> = {};
  for (const [name, args] of cases) {
    const m = measure(opts.runs, () => run(args));
    out[name] = {
      median_ms: m.median_ms,
      ratio: m.paired_ratio ?? round(m.median_ms / opts.floorMs),
      goal: "≤ 3×",
    };
  }
  return out;
}

export interface BudgetFill {
  sessions: number;
  sessions_with_turns: number;
  mean_fill: number;
  min_fill: number;
  max_chars: number;
  over_cap: number;
  mean_turns_pushed: number;
  turns_pushed: number;
  truncated_newest: number;
  /** Sessions where a window turn was left out although it would have fit (should be 0). */
  not_maximal: string[];
}

/** Fill of the push over every main-session transcript of the shared corpus. */
export function budgetFill(corpus = join(ROOT, "..", "shared", "corpus", "transcripts")): BudgetFill | null {
  if (!existsSync(corpus)) return null;
  const files = readdirSync(corpus).filter((f) => f.endsWith(".jsonl") && !f.includes(".sub-agent-"));
  const fills: number[] = [];
  const pushed: number[] = [];
  let maxChars = 0;
  let over = 0;
  let truncated = 0;
  const notMaximal: string[] = [];
  for (const file of files.sort()) {
    const path = join(WORK, "fill.db");
    for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
    const w = openForWrite(path);
    const subs = readdirSync(corpus).filter((f) =>
      f.startsWith(`${file.replace(/\.jsonl$/, "")}.sub-agent-`),
    );
    const report = replay(
      w,
      [file, ...subs].map((f) => join(corpus, f)),
    );
    w.close();
    const db = openForRead(path);
    try {
      const input = loadContextInput(db, report.sessions[0]!.session_id);
      if (input.totalTurns === 0) continue;
      const out = renderContext(input, CLI_INVOCATION);
      const n = out.text.length;
      fills.push(n / CONTEXT_BUDGET);
      pushed.push(out.stats.injected_turns);
      maxChars = Math.max(maxChars, n);
      if (n > CONTEXT_BUDGET) over++;
      if (out.stats.truncated_newest) truncated++;
      if (
        !out.stats.truncated_newest &&
        nextOlderTurn(input, out.stats.injected_turns, CLI_INVOCATION) === "would_fit"
      )
        notMaximal.push(file);
    } finally {
      db.close();
    }
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    sessions: files.length,
    sessions_with_turns: fills.length,
    mean_fill: round(mean(fills), 3),
    min_fill: round(fills.length ? Math.min(...fills) : 0, 3),
    max_chars: maxChars,
    over_cap: over,
    mean_turns_pushed: round(mean(pushed)),
    turns_pushed: pushed.reduce((a, b) => a + b, 0),
    truncated_newest: truncated,
    not_maximal: notMaximal,
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(budgetFill(), null, 2));
  if (process.argv.includes("--pull")) {
    const bin = ["bun", join(ROOT, "src", "cli.ts")];
    console.log(JSON.stringify(await benchPull({ bin, floorMs: 1, runs: 5 }), null, 2));
  }
}
