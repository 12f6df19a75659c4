import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { count, REPO, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { openForWrite } from "../../src/db/open.ts";
import { rowsOutsideSpans } from "../helpers/spans.ts";
import { childEnv, finished, memoryRows, SCALE } from "./harness.ts";

const WRITERS = 8;
const CALLS = 102 * SCALE; // a multiple of 3: every turn ends with its Stop

function readRows(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      rows: memoryRows(db),
      hookErrors: db.query("SELECT message FROM hook_errors").values().flat(),
      integrity: db.query("PRAGMA integrity_check").get(),
      outsideSpans: rowsOutsideSpans(db),
      turns: count(db, "SELECT count(*) n FROM turns"),
    };
  } finally {
    db.close();
  }
}

describe("parallel writers (docs/testing.md, reliability tier)", () => {
  test(`${WRITERS} writer processes × ${CALLS} mixed hook calls lose no row and never see "locked"`, async () => {
    using par = tempDir("tl-par-");
    using seq = tempDir("tl-seq-");
    const parDb = join(par.path, "tl.db");
    const procs = Array.from({ length: WRITERS }, (_, i) =>
      Bun.spawn(["bun", join(import.meta.dir, "writer.ts"), par.path, String(i), String(CALLS)], {
        env: childEnv({ THROUGHLINE_DB: parDb }),
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const results = await Promise.all(procs.map(finished));

    // The reference: each session's calls alone, in a database of its own (nothing to contend
    // with), run side by side to save time; their rows together are what the shared one must hold.
    const alone = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => {
        const db = join(seq.path, `alone-${i}.db`);
        return finished(
          Bun.spawn(
            ["bun", join(import.meta.dir, "writer.ts"), join(seq.path, `w${i}`), String(i), String(CALLS)],
            {
              env: childEnv({ THROUGHLINE_DB: db }),
              stdout: "pipe",
              stderr: "pipe",
            },
          ),
        ).then((r) => ({ ...r, db }));
      }),
    );
    expect(alone.map((r) => r.stderr).join("")).toBe("");

    const stderr = results.map((r) => r.stderr).join("");
    expect(stderr).not.toContain("locked");
    expect(stderr).toBe("");
    expect(results.map((r) => r.exitCode)).toEqual(Array(WRITERS).fill(0));
    const a = readRows(parDb);
    expect(a.integrity).toEqual({ integrity_check: "ok" });
    // Every row within its chain's span, however the writers interleaved (docs/search.md, "Scopes").
    expect(a.outsideSpans).toEqual([]);
    expect(a.hookErrors).toEqual([]);
    expect(a.turns).toBe((WRITERS * CALLS) / 3);
    const want: Record<string, string[]> = {};
    for (const r of alone)
      for (const [table, rows] of Object.entries(readRows(r.db).rows))
        want[table] = [...(want[table] ?? []), ...rows];
    const got: Record<string, string[]> = {};
    for (const [table, rows] of Object.entries(a.rows)) got[table] = [...rows].sort();
    for (const table of Object.keys(want)) want[table]!.sort();
    // Transcript paths differ between the runs; the memory must not, row for row.
    expect(got).toEqual(want);
  }, 120_000);

  test("two processes ingesting one growing transcript never leave an older state behind", async () => {
    using dir = tempDir("tl-same-");
    const dbPath = join(dir.path, "tl.db");
    openForWrite(dbPath).close();
    const sid = "88888888-0000-4000-8000-000000000001";
    const path = join(dir.path, `${sid}.jsonl`);
    writeFileSync(path, "");
    const turns = 40 * SCALE;
    // A second process runs Stop on the same transcript in a loop while this one appends.
    const rival = Bun.spawn(
      [
        "bun",
        "-e",
        `const { ingestTranscript } = await import(${JSON.stringify(join(REPO, "src/capture/ingest.ts"))});
         const { openForWrite } = await import(${JSON.stringify(join(REPO, "src/db/open.ts"))});
         const stop = require("node:fs").existsSync;
         while (!stop(process.argv[2] + ".done")) {
           const db = openForWrite(process.argv[1]);
           ingestTranscript(db, { path: process.argv[2], sessionId: ${JSON.stringify(sid)}, now: 1 });
           db.close();
         }`,
        dbPath,
        path,
      ],
      { env: childEnv({}), stdout: "pipe", stderr: "pipe" },
    );
    const b = new TranscriptBuilder(sid);
    let written = 0;
    for (let t = 1; t <= turns; t++) {
      b.user(`prompt ${t}`)
        .tool("Bash", { command: `echo ${t}` }, `${t}`)
        .say(`answer ${t}`);
      const text = b.text();
      appendFileSync(path, text.slice(written));
      written = text.length;
      const db = openForWrite(dbPath);
      ingestTranscript(db, { path, sessionId: sid, now: 1 });
      db.close();
    }
    writeFileSync(`${path}.done`, "");
    const r = await finished(rival);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    using fresh = tempDir("tl-same-seq-");
    const seqDb = openForWrite(join(fresh.path, "tl.db"));
    ingestTranscript(seqDb, { path, sessionId: sid, now: 1 });
    const want = memoryRows(seqDb);
    seqDb.close();
    const got = readRows(dbPath);
    expect(got.turns).toBe(turns);
    expect(got.rows).toEqual(want);
  }, 120_000);
});
