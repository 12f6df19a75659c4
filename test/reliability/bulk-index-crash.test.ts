/**
 * A replay SIGKILLed while it defers its full-text indexing to its pass (docs/search.md, "During
 * a bulk ingest"): at many points over the run, from the first files to the last pass. After
 * each kill the database is whole, the next writer's open (what every writing hook runs) or a
 * rerun completes the index, and search answers what an uninterrupted run answers.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FIXTURES, SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { UNINDEXED_ATTACHMENT } from "../../src/db/schema.ts";
import { indexState, queriesOf, searchOutputs } from "../helpers/fts.ts";
import { CLI, childEnv, corpusFiles, finished, SCALE } from "./harness.ts";

const KILLS = 10 * SCALE;

/** A PostToolUse payload of a session no input holds (its event matches none of the queries). */
function edit(k: number) {
  return {
    session_id: `crash-hook-${k}`,
    transcript_path: `/nowhere/crash-hook-${k}.jsonl`,
    // No word of it is in the replayed files (search matches a path's parts too): the queries'
    // answers stay the reference's, with this one event more in the database.
    cwd: "/qzx/crashhook",
    hook_event_name: "PostToolUse",
    tool_name: "Edit",
    tool_input: { file_path: "/qzx/crashhook/zq.ts", old_string: "a", new_string: "b" },
    tool_response: { filePath: "/qzx/crashhook/zq.ts" },
    tool_use_id: `toolu_crash_${k}`,
  };
}

function inputs(): string[] {
  const corpus = corpusFiles().filter((f) => SCALE > 1 || /spotter-(258c7280|ae4a77f8)/.test(f));
  return [join(FIXTURES, "transcripts"), join(FIXTURES, "activity"), SAMPLE, ...corpus];
}

/** Integrity, whether a deferral is left, and rows of the base tables the indexes lack. */
function inspect(path: string) {
  const db = new Database(path);
  try {
    const n = (sql: string) => (db.query(sql).get() as { n: number }).n;
    return {
      integrity: (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
      deferral: n("SELECT count(*) AS n FROM fts_deferral"),
      unindexed:
        n("SELECT count(*) AS n FROM bodies WHERE id NOT IN (SELECT rowid FROM bodies_fts)") +
        n(
          `SELECT count(*) AS n FROM details d WHERE NOT ${UNINDEXED_ATTACHMENT("d")} AND id NOT IN (SELECT rowid FROM details_fts)`,
        ) +
        n("SELECT count(*) AS n FROM events WHERE id NOT IN (SELECT rowid FROM events_fts)"),
    };
  } finally {
    db.close();
  }
}

describe("a bulk ingest killed while its indexing is deferred (docs/testing.md, reliability tier)", () => {
  test(`replay SIGKILLed at ${KILLS} points: integrity ok, the next writer completes the index, search unchanged`, async () => {
    using dir = tempDir("tl-bulk-crash-");
    const files = inputs();
    const env = childEnv({});
    const ref = join(dir.path, "ref.db");
    const rdb = openForWrite(ref);
    replay(rdb, files);
    rdb.close();
    const want = indexState(ref);
    const queries = queriesOf(ref, 5, 24);
    const wantSearch = await searchOutputs(ref, queries);
    const run = (db: string) =>
      Bun.spawn(["bun", CLI, "replay", ...files, "--db", db], { env, stdout: "pipe", stderr: "pipe" });

    // How long an unkilled run takes here (the shorter of two: the first also warms the caches).
    let span = Number.POSITIVE_INFINITY;
    for (const name of ["timed-1.db", "timed-2.db"]) {
      const t0 = performance.now();
      const timed = await finished(run(join(dir.path, name)));
      span = Math.min(span, performance.now() - t0);
      expect(timed.exitCode).toBe(0);
    }

    let killed = 0;
    let leftDeferred = 0;
    for (let k = 0; k < KILLS; k++) {
      const db = join(dir.path, `k${k}.db`);
      // From the process's start-up to past its end: the last ones land in the final pass.
      const delay = Math.floor(span * (0.15 + (0.85 * k) / Math.max(1, KILLS - 1)));
      const p = run(db);
      const timer = setTimeout(() => p.kill("SIGKILL"), delay);
      const r = await finished(p);
      clearTimeout(timer);
      if (r.signal === "SIGKILL") killed++;
      else expect(r.exitCode).toBe(0);
      if (Bun.file(db).size === 0) continue; // killed before the database existed
      const after = inspect(db);
      expect(after.integrity).toBe("ok");
      if (after.deferral > 0) leftDeferred++;
      // The next writer, whoever it is, finds the owner gone and completes the index: a hook
      // (PostToolUse writing an event of another session), the open every writer runs, or a rerun.
      const hooked = k % 4 === 0;
      if (hooked) {
        const h = Bun.spawnSync(["bun", CLI, "hook", "post-tool-use"], {
          env: { ...env, THROUGHLINE_DB: db },
          stdin: Buffer.from(JSON.stringify(edit(k))),
        });
        expect({ k, code: h.exitCode, stderr: h.stderr.toString() }).toEqual({ k, code: 0, stderr: "" });
      } else if (k % 2 === 0) openForWrite(db).close();
      if (k % 2 === 0)
        expect({ k, ...inspect(db) }).toEqual({ k, integrity: "ok", deferral: 0, unindexed: 0 });
      // A rerun (resumable: it adds only what the killed run did not commit) converges.
      const again = await finished(run(db));
      expect(again.exitCode).toBe(0);
      expect({ k, ...inspect(db) }).toEqual({ k, integrity: "ok", deferral: 0, unindexed: 0 });
      const state = indexState(db);
      if (hooked) {
        // The hook's one event sits among the replay's: the events index holds one row more.
        expect({ k, events: state.events_fts!.rows }).toEqual({ k, events: want.events_fts!.rows + 1 });
        expect({ k, bodies: state.bodies_fts, details: state.details_fts }).toEqual({
          k,
          bodies: want.bodies_fts,
          details: want.details_fts,
        });
      } else expect({ k, state }).toEqual({ k, state: want });
      expect(await searchOutputs(db, queries)).toEqual(wantSearch);
    }
    // Runs really died, and some while rows waited for the pass, or nothing was tested.
    expect(killed).toBeGreaterThanOrEqual(KILLS / 2);
    expect(leftDeferred).toBeGreaterThan(0);
  }, 300_000);

  test("4 replays at once into one database share the deferral: it ends, and every row is indexed once", async () => {
    using dir = tempDir("tl-bulk-par-");
    const files = inputs();
    const ref = join(dir.path, "ref.db");
    const rdb = openForWrite(ref);
    replay(rdb, files);
    rdb.close();
    const rows = (path: string) =>
      Object.fromEntries(Object.entries(indexState(path)).map(([k, v]) => [k, v.rows]));
    const db = join(dir.path, "par.db");
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        finished(
          Bun.spawn(["bun", CLI, "replay", ...(i % 2 ? [...files].reverse() : files), "--db", db], {
            env: childEnv({}),
            stdout: "pipe",
            stderr: "pipe",
          }),
        ),
      ),
    );
    expect(runs.map((r) => [r.exitCode, r.stderr])).toEqual(Array(4).fill([0, ""]));
    expect(inspect(db)).toEqual({ integrity: "ok", deferral: 0, unindexed: 0 });
    expect(rows(db)).toEqual(rows(ref));
  }, 120_000);
});
