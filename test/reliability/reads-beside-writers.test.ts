import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { childEnv, finished, SCALE } from "./harness.ts";
import { FIXED_READS } from "./reader.ts";

const READERS = 2;
/** Rounds per reader: each round is every read command once (11 reads). */
const ROUNDS = 460 * SCALE;
const HOOK_WRITERS = 6;

/** Keeps writing until `stop` exists: hooks (writer.ts), replays, and checkpoints of every kind. */
function writer(
  kind: "hooks" | "replay" | "checkpoint",
  db: string,
  dir: string,
  index: number,
  stop: string,
) {
  const script = {
    hooks: `const { runWorkload } = await import(${JSON.stringify(join(import.meta.dir, "writer.ts"))});
      const fs = require("node:fs");
      for (let round = 0; !fs.existsSync(${JSON.stringify(stop)}); round++) {
        const failures = await runWorkload(${JSON.stringify(dir)} + "/w${index}-" + round, ${index} + 10 * round, 30, process.env);
        for (const f of failures) process.stderr.write(f);
      }`,
    replay: `const { replay } = await import(${JSON.stringify(join(REPO, "src/capture/replay.ts"))});
      const { openForWrite } = await import(${JSON.stringify(join(REPO, "src/db/open.ts"))});
      const fs = require("node:fs");
      const files = fs.readdirSync(${JSON.stringify(join(REPO, "test/fixtures/transcripts"))}).filter((f) => f.endsWith(".jsonl"))
        .map((f) => ${JSON.stringify(join(REPO, "test/fixtures/transcripts"))} + "/" + f);
      while (!fs.existsSync(${JSON.stringify(stop)})) { const db = openForWrite(${JSON.stringify(db)}); replay(db, files); db.close(); }`,
    // Every way the log goes back into the file: explicit checkpoints of each mode, and the last
    // connection's close, which checkpoints and deletes the -wal (so readers find none).
    checkpoint: `const { Database } = await import("bun:sqlite");
      const fs = require("node:fs");
      const modes = ["PASSIVE", "FULL", "RESTART", "TRUNCATE"];
      for (let i = 0; !fs.existsSync(${JSON.stringify(stop)}); i++) {
        const db = new Database(${JSON.stringify(db)});
        // A FULL, RESTART or TRUNCATE holds the write lock while it waits for the readers, up to its
        // own busy timeout: at the writers' 5 s, back to back, a hook writer could wait past its own
        // 5 s, which no user sees (throughline checkpoints so only in forget and sync). Each waits at
        // most 1 s here, and the pause after it is longer than SQLite's longest busy-handler sleep
        // (100 ms), so a waiting writer always gets in between two of them.
        db.run("PRAGMA busy_timeout = 1000");
        try { if (i % 2 === 0) db.query("PRAGMA wal_checkpoint(" + modes[(i / 2) % 4] + ")").get(); else db.query("PRAGMA user_version").get(); } finally { db.close(); }
        Bun.sleepSync(i % 2 === 0 ? 120 : 5);
      }`,
  }[kind];
  return Bun.spawn(["bun", "-e", script], {
    env: childEnv({ THROUGHLINE_DB: db }),
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe("reads beside writers (docs/architecture.md, 'The read path'; reliability tier)", () => {
  test(`${READERS * ROUNDS * (FIXED_READS.length + 1)} reads of every read command beside 8 writers: 0 failed, 0 wrong`, async () => {
    using dir = tempDir("tl-rw-");
    const db = join(dir.path, "tl.db");
    const w = openForWrite(db);
    replay(w, [SAMPLE]);
    w.close();
    // What each read prints before any writer starts: the writers never touch the fixture session.
    const expected: string[] = [];
    for (const args of FIXED_READS) expected.push(await cliInProcess(db, args));
    const expectedPath = join(dir.path, "expected.json");
    writeFileSync(expectedPath, JSON.stringify(expected));

    const stop = join(dir.path, "stop");
    mkdirSync(join(dir.path, "work"));
    const writers = [
      ...Array.from({ length: HOOK_WRITERS }, (_, i) => writer("hooks", db, join(dir.path, "work"), i, stop)),
      writer("replay", db, dir.path, 0, stop),
      writer("checkpoint", db, dir.path, 0, stop),
    ];
    const readers = Array.from({ length: READERS }, () =>
      Bun.spawn(["bun", join(import.meta.dir, "reader.ts"), db, String(ROUNDS), expectedPath], {
        env: childEnv({}),
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const read = await Promise.all(readers.map(finished));
    writeFileSync(stop, "");
    const wrote = await Promise.all(writers.map(finished));

    expect(read.map((r) => r.stderr).join("")).toBe("");
    const totals = read.map(
      (r) => JSON.parse(r.stdout) as { reads: number; failed: number; wrong: number; examples: string[] },
    );
    expect(totals.reduce((n, t) => n + t.reads, 0)).toBe(READERS * ROUNDS * (FIXED_READS.length + 1));
    expect(totals.flatMap((t) => t.examples)).toEqual([]);
    expect(totals.map((t) => [t.failed, t.wrong])).toEqual(Array(READERS).fill([0, 0]));
    // The writers really wrote while the reads ran, and without an error of their own.
    expect(wrote.map((r) => r.stderr).join("")).toBe("");
    const after = new Database(db, { readonly: true });
    try {
      expect((after.query("SELECT count(*) n FROM turns").get() as { n: number }).n).toBeGreaterThan(4 + 100);
      expect(after.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    } finally {
      after.close();
    }
    expect(existsSync(db)).toBe(true);
  }, 600_000);
});
