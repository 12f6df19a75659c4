/**
 * `bun run bench`: every figure is a median of ≥ 20 cold runs and a ratio to a compiled no-op
 * binary (reads stdin, exits) measured in the same run, so noisy shared machines still compare.
 * Results go to stdout and to .bench/results.json. Set BENCH_RUNS to change the run count.
 * Last, continuation recall over the shared corpus (bench/continuation.ts), to stdout and
 * .bench/continuation.json; BENCH_ONLY=continuation runs that section alone (no build, no timings).
 * BENCH_HEAVY=full (default) | small | 0: the heavy user's year (bench/heavy.ts), a ≥ 1 GB import.
 * Enter → model request in the real client (bench/client.ts), on each pinned CLI in .e2e/:
 * BENCH_CLIENT=0 leaves it out, BENCH_CLIENT_ROUNDS sets its rounds, BENCH_ONLY=client runs it alone
 * (it builds the floor and the binary, nothing else).
 * At the very end, the question benchmark (bench/questions.ts): recall of hand-written questions
 * by style and split; BENCH_ONLY=questions runs that section alone.
 * Sync through a git remote (bench/sync.ts): BENCH_ONLY=sync runs it alone (BENCH_SYNC_SCALE).
 * The hook rows on the corpus's heaviest sessions (bench/real.ts): BENCH_ONLY=real runs them alone
 * (BENCH_REAL_SESSIONS, default 3).
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { replay } from "../src/capture/replay.ts";
import { openForWrite } from "../src/db/open.ts";
import { CORPUS_TRANSCRIPTS, corpusFiles, renderSummary, runContinuation } from "./continuation.ts";
import { benchHooks } from "./hooks.ts";
import { buildBinary, buildFloor, measure, pairWithFloor, ROOT, round, WORK } from "./lib.ts";
import { benchQuestions } from "./questions.ts";
import { benchReal, renderReal } from "./real.ts";

const only = process.env.BENCH_ONLY;
if (
  only !== undefined &&
  only !== "continuation" &&
  only !== "client" &&
  only !== "questions" &&
  only !== "sync" &&
  only !== "real"
)
  throw new Error(
    `BENCH_ONLY=${only}: the sections that run alone are "continuation", "client", "questions", "sync" and "real"`,
  );

/**
 * Enter → model request in the real client, none / no-op hook / throughline (bench/client.ts),
 * on each pinned CLI present. BENCH_CLIENT=0 (or BENCH_SKIP_E2E=1) leaves it out;
 * BENCH_CLIENT_ROUNDS sets the rounds (default 10: a median of 10 per cell); BENCH_CLIENT_PRINTING=1
 * adds a no-op that prints a push's characters at the push (bench/client.ts).
 */
async function benchClientSection(floorBin: string, bin: string): Promise<{ table: string; extra: unknown }> {
  if (process.env.BENCH_CLIENT === "0" || process.env.BENCH_SKIP_E2E === "1") {
    const why = "BENCH_CLIENT=0 or BENCH_SKIP_E2E=1";
    return { table: `in the client: skipped (${why})`, extra: { skipped: why } };
  }
  const { benchClient, clientSkipReason, renderClient } = await import("./client.ts");
  const why = clientSkipReason();
  if (why) return { table: `in the client: skipped (${why})`, extra: { skipped: why } };
  console.error("Enter → model request in the client…");
  const rounds = Math.max(1, Number(process.env.BENCH_CLIENT_ROUNDS ?? 10));
  // BENCH_CLIENT_PRINTING=1: also a no-op that prints a push's bytes at the push (bench/client.ts).
  const printingFloorBin =
    process.env.BENCH_CLIENT_PRINTING === "1"
      ? await (await import("./lib.ts")).buildPrintingFloor()
      : undefined;
  const reports = await benchClient({
    floorBin,
    bin,
    rounds,
    ...(printingFloorBin ? { printingFloorBin } : {}),
  });
  await Bun.write(
    join(WORK, "client.json"),
    JSON.stringify({ reports, at: new Date().toISOString() }, null, 1),
  );
  return { table: renderClient(reports), extra: reports.map(({ cells: _cells, ...r }) => r) };
}

async function benchTimings(): Promise<void> {
  const runs = Math.max(20, Number(process.env.BENCH_RUNS ?? 20));
  type Row = {
    median_ms: number;
    p95_ms?: number;
    runs?: number;
    ratio?: number;
    goal?: string;
    note?: string;
    paired_ratio?: number;
  };
  const results: Record<string, Row> = {};
  const extra: Record<string, unknown> = {};

  console.error("building the floor and the binary…");
  const floorBin = await buildFloor();
  const bin = await buildBinary();
  const floor = measure(runs, () => [floorBin], { stdin: () => "{}" });
  pairWithFloor(floorBin);
  results["floor (compiled no-op)"] = { ...floor, ratio: 1 };
  const ratio = (ms: number) => round(ms / floor.median_ms);
  const add = (name: string, r: Row, goal?: string) => {
    results[name] = {
      ...r,
      ratio: r.paired_ratio ?? r.ratio ?? ratio(r.median_ms),
      ...(goal ? { goal } : {}),
    };
  };

  add(
    "throughline --version",
    measure(runs, () => [bin, "--version"]),
  );

  console.error("hooks…");
  /**
   * What the client waits for, what runs behind it, and what the model runs (docs/benchmarks.md,
   * "Groups"): each row's group and goal, as a ratio to the floor; a row in no group is context.
   */
  const GROUPS: { title: string; rows: Record<string, string> }[] = [
    {
      title: "waited for: the client does not go on until these exit",
      rows: {
        "hook session-start": "≤ 1.5×",
        "hook session-start (clear, starts the rehearsal)": "≤ 1.5×",
        "hook user-prompt-submit (no pending)": "≤ 1.5×",
        "hook user-prompt-submit (the push printed ahead, 1,000-turn chain)": "≤ 2×",
        "hook user-prompt-submit (handoff, 1,000-turn chain, prepared push)": "≤ 2×",
        "hook user-prompt-submit (handoff, 1,000-turn chain)": "≤ 2×",
        "hook session-start (after compaction: the push, 1,000-turn chain)": "≤ 2×",
        "hook session-start (after compaction: the push printed ahead, 1,000-turn chain)": "≤ 2×",
        "hook session-end (clear, 1,000-turn chain)": "≤ 1.5×",
        "hook pre-compact (1,000-turn chain)": "≤ 1.5×",
        "statusline (1,000-turn chain)": "≤ 1.5×",
        "statusline (after a write: reads the database)": "≤ 1.5×",
        "statusline (after a Stop: its worker kept the facts)": "≤ 1.5×",
        "hook stop (hand-off as registered)": "≤ 1.5×",
      },
    },
    {
      title: "behind: the detached Stop worker and the async PostToolUse",
      rows: {
        "hook stop (turn 10)": "≤ 4×",
        "hook stop (turn 1,000 of a ≥10 MB transcript)": "≤ 4×",
        "hook post-tool-use": "≤ 4×",
        "hook stop, codex (turn 10)": "≤ 4×",
        "hook stop, codex (turn 1,000 of a ≥10 MB rollout)": "≤ 4×",
      },
    },
    {
      title: "reads the model runs (100,000-turn database)",
      rows: {
        "context (100,000-turn db)": "≤ 2×",
        "recall --l2 (baked, 100,000-turn db)": "≤ 2×",
        "recall --l1 (baked, 1,000-turn chain, 100,000-turn db)": "≤ 2×",
        "detail HH:MM (100,000-turn db)": "≤ 2×",
        "search <words>": "≤ 3×",
        "search <common words>": "≤ 3×",
        "search <words> (its chain)": "≤ 3×",
        "search <common words> (its chain)": "≤ 3×",
        "recall <words>": "≤ 3×",
        "recall <words> --all": "≤ 3×",
        "recall (summary)": "≤ 3×",
      },
    },
  ];
  const GOALS: Record<string, string> = Object.assign({}, ...GROUPS.map((g) => g.rows));
  for (const [name, r] of Object.entries(await benchHooks({ bin, runs }))) add(name, r, GOALS[name]);
  const s10 = results["hook stop (turn 10)"]!;
  const s1000 = results["hook stop (turn 1,000 of a ≥10 MB transcript)"]!;
  // Growth from turn 10 to turn 1,000, from the paired ratios (each against its own floor runs).
  extra.stop_1000_vs_10 = round((s1000.ratio ?? 0) / (s10.ratio ?? 1));
  // The same Stop on a Codex rollout (bench/codex.ts), and its growth from turn 10 to turn 1,000.
  console.error("codex…");
  const { benchCodex } = await import("./codex.ts");
  for (const [name, r] of Object.entries(await benchCodex({ bin, runs }))) add(name, r, GOALS[name]);
  const c10 = results["hook stop, codex (turn 10)"]!;
  const c1000 = results["hook stop, codex (turn 1,000 of a ≥10 MB rollout)"]!;
  extra.codex_stop_1000_vs_10 = round((c1000.ratio ?? 0) / (c10.ratio ?? 1));

  // The same hooks on the corpus's heaviest sessions (bench/real.ts): their own table, at the end.
  console.error("hooks on real sessions…");
  const real = benchReal({ bin, runs });
  extra.real = real;

  // Pull, activity and search benches live beside their features; run them when present.
  for (const [file, fn] of [
    ["context.ts", "benchPull"],
    ["activity.ts", "benchActivity"],
  ] as const) {
    if (!existsSync(join(import.meta.dir, file))) continue;
    console.error(`${file}…`);
    const mod = (await import(`./${file}`)) as Record<
      string,
      (o: { bin: string[]; floorMs: number; runs: number }) => Promise<Record<string, Row>>
    >;
    const r = await mod[fn]!({ bin: [bin], floorMs: floor.median_ms, runs });
    for (const [name, row] of Object.entries(r)) add(name, row, GOALS[name] ?? row.goal);
  }

  // A heavy user's year (bench/heavy.ts): a ≥ 1 GB tree from the corpus through the real import,
  // then the read rows at that size. BENCH_HEAVY=full (default) | small | 0.
  const heavyScale = process.env.BENCH_HEAVY ?? "full";
  if (heavyScale !== "0" && existsSync(CORPUS_TRANSCRIPTS)) {
    if (heavyScale !== "full" && heavyScale !== "small")
      throw new Error(`BENCH_HEAVY=${heavyScale}: full, small or 0`);
    console.error(`heavy user's year (${heavyScale})…`);
    const { benchHeavy } = await import("./heavy.ts");
    const h = await benchHeavy({ bin: [bin], floorMs: floor.median_ms, runs, scale: heavyScale });
    for (const [name, row] of Object.entries(h.rows)) add(`heavy: ${name}`, row, row.goal);
    extra.heavy = { scale: h.scale, generated: h.generated, import: h.import, words: h.words };
  }

  // Replay throughput and storage cost over the shared corpus, when it is beside the checkout.
  const corpus = join(ROOT, "..", "shared", "corpus", "transcripts");
  if (existsSync(corpus)) {
    console.error("replay throughput…");
    const dbPath = join(WORK, "replay.db");
    for (const s of ["", "-wal", "-shm"]) if (existsSync(dbPath + s)) await Bun.file(dbPath + s).delete();
    const db = openForWrite(dbPath);
    const t0 = performance.now();
    const report = replay(db, [corpus]);
    const secs = (performance.now() - t0) / 1000;
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    // The same files indexed row by row (the triggers, as before the one-pass indexing of a bulk
    // ingest, docs/search.md): what the row's figure is compared with.
    const rowPath = join(WORK, "replay-per-row.db");
    for (const s of ["", "-wal", "-shm"]) if (existsSync(rowPath + s)) await Bun.file(rowPath + s).delete();
    const rowDb = openForWrite(rowPath);
    const t1 = performance.now();
    replay(rowDb, [corpus], { deferIndex: false });
    const rowSecs = (performance.now() - t1) / 1000;
    rowDb.close();
    extra.replay = {
      transcript_mb: round(report.totals.bytes / 1e6),
      seconds: round(secs),
      mb_per_s: round(report.totals.bytes / 1e6 / secs),
      per_row_index_seconds: round(rowSecs),
      per_row_index_mb_per_s: round(report.totals.bytes / 1e6 / rowSecs),
      db_bytes_per_transcript_byte: round(statSync(dbPath).size / report.totals.bytes, 3),
      turns: report.totals.turns,
    };
    const ctx = join(import.meta.dir, "context.ts");
    if (existsSync(ctx)) {
      const mod = (await import(`./${"context.ts"}`)) as { budgetFill?: () => unknown };
      if (mod.budgetFill) extra.budget_fill = await mod.budgetFill();
    }
  }

  // Hook latency as the real Claude Code client records it (test/e2e; skipped without the CLI/tmux).
  if (process.env.BENCH_SKIP_E2E !== "1") {
    console.error("hook latency inside Claude Code…");
    const { hookLatencies } = await import("../harness/e2e/hook-latency.ts");
    const report = await hookLatencies({ rounds: 3 });
    extra.claude_code_hook_latency = report.skipped ? { skipped: report.skipped } : report.summary;
  }

  // Enter → model request in the real client (bench/client.ts): its own table, printed with the others.
  const client = await benchClientSection(floorBin, bin);
  extra.client = client.extra;

  /** "≤ 1.5×" → met when the ratio is at most 1.5; rows without a goal say nothing. */
  function verdict(r: Row): string {
    const m = r.goal ? /≤ ([\d.]+)×/.exec(r.goal) : null;
    if (!m || r.ratio === undefined) return "";
    return r.ratio <= Number(m[1]) ? "met" : "MISSED";
  }
  const growth = extra.stop_1000_vs_10 as number;
  const nameW = Math.max(...Object.keys(results).map((k) => k.length), 44);
  const row = (name: string, r: Row) =>
    console.log(
      `  ${name.padEnd(nameW)}  ${r.median_ms.toFixed(2).padStart(9)}  ${String(r.ratio).padStart(6)}×  ${(r.goal ?? "").padEnd(8)}  ${verdict(r)}${r.note ? `  (${r.note})` : ""}`,
    );
  const line = (name: string, value: string, goal: string, met: boolean | null) =>
    console.log(
      `  ${name.padEnd(nameW)}  ${value.padStart(17)}  ${goal.padEnd(8)}  ${met === null ? "not measured" : met ? "met" : "MISSED"}`,
    );
  console.log(`  ${"benchmark".padEnd(nameW)}  median ms   ratio  goal      `);
  for (const g of GROUPS) {
    console.log(`\n${g.title}`);
    for (const name of Object.keys(g.rows)) {
      const r = results[name];
      if (r) row(name, r);
      else line(name, "-", g.rows[name]!, null);
    }
    if (g.title.startsWith("behind"))
      line("hook stop growth, turn 1,000 / turn 10", `${growth}×`, "≤ 1.1×", growth <= 1.1);
  }
  const grouped = new Set(Object.keys(GOALS));
  console.log("\ncontext (no goal)");
  for (const [name, r] of Object.entries(results)) if (!grouped.has(name)) row(name, r);
  const rp = extra.replay as { mb_per_s: number; db_bytes_per_transcript_byte: number } | undefined;
  console.log("\nimport");
  line(
    "replay/import throughput",
    rp ? `${rp.mb_per_s} MB/s` : "-",
    "≥ 30 MB/s",
    rp ? rp.mb_per_s >= 30 : null,
  );
  line(
    "database bytes per transcript byte",
    rp ? String(rp.db_bytes_per_transcript_byte) : "-",
    "≤ 0.5",
    rp ? rp.db_bytes_per_transcript_byte <= 0.5 : null,
  );
  const hv = extra.heavy as
    | { import: { mb_per_s: number; db_bytes_per_transcript_byte: number; transcript_bytes: number } }
    | undefined;
  if (hv) {
    const mb = Math.round(hv.import.transcript_bytes / 1e6);
    line(
      `heavy: import throughput (${mb} MB)`,
      `${hv.import.mb_per_s} MB/s`,
      "≥ 30 MB/s",
      hv.import.mb_per_s >= 30,
    );
    line(
      "heavy: database bytes per transcript byte",
      String(hv.import.db_bytes_per_transcript_byte),
      "≤ 0.5",
      hv.import.db_bytes_per_transcript_byte <= 0.5,
    );
  }
  console.log(`\n${renderReal(real)}`);
  console.log(`\n${client.table}`);
  console.log(JSON.stringify(extra, null, 2));
  await Bun.write(
    join(WORK, "results.json"),
    JSON.stringify({ runs, results, extra, at: new Date().toISOString() }, null, 2),
  );
}

/** Continuation recall: the headline rows, by kind, by reason missed, outputs over the view limit. */
async function benchContinuation(): Promise<void> {
  if (!existsSync(CORPUS_TRANSCRIPTS)) {
    console.log(`continuation recall: skipped, no corpus at ${CORPUS_TRANSCRIPTS}`);
    return;
  }
  console.error("continuation recall…");
  const r = await runContinuation(corpusFiles(CORPUS_TRANSCRIPTS), { jobs: 2 });
  console.log(`\n${renderSummary(r.summary)}`);
  await Bun.write(
    join(WORK, "continuation.json"),
    JSON.stringify({ summary: r.summary, rows: r.rows, at: new Date().toISOString() }, null, 1),
  );
}

if (only === "client") {
  console.error("building the floor and the binary…");
  console.log((await benchClientSection(await buildFloor(), await buildBinary())).table);
} else if (only === "real") {
  console.error("building the floor and the binary…");
  const floorBin = await buildFloor();
  const bin = await buildBinary();
  pairWithFloor(floorBin);
  const real = benchReal({ bin, runs: Math.max(20, Number(process.env.BENCH_RUNS ?? 20)) });
  await Bun.write(
    join(WORK, "real.json"),
    JSON.stringify({ ...real, at: new Date().toISOString() }, null, 1),
  );
  console.log(renderReal(real));
} else if (only === "questions") {
  console.log(`\n${await benchQuestions()}`);
} else if (only === "sync") {
  const { benchSync, renderSync } = await import("./sync.ts");
  const r = benchSync();
  await Bun.write(join(WORK, "sync.json"), JSON.stringify({ ...r, at: new Date().toISOString() }, null, 1));
  console.log(renderSync(r));
} else {
  if (only !== "continuation") await benchTimings();
  await benchContinuation();
  if (only === undefined) console.log(`\n${await benchQuestions()}`);
}
