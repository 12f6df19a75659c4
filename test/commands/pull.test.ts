/**
 * The push and the pull commands through the CLI, on databases filled by the real capture
 * path (JSONL transcripts → ingestTranscript), except where a direct-SQL seed is the point.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_INVOCATION, runCli, tempDir } from "../../harness/db.ts";
import { bakedCommands, fileDigest, isoAt, Jsonl, runBaked, seedChain } from "../../harness/pull.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import type { ContextStats } from "../../src/core/context.ts";
import { CONTEXT_BUDGET, PULL_MAX_BYTES } from "../../src/core/turn-block.ts";
import { openForWrite } from "../../src/db/open.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";

interface ContextJson {
  schema: string;
  session_id: string;
  text: string;
  stats: ContextStats;
  turns: { turn_key: string; started_at: string }[];
  pull: { l2: string | null; l1: string | null };
}

interface RecallJson {
  schema: string;
  mode: string;
  turns: { turn_key: string; started_at: string; user: string | null; assistant: string | null }[];
}

function ok(args: string[], db: string) {
  const r = runCli([...args, "--db", db]);
  if (r.exitCode !== 0) throw new Error(`throughline ${args.join(" ")} failed (${r.exitCode}): ${r.stderr}`);
  return r.stdout;
}

function context(db: string, session: string): ContextJson {
  return JSON.parse(ok(["context", "--session", session, "--json"], db));
}

function keysOf(command: string | null, db: string): string[] {
  if (command === null) return [];
  const r = runBaked(command, db, ["--json"]);
  if (r.exitCode !== 0) throw new Error(`${command}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as RecallJson).turns.map((t) => t.turn_key);
}

/** The push, the baked --l2 and the baked --l1 split the chain: disjoint, complete, in order. */
function expectPartition(db: string, session: string, chain: string[]): ContextJson {
  const ctx = context(db, session);
  const baked = bakedCommands(ctx.text);
  expect(baked).toEqual(ctx.pull);
  const l1 = keysOf(baked.l1, db);
  const l2 = keysOf(baked.l2, db);
  const pushed = ctx.turns.map((t) => t.turn_key);
  expect([...l1, ...l2, ...pushed]).toEqual(chain);
  expect(ctx.text.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
  return ctx;
}

function ingest(db: Database, dir: string, j: Jsonl): string {
  const path = join(dir, `${j.sessionId}.jsonl`);
  writeFileSync(path, j.text());
  ingestTranscript(db, { path, now: Date.parse("2026-04-01T00:00:00Z") });
  return path;
}

/** A database built from transcripts in a temp dir; closed before the CLI reads it. */
function build(sessions: Jsonl[]): { dir: string; db: string; [Symbol.dispose](): void } {
  const tmp = tempDir("tl-pull-");
  const path = join(tmp.path, "throughline.db");
  const db = openForWrite(path);
  for (const j of sessions) ingest(db, tmp.path, j);
  db.close();
  return { dir: tmp.path, db: path, [Symbol.dispose]: () => tmp[Symbol.dispose]() };
}

const T = "2026-03-01T09:00:00.000Z";
const keys = (session: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${session}:${from + i}`);

function smallTurns(j: Jsonl, count: number, startMs = 0, stepMs = 60_000): Jsonl {
  for (let i = 0; i < count; i++) {
    j.user(isoAt(T, startMs + i * stepMs), `prompt ${i + 1}`);
    j.say(isoAt(T, startMs + i * stepMs + 5_000), `reply ${i + 1}`);
  }
  return j;
}

describe("boundaries", () => {
  test("same millisecond: the tied turns are pulled, never lost", () => {
    const j = smallTurns(new Jsonl("tie-ms"), 20);
    const tieAt = isoAt(T, 3_600_000);
    j.user(tieAt, "big one").say(isoAt(T, 3_600_500), "x".repeat(7500));
    j.user(tieAt, "small one, same ms").say(isoAt(T, 3_601_000), "y".repeat(1500));
    using f = build([j]);
    const ctx = expectPartition(f.db, "tie-ms", keys("tie-ms", 1, 22));
    expect(ctx.stats.injected_turns).toBe(0);
    expect(ctx.stats.boundary).toBe(isoAt(T, 3_600_001));
    expect(ctx.pull.l2).toContain("--last 20");
    expect(ctx.pull.l1).toContain("--skip 20");
  });

  test("same second, different milliseconds: the boundary separates them", () => {
    const j = smallTurns(new Jsonl("tie-s"), 3);
    j.user(isoAt(T, 600_100), "big one").say(isoAt(T, 600_200), "x".repeat(7500));
    j.user(isoAt(T, 600_900), "small one, same second").say(isoAt(T, 601_500), "y".repeat(1500));
    using f = build([j]);
    const ctx = expectPartition(f.db, "tie-s", keys("tie-s", 1, 5));
    expect(ctx.turns.map((t) => t.turn_key)).toEqual(["tie-s:5"]);
    expect(ctx.stats.boundary).toBe(isoAt(T, 600_900));
    // Both turns started in 09:10:00; detail of that second shows both.
    const detail = JSON.parse(ok(["detail", "09:10:00", "--session", "tie-s", "--json"], f.db));
    const shown = detail.turns.map((t: { turn_key: string }) => t.turn_key);
    expect(shown).toContain("tie-s:4");
    expect(shown).toContain("tie-s:5");
  });

  test("fewer than 20 turns: everything pushed, both pull lines say none", () => {
    using f = build([smallTurns(new Jsonl("few"), 5)]);
    const ctx = expectPartition(f.db, "few", keys("few", 1, 5));
    expect(ctx.pull).toEqual({ l2: null, l1: null });
    expect(ctx.text).toContain("- Window turns not shown below: none");
    expect(ctx.text).toContain("- Older turns: none");
  });

  test("zero turns: a session with no human prompt", () => {
    const j = new Jsonl("empty");
    j.say(T, "an assistant line before any prompt");
    using f = build([j]);
    const ctx = expectPartition(f.db, "empty", []);
    expect(ctx.stats.injected_turns).toBe(0);
    expect(ctx.stats.boundary).toBeNull();
    expect(ctx.text).toContain("holds 0 turns");
    const l2 = ok(["recall", "--l2", "--session", "empty", "--before", T, "--last", "3"], f.db);
    expect(l2).toContain("no turns start before");
    expect(l2).toContain("(asked for 3; only 0 start before this boundary)");
  });

  test("one giant turn: pushed cut, and its detail pointer finds it whole", () => {
    const j = new Jsonl("giant");
    j.user(T, "write the whole thing").say(isoAt(T, 30_000), `start ${"z".repeat(60_000)} end`);
    using f = build([j]);
    const ctx = expectPartition(f.db, "giant", ["giant:1"]);
    expect(ctx.stats.truncated_newest).toBe(true);
    expect(ctx.text.length).toBe(CONTEXT_BUDGET);
    const pointer = /…\(truncated; full text: ([^()]+)\)$/.exec(ctx.text)?.[1];
    expect(pointer).toBe(`${CLI_INVOCATION} detail 2026-03-01T09:00:00.000Z`);
    const r = runBaked(`${pointer} --session giant`, f.db, ["--json"]);
    const detail = JSON.parse(r.stdout);
    expect(detail.turns[0].turn_key).toBe("giant:1");
    expect(detail.turns[0].assistant).toEndWith(" end");
  });

  test("a chain crossing midnight: detail resolves each clock time on its real date", () => {
    const j = new Jsonl("night");
    const base = "2026-03-01T23:50:00.000Z";
    for (let i = 0; i < 6; i++) {
      j.user(isoAt(base, i * 240_000), `step ${i + 1}`);
      j.say(isoAt(base, i * 240_000 + 30_000), `done ${i + 1}`);
    }
    using f = build([j]);
    expectPartition(f.db, "night", keys("night", 1, 6));
    const at = (when: string) =>
      JSON.parse(ok(["detail", when, "--session", "night", "--json"], f.db)).turns.map(
        (t: { turn_key: string; started_at: string }) => `${t.turn_key}@${t.started_at}`,
      );
    expect(at("23:54:10")).toEqual(["night:2@2026-03-01T23:54:00.000Z"]);
    expect(at("00:02:10")).toEqual(["night:4@2026-03-02T00:02:00.000Z"]);
    expect(at("23:58:10-00:06:10")).toEqual([
      "night:3@2026-03-01T23:58:00.000Z",
      "night:4@2026-03-02T00:02:00.000Z",
      "night:5@2026-03-02T00:06:00.000Z",
    ]);
    expect(at("2026-03-02T00:10:05Z")).toEqual(["night:6@2026-03-02T00:10:00.000Z"]);
  });

  test("clock times are UTC whatever TZ says: baked handles keep finding their turn", () => {
    using f = build([smallTurns(new Jsonl("tz"), 25)]);
    const text = (tz: string) =>
      runCli(["context", "--session", "tz", "--db", f.db], { env: { TZ: tz } }).stdout;
    expect(text("Asia/Tokyo")).toBe(text("UTC"));
    expect(text("America/New_York")).toBe(text("UTC"));
    const r = runCli(["detail", "09:03:02", "--session", "tz", "--db", f.db, "--json"], {
      env: { TZ: "Asia/Kolkata" },
    });
    expect(JSON.parse(r.stdout).turns.map((t: { turn_key: string }) => t.turn_key)).toEqual(["tz:4"]);
  });
});

describe("chains", () => {
  test("a merged chain: pulls reach the predecessor's turns, in order, from either id", () => {
    const prev = smallTurns(new Jsonl("prev"), 12);
    const next = new Jsonl("next");
    for (let i = 0; i < 14; i++)
      next
        .user(isoAt(T, 3_600_000 + i * 60_000), `next ${i + 1} ${"n".repeat(700)}`)
        .say(isoAt(T, 3_600_000 + i * 60_000 + 5000), `reply ${"r".repeat(700)}`);
    using f = build([prev, next]);
    // Merge by re-parenting, as the handoff does (docs/contract.md#handoff).
    const db = openForWrite(f.db);
    mergeChain(db, "prev", "next");
    db.close();
    const chain = [...keys("prev", 1, 12), ...keys("next", 1, 14)];
    const ctx = expectPartition(f.db, "next", chain);
    expect(ctx.stats.older_turns).toBe(6);
    expect(expectPartition(f.db, "prev", chain).session_id).toBe("next");
  });

  test("baked commands return the same output after the chain grows", () => {
    using tmp = tempDir("tl-stable-");
    const dbPath = join(tmp.path, "throughline.db");
    const j = new Jsonl("grow");
    for (let i = 0; i < 26; i++)
      j.user(isoAt(T, i * 60_000), `prompt ${i + 1} ${"p".repeat(400)}`).say(
        isoAt(T, i * 60_000 + 5000),
        `reply ${i + 1} ${"r".repeat(400)}`,
      );
    const db = openForWrite(dbPath);
    const path = ingest(db, tmp.path, j);
    db.query(
      "INSERT INTO skeletons (turn_id, summary, backend, created_at) SELECT id, 'summary of ' || turn_number, 'extractive', 0 FROM turns WHERE turn_number <= 3",
    ).run();
    db.close();
    const ctx = context(dbPath, "grow");
    expect(ctx.stats.remaining_turns).toBeGreaterThan(0);
    expect(ctx.stats.older_turns).toBe(6);
    expect(ctx.stats.older_summarized).toBe(3);
    const run = () =>
      [ctx.pull.l2!, ctx.pull.l1!].flatMap((cmd) => [
        runBaked(cmd, dbPath).stdout,
        runBaked(cmd, dbPath, ["--json"]).stdout,
      ]);
    const before = run();
    // More turns arrive (and L1 summaries of newer turns): the baked answers do not move.
    const more = new Jsonl("grow");
    for (let i = 26; i < 40; i++)
      more.user(isoAt(T, i * 60_000), `prompt ${i + 1}`).say(isoAt(T, i * 60_000 + 5000), `reply ${i + 1}`);
    appendFileSync(path, more.text());
    const w = openForWrite(dbPath);
    ingestTranscript(w, { path, now: Date.parse("2026-04-02T00:00:00Z") });
    w.query(
      "INSERT INTO skeletons (turn_id, summary, backend, created_at) SELECT id, 'later ' || turn_number, 'extractive', 0 FROM turns WHERE turn_number BETWEEN 10 AND 30",
    ).run();
    w.close();
    expect(context(dbPath, "grow").stats.older_turns).toBe(20);
    expect(run()).toEqual(before);
  });

  test("generated chain via SQL: 300 turns with several origins partition exactly", () => {
    using tmp = tempDir("tl-seed-");
    const dbPath = join(tmp.path, "throughline.db");
    const db = openForWrite(dbPath);
    const t0 = Date.parse(T);
    const turns = Array.from({ length: 300 }, (_, i) => ({
      // Bursts of same-millisecond starts across origins.
      startedAt: t0 + Math.floor(i / 3) * 1000,
      user: `prompt ${i} ${"日本語🎉".repeat(i % 7 === 0 ? 900 : 20)}`,
      assistant: `reply ${i}`,
      origin: ["a-1", "b-2", "live"][i % 3]!,
      tools: i % 4 === 0 ? ["Bash", "Read"] : [],
    }));
    seedChain(db, "live", turns);
    db.close();
    const ordered = turns
      .map((t, i) => ({ ...t, n: Math.floor(i / 3) + 1 }))
      .sort(
        (a, b) =>
          a.startedAt - b.startedAt || (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : a.n - b.n),
      )
      .map((t) => `${t.origin}:${t.n}`);
    expectPartition(dbPath, "live", ordered);
  });
});

const EMPTY_DIGEST = new Bun.CryptoHasher("sha256").update("").digest("hex");

describe("read-only", () => {
  test("context, recall and detail leave the database and its WAL byte-identical", () => {
    using tmp = tempDir("tl-ro-");
    const dbPath = join(tmp.path, "throughline.db");
    // A writer stays open, so the WAL holds frames not yet checkpointed, as while hooks run.
    const writer = openForWrite(dbPath);
    ingest(writer, tmp.path, smallTurns(new Jsonl("ro"), 30));
    // A missing WAL and an empty one hold the same (no frames): SQLite creates the empty file
    // when a read-only connection opens a WAL database whose last writer deleted it.
    const digests = () => [fileDigest(dbPath), fileDigest(`${dbPath}-wal`) ?? EMPTY_DIGEST];
    const before = digests();
    expect(before[1]).not.toBe(EMPTY_DIGEST);
    const ctx = context(dbPath, "ro");
    if (ctx.pull.l2) runBaked(ctx.pull.l2, dbPath);
    if (ctx.pull.l1) runBaked(ctx.pull.l1, dbPath);
    ok(["recall", "--l2", "--session", "ro", "--before", isoAt(T, 3_600_000), "--last", "5"], dbPath);
    ok(["detail", "09:05", "--session", "ro"], dbPath);
    ok(["context", "--session", "ro"], dbPath);
    expect(digests()).toEqual(before);
    writer.close();
    const closed = digests();
    ok(["context", "--session", "ro"], dbPath);
    ok(["detail", "09:05", "--session", "ro", "--json"], dbPath);
    expect(digests()).toEqual(closed);
  });

  test("a missing database is a clear error and is never created", () => {
    using tmp = tempDir("tl-missing-");
    const dbPath = join(tmp.path, "nested", "none.db");
    for (const args of [
      ["context", "--session", "x"],
      ["recall", "--l2", "--session", "x", "--before", T, "--last", "1"],
      ["recall", "--l1", "--session", "x", "--before", T],
      ["detail", "09:00", "--session", "x"],
    ]) {
      const r = runCli([...args, "--db", dbPath]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trim()).toBe(
        `throughline: no throughline database at ${dbPath}; run \`throughline install\` or \`throughline import\``,
      );
      expect(existsSync(dbPath)).toBe(false);
      expect(existsSync(join(tmp.path, "nested"))).toBe(false);
    }
  });
});

describe("argument errors: one line, exit 1", () => {
  let f: ReturnType<typeof build>;
  beforeAll(() => {
    f = build([smallTurns(new Jsonl("args"), 3)]);
  });
  afterAll(() => f[Symbol.dispose]());
  const cases: [string, string[], RegExp][] = [
    ["--l2 without --last", ["recall", "--l2", "--session", "args", "--before", T], /needs --last/],
    ["--l1 without --before", ["recall", "--l1", "--session", "args"], /needs --before/],
    ["no session", ["recall", "--l2", "--before", T, "--last", "2"], /needs --session/],
    ["bad --before", ["recall", "--l1", "--session", "args", "--before", "yesterday"], /ISO-8601/],
    ["bad --last", ["recall", "--l2", "--session", "args", "--before", T, "--last", "-2"], /--last must be/],
    ["both modes", ["recall", "--l1", "--l2", "--session", "args", "--before", T], /not both/],
    ["unknown session", ["recall", "--l1", "--session", "nope", "--before", T], /no session nope/],
    ["context without session", ["context"], /needs --session/],
    ["detail without time", ["detail", "--session", "args"], /needs a time/],
    ["detail bad time", ["detail", "noon", "--session", "args"], /cannot read "noon"/],
  ];
  for (const [name, args, message] of cases)
    test(name, () => {
      const r = runCli([...args, "--db", f.db]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    });
});

describe("detail scope", () => {
  test("default scope is the project of the current directory, from any subdirectory", () => {
    using tmp = tempDir("tl-proj-");
    const project = join(tmp.path, "repo");
    const sub = join(project, "src", "deep");
    mkdirSync(sub, { recursive: true });
    const dbPath = join(tmp.path, "throughline.db");
    const db = openForWrite(dbPath);
    ingest(db, tmp.path, smallTurns(new Jsonl("proj", project), 3));
    db.close();
    const r = runCli(["detail", "09:01", "--db", dbPath], { cwd: sub });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`in project ${project}`);
    expect(r.stdout).toContain("turn proj:2");
    const outside = runCli(["detail", "09:01", "--db", dbPath], { cwd: tmp.path });
    expect(outside.exitCode).toBe(1);
    expect(outside.stderr).toContain("no session recorded for");
  });

  test("detail pages: at most PULL_MAX_BYTES, items cut head and tail, each page names the next", () => {
    const j = new Jsonl("many");
    for (let i = 0; i < 8; i++)
      j.user(isoAt(T, i * 1000), `p${i}`)
        .tool(isoAt(T, i * 1000 + 100), "Read", { file_path: "a.ts" }, `HEAD${i}${"o".repeat(9000)}TAIL${i}`)
        .say(isoAt(T, i * 1000 + 200), `r${i}`);
    using f = build([j]);
    const out = ok(["detail", "09:00", "--session", "many"], f.db);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(PULL_MAX_BYTES);
    expect(out).toContain("turns 1–5 of 8");
    // Five 9,000-character outputs do not fit: each keeps its head and its tail, and the cut names the item.
    for (let i = 0; i < 5; i++) {
      expect(out).toContain(`HEAD${i}`);
      expect(out).toContain(`TAIL${i}`);
    }
    expect(out).not.toContain("HEAD5");
    const ref = /chars cut · --item (\d+)\]/.exec(out);
    expect(ref).not.toBeNull();
    expect(out).toMatch(/\nA cut item in full: `.* detail --item <ref>`/);
    const item = ok(["detail", "--item", ref![1]!], f.db);
    expect(item).toContain(`HEAD0${"o".repeat(9000)}TAIL0`);
    // The next page is the printed command, run as printed.
    const next = /^Next page \(turns 6–8 of 8\): `(.+)`$/m.exec(out);
    expect(next).not.toBeNull();
    expect(next![1]).toContain("detail 09:00 --session many --skip 5");
    const page2 = ok(next![1]!.split(" ").slice(next![1]!.split(" ").indexOf("detail")), f.db);
    expect(page2).toContain("turns 6–8 of 8");
    for (const i of [5, 6, 7]) expect(page2).toContain(`p${i}`);
    expect(page2).not.toContain("Next page");
    // --max-chars caps every item, whatever the room.
    const capped = ok(["detail", "09:00", "--session", "many", "--limit", "1", "--max-chars", "500"], f.db);
    expect(capped).toContain("chars cut");
    expect(capped.length).toBeLessThan(2000);
  });

  test("detail --item pages a long item, each page ending with the next", () => {
    const j = new Jsonl("long");
    const body = Array.from({ length: 6000 }, (_, i) => `line ${i}`).join("\n");
    j.user(isoAt(T, 0), "p").tool(isoAt(T, 100), "Bash", { command: "seq" }, body).say(isoAt(T, 200), "r");
    using f = build([j]);
    const out = ok(["detail", "09:00", "--session", "long"], f.db);
    const ref = /chars cut · --item (\d+)\]/.exec(out)![1]!;
    let page = ok(["detail", "--item", ref], f.db);
    let seen = "";
    for (let n = 0; n < 10; n++) {
      expect(Buffer.byteLength(page)).toBeLessThanOrEqual(PULL_MAX_BYTES);
      const lines = page.replace(/\n$/, "").split("\n");
      const next = /^Next page \(.*\): `.* detail --item (\d+) --offset (\d+)`$/.exec(lines.at(-1)!);
      seen += (next ? lines.slice(1, -1) : lines.slice(1)).join("\n");
      if (!next) break;
      page = ok(["detail", "--item", next[1]!, "--offset", next[2]!], f.db);
    }
    expect(seen).toBe(body);
    const missing = runCli(["detail", "--item", "999999", "--db", f.db]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("no item 999999");
  });
});
