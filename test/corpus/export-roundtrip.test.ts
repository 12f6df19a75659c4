/**
 * Export → import on real data (docs/export.md): the whole shared corpus is replayed into one
 * database, exported, and restored into an empty one; for every chain the push (`context`), the
 * pulls it bakes in (`recall --l2`, `recall --l1`), `search` and `recall <words>` print the same
 * on both. Commands run in this process (hundreds of them). Skipped when ../shared/corpus is absent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CORPUS, memoryHash, runCli, tempDir } from "../../harness/db.ts";
import { bakedCommands } from "../../harness/pull.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { bakedArgs, chainsWithLongestPrompt, cliInProcess } from "../helpers/cli-in-process.ts";

const DIR = join(CORPUS, "transcripts");

async function views(db: string, c: Chain): Promise<Record<string, string>> {
  const v: Record<string, string> = {};
  const s = c.live;
  v.context = await cliInProcess(db, ["context", "--session", s]);
  const baked = bakedCommands(v.context);
  if (baked.l2) v.l2 = await cliInProcess(db, [...bakedArgs(baked.l2), "--json"]);
  if (baked.l1) v.l1 = await cliInProcess(db, bakedArgs(baked.l1));
  v.search = await cliInProcess(db, ["search", c.word, "--session", s]);
  v.recall = await cliInProcess(db, ["recall", c.word, "--session", s, "--now", c.now]);
  v.recallEdits = await cliInProcess(db, ["recall", "edits", "--session", s, "--now", c.now, "--json"]);
  return v;
}

interface Chain {
  live: string;
  word: string;
  now: string;
}

let dir: ReturnType<typeof tempDir>;
let original: string;
let restored: string;
let list: Chain[] = [];

beforeAll(() => {
  if (!existsSync(DIR)) return;
  dir = tempDir("tl-corpus-export-");
  original = join(dir.path, "original.db");
  restored = join(dir.path, "restored.db");
  const w = openForWrite(original);
  replay(w, [DIR], { now: () => Date.parse("2026-03-02T00:00:00Z") });
  w.close();
  const file = join(dir.path, "corpus.jsonl");
  const e = runCli(["export", "jsonl", "--out", file, "--db", original]);
  expect(e.stderr).toBe("");
  const i = runCli(["import", "--from-export", file, "--db", restored]);
  expect(i.stderr).toBe("");
  list = chainsWithLongestPrompt(original).map((c) => ({
    live: c.live,
    word:
      [...(c.prompt ?? "").slice(0, 4000).matchAll(/[\p{L}\p{N}_]{5,}/gu)]
        .map((m) => m[0])
        .sort((a, b) => b.length - a.length || a.localeCompare(b))[0] ?? "error",
    now: new Date(c.last + 60_000).toISOString(),
  }));
}, 300_000);
afterAll(() => dir?.[Symbol.dispose]());

describe.skipIf(!existsSync(DIR))("export → import over the corpus", () => {
  test("the restored database holds the same memory", () => {
    const a = openForRead(original);
    const b = openForRead(restored);
    try {
      expect(memoryHash(b)).toBe(memoryHash(a));
    } finally {
      a.close();
      b.close();
    }
    expect(list.length).toBeGreaterThan(20);
  });

  test("every chain: context, recall --l2/--l1, search and recall <words> print the same", async () => {
    let pulled = 0;
    for (const c of list) {
      const want = await views(original, c);
      const got = await views(restored, c);
      expect({ live: c.live, ...got }).toEqual({ live: c.live, ...want });
      if (want.l1 || want.l2) pulled++;
    }
    expect(pulled).toBeGreaterThan(0);
  }, 300_000);
});
