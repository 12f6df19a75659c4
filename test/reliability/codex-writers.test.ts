import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { rng } from "../../harness/cuts.ts";
import { count, memoryHash, REPO, tempDir } from "../../harness/db.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";
import { RolloutBuilder, rolloutPath } from "../helpers/codex-rollout.ts";
import { CLI, childEnv, finished, killReplayAndStop, memoryRows, SCALE } from "./harness.ts";

// The reliability tier for Codex (docs/hosts.md, docs/testing.md): the same writers in parallel
// and kills mid-write as for Claude Code, on rollouts and Codex hook payloads.

const WRITERS = 8;
const CALLS = 102 * SCALE; // a multiple of 3: every turn ends with its Stop
const KILLS = 20 * SCALE;

function readRows(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      rows: memoryRows(db),
      hookErrors: db.query("SELECT message FROM hook_errors").values().flat(),
      integrity: db.query("PRAGMA integrity_check").get(),
      turns: count(db, "SELECT count(*) n FROM turns"),
      injected: count(
        db,
        "SELECT (SELECT count(*) FROM bodies WHERE text LIKE '%INJECTED%') + (SELECT count(*) FROM details WHERE input LIKE '%INJECTED%' OR output LIKE '%INJECTED%') n",
      ),
      hosts: db.query("SELECT DISTINCT host FROM sessions").values().flat(),
    };
  } finally {
    db.close();
  }
}

function hashOf(path: string): { hash: string; integrity: unknown; turns: number } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      hash: memoryHash(db),
      integrity: db.query("PRAGMA integrity_check").get(),
      turns: count(db, "SELECT count(*) n FROM turns"),
    };
  } finally {
    db.close();
  }
}

const writerRun = (dir: string, i: number, db: string) =>
  finished(
    Bun.spawn(["bun", join(import.meta.dir, "codex-writer.ts"), dir, String(i), String(CALLS)], {
      env: childEnv({ THROUGHLINE_DB: db }),
      stdout: "pipe",
      stderr: "pipe",
    }),
  );

describe("codex rollouts: parallel writers and kills (docs/testing.md, reliability tier)", () => {
  test(`${WRITERS} codex writer processes × ${CALLS} hook calls (user-prompt-submit, pre-compact, stop) lose no row and never see "locked"`, async () => {
    using par = tempDir("tl-cpar-");
    using seq = tempDir("tl-cseq-");
    const parDb = join(par.path, "tl.db");
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => writerRun(join(par.path, `w${i}`), i, parDb)),
    );
    // The reference: each session alone in a database of its own.
    const alone = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => {
        const db = join(seq.path, `alone-${i}.db`);
        return writerRun(join(seq.path, `w${i}`), i, db).then((r) => ({ ...r, db }));
      }),
    );
    expect(alone.map((r) => r.stderr).join("")).toBe("");
    const stderr = results.map((r) => r.stderr).join("");
    expect(stderr).not.toContain("locked");
    expect(stderr).toBe("");
    expect(results.map((r) => r.exitCode)).toEqual(Array(WRITERS).fill(0));
    const a = readRows(parDb);
    expect(a.integrity).toEqual({ integrity_check: "ok" });
    expect(a.hookErrors).toEqual([]);
    expect(a.turns).toBe((WRITERS * CALLS) / 3);
    expect(a.hosts).toEqual(["codex"]);
    expect(a.injected).toBe(0);
    const want: Record<string, string[]> = {};
    for (const r of alone)
      for (const [table, rows] of Object.entries(readRows(r.db).rows))
        want[table] = [...(want[table] ?? []), ...rows];
    const got: Record<string, string[]> = {};
    for (const [table, rows] of Object.entries(a.rows)) got[table] = [...rows].sort();
    for (const table of Object.keys(want)) want[table]!.sort();
    // Every turn's shell call is an event (a test run, an error on a non-zero exit).
    expect(want.events!.length).toBeGreaterThanOrEqual((WRITERS * CALLS) / 3);
    expect(got).toEqual(want);
  }, 180_000);

  test("two processes ingesting one growing rollout never leave an older state behind", async () => {
    using dir = tempDir("tl-csame-");
    const dbPath = join(dir.path, "tl.db");
    openForWrite(dbPath).close();
    const sid = "0000c0de-0000-7000-8000-00000000aaaa";
    const path = rolloutPath(dir.path, sid);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "");
    const turns = 40 * SCALE;
    const rival = Bun.spawn(
      [
        "bun",
        "-e",
        `const { ingestTranscript } = await import(${JSON.stringify(join(REPO, "src/capture/ingest.ts"))});
         const { openForWrite } = await import(${JSON.stringify(join(REPO, "src/db/open.ts"))});
         const stop = require("node:fs").existsSync;
         while (!stop(process.argv[2] + ".done")) {
           const db = openForWrite(process.argv[1]);
           ingestTranscript(db, { path: process.argv[2], now: 1 });
           db.close();
         }`,
        dbPath,
        path,
      ],
      { env: childEnv({}), stdout: "pipe", stderr: "pipe" },
    );
    const b = new RolloutBuilder(sid, "/home/dev/csame");
    let written = 0;
    for (let t = 1; t <= turns; t++) {
      b.turn(`prompt ${t}`, `answer ${t}`, {
        shell: { cmd: `echo ${t}`, output: `${t}\n`, exit: 0 },
        injected: `INJECTED ${t}`,
      });
      const text = b.text();
      appendFileSync(path, text.slice(written));
      written = text.length;
      const db = openForWrite(dbPath);
      ingestTranscript(db, { path, now: 1 });
      db.close();
    }
    writeFileSync(`${path}.done`, "");
    const r = await finished(rival);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    using fresh = tempDir("tl-csame-seq-");
    const seqDb = openForWrite(join(fresh.path, "tl.db"));
    ingestTranscript(seqDb, { path, now: 1 });
    const want = memoryRows(seqDb);
    seqDb.close();
    const got = readRows(dbPath);
    expect(got.turns).toBe(turns);
    expect(got.injected).toBe(0);
    expect(got.rows).toEqual(want);
  }, 120_000);

  /** A rollout that grows by a turn with a large shell output before every run. */
  function growing(dir: string) {
    const sid = "0000c0de-0000-7000-8000-00000000dead";
    const path = rolloutPath(dir, sid);
    mkdirSync(dirname(path), { recursive: true });
    const b = new RolloutBuilder(sid, "/home/dev/ccrash");
    writeFileSync(path, b.text());
    let written = b.text().length;
    let n = 0;
    return {
      sid,
      path,
      get turns() {
        return n;
      },
      grow() {
        n++;
        b.turn(`crash prompt ${n}`, `crash answer ${n} ${"word ".repeat(200)}`, {
          shell: { cmd: `bun test ${n}`, output: `${n} pass ${"log line ".repeat(40_000)}`, exit: 0 },
          injected: `INJECTED crash ${n}`,
          reasoning: `thinking about step ${n}`,
        });
        const text = b.text();
        appendFileSync(path, text.slice(written));
        written = text.length;
      },
    };
  }

  test(`replay and codex stop killed at ${KILLS} random points each mid-ingest: integrity ok, a rerun holds every turn once`, async () => {
    using dir = tempDir("tl-ccrash-");
    const r = rng(474747);
    const dbReplay = join(dir.path, "replay.db");
    const dbStop = join(dir.path, "stop.db");
    const s = growing(dir.path);
    const env = childEnv({});
    const payload = () =>
      JSON.stringify({
        session_id: s.sid,
        transcript_path: s.path,
        cwd: "/home/dev/ccrash",
        hook_event_name: "Stop",
        turn_id: `turn-${s.turns}`,
        stop_hook_active: false,
      });
    s.grow();
    // How long an unkilled run of each takes here: the kill points spread over that span.
    using scratch = tempDir("tl-ccrash-time-");
    const killed = await killReplayAndStop({
      path: s.path,
      payload,
      grow: () => s.grow(),
      dbReplay,
      dbStop,
      scratch: scratch.path,
      env,
      kills: KILLS,
      r,
      integrity: (db) => {
        const check = new Database(db);
        expect(check.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
        check.close();
      },
    });
    expect(killed).toBeGreaterThan(0);
    expect(Bun.spawnSync(["bun", CLI, "replay", s.path, "--db", dbReplay], { env }).exitCode).toBe(0);
    expect((await runHook("stop", payload(), { ...env, THROUGHLINE_DB: dbStop })).stderr).toBe("");
    using fresh = tempDir("tl-ccrash-ref-");
    const ref = openForWrite(join(fresh.path, "r.db"));
    replay(ref, [s.path]);
    const want = memoryHash(ref);
    ref.close();
    const refStop = join(fresh.path, "s.db");
    expect((await runHook("stop", payload(), { ...env, THROUGHLINE_DB: refStop })).stderr).toBe("");
    // No lost and no doubled turn: as many turns as the rollout holds, rows as one clean read.
    const ok = { integrity_check: "ok" };
    expect(hashOf(dbReplay)).toEqual({ hash: want, integrity: ok, turns: s.turns });
    expect(hashOf(dbStop)).toEqual({ hash: hashOf(refStop).hash, integrity: ok, turns: s.turns });
  }, 180_000);
});
