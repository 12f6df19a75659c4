/**
 * Planning ahead on a second thread (src/capture/plan-ahead.ts): a bulk ingest that plans its
 * next transcripts in a worker thread writes exactly what planning them here writes, from the
 * checkout, the plugin's bundle and the compiled binary alike; a plan made against a cursor that
 * has moved since is made again under the lock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CORPUS_TRANSCRIPTS, FIXTURES, memoryHash, REPO, SAMPLE, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { planAhead } from "../../src/capture/ingest-plan.ts";
import { PLAN_AHEAD_BYTES, type ReplayReport, replay } from "../../src/capture/replay.ts";
import { openForWrite, withReader } from "../../src/db/open.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";

let dir: ReturnType<typeof tempDir>;
/** A history of 24 sessions, over PLAN_AHEAD_BYTES in all, so a plain replay plans ahead. */
let history: string;

const WORDS = ["zebracache", "refreshAccessToken", "parser", "the", "migration"];

function sessionText(i: number): string {
  const b = new TranscriptBuilder(
    `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, "0")}`,
    `/home/dev/p${i % 3}`,
  );
  for (let t = 0; t < 12; t++) {
    b.user(`step ${t} of session ${i}: tune the zebracache module and its migration`);
    b.tool(
      "Read",
      { file_path: `/home/dev/p${i % 3}/src/cache${t}.ts` },
      `${"export const refreshAccessToken = 1;\n".repeat(200)}// ${i}:${t}`,
    );
    b.tool("Bash", { command: "bun test" }, `${t + 3} pass\n0 fail`);
    b.say(`Step ${t} done: the parser reads cache${t}.ts.`);
  }
  return b.text();
}

function build(name: string, sources: string[], planAhead: boolean): { path: string; report: ReplayReport } {
  const path = join(dir.path, `${name}.db`);
  const db = openForWrite(path);
  try {
    // A clock that moves on every reading: each file gets the same reading either way.
    let t = Date.parse("2026-03-02T02:00:00Z");
    const report = replay(db, sources, { now: () => (t += 1000), planAhead });
    return { path, report };
  } finally {
    db.close();
  }
}

const memoryOf = (path: string): string => withReader(path, memoryHash);

/** The memory, and the times each session and cursor were last written with. */
const hashOf = (path: string): string =>
  withReader(path, (db) =>
    JSON.stringify({
      memory: memoryHash(db),
      sessions: db.query("SELECT id, created_at, updated_at FROM sessions ORDER BY id").all(),
      cursors: db.query("SELECT transcript_path, updated_at FROM ingest_cursors ORDER BY 1").all(),
    }),
  );

/** What search returns for the test words, across every session. */
async function searches(path: string): Promise<string[]> {
  const out: string[] = [];
  for (const w of WORDS)
    out.push(await cliInProcess(path, ["search", w, "--all", "--json", "--limit", "50"]));
  return out;
}

beforeAll(() => {
  dir = tempDir("tl-plan-ahead-");
  history = join(dir.path, "projects", "-home-dev-p");
  mkdirSync(history, { recursive: true });
  let bytes = 0;
  for (let i = 0; i < 24; i++) {
    const text = sessionText(i);
    bytes += text.length;
    writeFileSync(join(history, `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, "0")}.jsonl`), text);
  }
  expect(bytes).toBeGreaterThan(PLAN_AHEAD_BYTES);
});
afterAll(() => dir[Symbol.dispose]());

describe("plans made on a second thread", () => {
  test("write the same rows and answer the same searches as plans made here", async () => {
    const sources = [history, join(FIXTURES, "pull"), dirname(SAMPLE), join(FIXTURES, "transcripts")];
    const here = build("here", sources, false);
    const ahead = build("ahead", sources, true);
    expect(here.report.planned_ahead).toBe(0);
    // The first file is planned here while the worker starts; every other main transcript there.
    expect(ahead.report.planned_ahead).toBeGreaterThan(20);
    expect(ahead.report.totals).toEqual(here.report.totals);
    expect(hashOf(ahead.path)).toBe(hashOf(here.path));
    expect(await searches(ahead.path)).toEqual(await searches(here.path));
  });

  test.skipIf(!existsSync(CORPUS_TRANSCRIPTS))(
    "the same on the shared corpus",
    async () => {
      const here = build("corpus-here", [CORPUS_TRANSCRIPTS], false);
      const ahead = build("corpus-ahead", [CORPUS_TRANSCRIPTS], true);
      expect(ahead.report.planned_ahead).toBeGreaterThan(10);
      expect(hashOf(ahead.path)).toBe(hashOf(here.path));
      expect(await searches(ahead.path)).toEqual(await searches(here.path));
      // Two replays of the whole corpus: seconds on a loaded 2-core machine, past bun's 5 s default.
    },
    60_000,
  );

  test("a plan made against a cursor that moved since is made again under the lock", () => {
    const b = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000001");
    const path = join(dir.path, "moving.jsonl");
    b.user("first").say("one");
    writeFileSync(path, b.text());
    const reference = join(dir.path, "moving-ref.db");
    const stale = join(dir.path, "moving-stale.db");
    for (const p of [reference, stale]) {
      const db = openForWrite(p);
      ingestTranscript(db, { path, now: 1 });
      db.close();
    }
    // Planned as if nothing had been read, then the file grows and the first turn is re-read.
    const ahead = planAhead({ path, now: 2 }, null);
    b.user("second").say("two");
    writeFileSync(path, b.text());
    const ref = openForWrite(reference);
    const r1 = ingestTranscript(ref, { path, now: 2 });
    ref.close();
    const db = openForWrite(stale);
    const r2 = ingestTranscript(db, { path, now: 2 }, ahead);
    db.close();
    expect(r2).toEqual(r1);
    expect(r2.turns).toBe(2);
    expect(hashOf(stale)).toBe(hashOf(reference));
  });
});

describe("the worker thread where users run it", () => {
  const reference = () => build("reference", [history], false).path;

  test("the plugin's bundle plans ahead on its own script", () => {
    const db = join(dir.path, "bundle.db");
    const r = Bun.spawnSync(
      ["bun", join(REPO, "plugin", "throughline.js"), "replay", history, "--db", db, "--json"],
      {
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout.toString()) as ReplayReport).planned_ahead).toBe(23);
    // The process's own clock: the memory is compared, not the times it was written at.
    expect(memoryOf(db)).toBe(memoryOf(reference()));
  });

  test("the compiled binary plans ahead on its own executable", () => {
    const bin = join(dir.path, "throughline");
    // The build the package ships (package.json "build"), into the temp directory.
    const scripts = (
      JSON.parse(require("node:fs").readFileSync(join(REPO, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const args = scripts.build!.split(" ").slice(1);
    args[args.indexOf("--outfile") + 1] = bin;
    const built = Bun.spawnSync(["bun", ...args], { cwd: REPO });
    expect(built.exitCode).toBe(0);
    const db = join(dir.path, "binary.db");
    const r = Bun.spawnSync([bin, "replay", history, "--db", db, "--json"], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout.toString()) as ReplayReport).planned_ahead).toBe(23);
    // The process's own clock: the memory is compared, not the times it was written at.
    expect(memoryOf(db)).toBe(memoryOf(reference()));
  }, 60_000);
});
