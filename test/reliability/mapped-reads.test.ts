/**
 * Readers map the database file (`PRAGMA mmap_size`, src/db/open.ts). A mapped page past the end of
 * a file that shrank would kill the reader with SIGBUS instead of an error, so this drives the one
 * writer that shrinks the file (a bulk ingest gives its free pages back: `incremental_vacuum`, then a
 * checkpoint) in a loop beside readers that map it, and checks every read (reliability tier).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { childEnv, SCALE } from "./harness.ts";

const SESSION = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13"; // the sample session
const READERS = 2;
const ROUNDS = 1500 * SCALE;

describe("mapped reads beside a file that grows and shrinks (reliability tier)", () => {
  test("a reader's connection maps the file", () => {
    using dir = tempDir();
    const path = join(dir.path, "throughline.db");
    openForWrite(path).close();
    const db = openForRead(path);
    try {
      expect((db.query("PRAGMA mmap_size").get() as { mmap_size: number }).mmap_size).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  test(`${READERS * ROUNDS} mapped reads while a writer grows the file by ~8 MB and shrinks it again: none fails`, async () => {
    using dir = tempDir();
    const path = join(dir.path, "throughline.db");
    const w = openForWrite(path);
    replay(w, [SAMPLE]);
    // Room to grow into that no read looks at, made before the readers start.
    w.run("CREATE TABLE ballast (b BLOB)");
    w.close();
    const stop = join(dir.path, "stop");
    const sizes = join(dir.path, "sizes.json");
    const shrinker = Bun.spawn(
      [
        "bun",
        "-e",
        `const { Database } = await import("bun:sqlite");
         const fs = require("node:fs");
         let grown = 0, shrunk = 0, max = 0, min = Infinity;
         while (!fs.existsSync(${JSON.stringify(stop)})) {
           const db = new Database(${JSON.stringify(path)});
           db.run("PRAGMA busy_timeout = 5000");
           db.transaction(() => { for (let i = 0; i < 128; i++) db.run("INSERT INTO ballast VALUES (zeroblob(65536))"); })();
           db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
           const big = fs.statSync(${JSON.stringify(path)}).size;
           db.run("DELETE FROM ballast");
           db.query("PRAGMA incremental_vacuum").all();
           db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
           db.close();
           const small = fs.statSync(${JSON.stringify(path)}).size;
           max = Math.max(max, big); min = Math.min(min, small);
           if (big > small) { grown++; shrunk++; }
         }
         fs.writeFileSync(${JSON.stringify(sizes)}, JSON.stringify({ grown, shrunk, max, min }));`,
      ],
      { env: childEnv({}), stdout: "pipe", stderr: "pipe" },
    );
    const reader = () =>
      Bun.spawn(
        [
          "bun",
          "-e",
          `const { openForRead } = await import(${JSON.stringify(join(REPO, "src/db/open.ts"))});
           const { loadContextInput, resolveChain } = await import(${JSON.stringify(join(REPO, "src/db/queries/chain.ts"))});
           const { renderContext } = await import(${JSON.stringify(join(REPO, "src/core/context.ts"))});
           let first = null, wrong = 0;
           for (let i = 0; i < ${ROUNDS}; i++) {
             const db = openForRead(${JSON.stringify(path)});
             try {
               const text = renderContext(loadContextInput(db, resolveChain(db, ${JSON.stringify(SESSION)})), "throughline").text;
               // Every page of the tables the read walks, ballast included: it reaches the mapped end.
               db.query("SELECT count(*) AS n, sum(length(b)) AS s FROM ballast").get();
               first ??= text;
               if (text !== first) wrong++;
             } finally {
               db.close();
             }
           }
           console.log(JSON.stringify({ wrong, chars: first.length }));`,
        ],
        { env: childEnv({}), stdout: "pipe", stderr: "pipe" },
      );
    const readers = Array.from({ length: READERS }, reader);
    const results = await Promise.all(
      readers.map(async (r) => ({
        code: await r.exited,
        signal: r.signalCode,
        out: await new Response(r.stdout).text(),
        err: await new Response(r.stderr).text(),
      })),
    );
    writeFileSync(stop, "");
    expect(await shrinker.exited).toBe(0);
    for (const r of results) {
      expect({ code: r.code, signal: r.signal, err: r.err }).toEqual({ code: 0, signal: null, err: "" });
      const { wrong, chars } = JSON.parse(r.out) as { wrong: number; chars: number };
      expect(wrong).toBe(0);
      expect(chars).toBeGreaterThan(1000);
    }
    // The scenario happened: the file grew and shrank again while the readers ran.
    expect(existsSync(sizes)).toBe(true);
    const s = JSON.parse(await Bun.file(sizes).text()) as { shrunk: number; max: number; min: number };
    console.error(`mapped reads: the file grew and shrank ${s.shrunk} times (${s.min} to ${s.max} bytes)`);
    expect(s.shrunk).toBeGreaterThan(0);
    expect(s.max - s.min).toBeGreaterThan(4_000_000);
  }, 120_000);
});
