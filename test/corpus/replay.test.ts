/**
 * The third-party corpus in ../shared/corpus (absent on a user's machine: these tests skip).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ingestInCuts, rng } from "../../harness/cuts.ts";
import {
  CORPUS,
  CORPUS_TRANSCRIPTS,
  corpusTranscripts,
  count,
  memoryHash,
  runCli,
  tempDb,
} from "../../harness/db.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { replay } from "../../src/capture/replay.ts";

const dir = CORPUS_TRANSCRIPTS;
const present = existsSync(dir);
const files = corpusTranscripts();
const mains = files.filter((f) => !f.includes(".sub-agent-"));

/** The MANIFEST's `human` column: the number of human prompts per file. */
function humanColumn(): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of readFileSync(join(CORPUS, "MANIFEST.md"), "utf8").split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length > 7 && cells[1]?.endsWith(".jsonl")) m.set(cells[1], Number(cells[6]));
  }
  return m;
}

describe.skipIf(!present)("corpus replay", () => {
  test("every file replays through the CLI with exit 0 and no error output", () => {
    using t = tempDb();
    for (const f of files) {
      const r = runCli(["replay", join(dir, f), "--db", t.path, "--json"]);
      expect({ f, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ f, exitCode: 0, stderr: "" });
      expect(JSON.parse(r.stdout).schema).toBe("throughline.replay.v1");
    }
  }, 120_000);

  test("turns per main-session file equal the MANIFEST human column exactly", () => {
    const human = humanColumn();
    using t = tempDb();
    const report = replay(
      t.db,
      mains.map((f) => join(dir, f)),
    );
    for (const s of report.sessions) {
      const name = s.file.split("/").pop()!;
      expect({ name, turns: s.turns }).toEqual({ name, turns: human.get(name)! });
    }
    expect(report.sessions).toHaveLength(mains.length);
  }, 120_000);

  test("replaying twice changes nothing", () => {
    using t = tempDb();
    const paths = mains.map((f) => join(dir, f));
    replay(t.db, paths);
    const h = memoryHash(t.db);
    replay(t.db, paths);
    expect(memoryHash(t.db)).toBe(h);
  }, 120_000);

  // Mid-file Stops (cuts anywhere, mid-line included) converge on one full replay.
  const sample = mains.filter((_, i) => i % 4 === 0);
  for (const f of sample)
    test(`random cut points: ${f}`, () => {
      const src = join(dir, f);
      using full = tempDb();
      replay(full.db, [src]);
      using cut = tempDb();
      const bytes = readFileSync(src);
      const r = rng(f.length * 7919);
      const cuts = Array.from({ length: 8 }, () => Math.floor(r() * bytes.length));
      const path = join(cut.dir, f);
      ingestInCuts(path, bytes, cuts, () => ingestTranscript(cut.db, { path, now: 1 }));
      expect(memoryHash(cut.db)).toBe(memoryHash(full.db));
      expect(count(cut.db, "SELECT count(*) n FROM turns")).toBe(
        count(full.db, "SELECT count(*) n FROM turns"),
      );
    }, 60_000);
});
