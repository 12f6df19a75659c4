/**
 * One-pass indexing of a bulk ingest (docs/search.md, "During a bulk ingest"): the same search
 * results and index rows as the per-row triggers, rows of other writers during the bulk window
 * indexed by its pass, and a deferral whose owners are gone completed by the next writer.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS, count, FIXTURES, REPO, SAMPLE, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import {
  AUTOMERGE,
  beginDeferral,
  deferredCounts,
  STALE_OWNER_MS,
  settleDeferral,
} from "../../src/db/queries/fts-deferral.ts";
import { INDEXES, indexState, queriesOf, searchOutputs, segmentsOf } from "../helpers/fts.ts";

const NOW = Date.parse("2026-06-01T00:00:00Z");
const FIXTURE_INPUTS = [join(FIXTURES, "transcripts"), join(FIXTURES, "activity"), SAMPLE];
const CORPUS_TRANSCRIPTS = join(CORPUS, "transcripts");
const CLI = join(REPO, "src", "cli.ts");

/** Each index's FTS5 `automerge` as configured (null: never set, FTS5's default of 4). */
function automerge(db: Database): (number | null)[] {
  return INDEXES.map(
    (t) =>
      (db.query(`SELECT v FROM ${t}_config WHERE k = 'automerge'`).get() as { v: number } | null)?.v ?? null,
  );
}

/** Replay `inputs` into a new database at `path`; returns the most rows seen waiting for a pass. */
function fill(path: string, inputs: string[], deferIndex: boolean, chunkFiles?: number): number {
  const db = openForWrite(path);
  let waiting = 0;
  try {
    replay(db, inputs, {
      now: () => NOW,
      deferIndex,
      ...(chunkFiles ? { chunkFiles } : {}),
      onProgress: () => {
        const c = deferredCounts(db);
        if (c) waiting = Math.max(waiting, c.bodies + c.details + c.events);
      },
    });
    expect(deferredCounts(db)).toBeNull();
  } finally {
    db.close();
  }
  return waiting;
}

async function compareBothWays(inputs: string[], every: number, chunkFiles?: number) {
  using dir = tempDir("tl-bulk-");
  const perRow = join(dir.path, "per-row.db");
  const onePass = join(dir.path, "one-pass.db");
  expect(fill(perRow, inputs, false)).toBe(0);
  // The bulk path really deferred: rows waited for a pass while the files went in.
  expect(fill(onePass, inputs, true, chunkFiles)).toBeGreaterThan(0);
  const want = indexState(perRow);
  expect(want.bodies_fts!.rows).toBeGreaterThan(0);
  expect(want.details_fts!.rows).toBeGreaterThan(0);
  expect(want.events_fts!.rows).toBeGreaterThan(0);
  expect(indexState(onePass)).toEqual(want);
  const queries = queriesOf(perRow, every);
  expect(queries.length).toBeGreaterThan(10);
  const a = await searchOutputs(perRow, queries);
  const b = await searchOutputs(onePass, queries);
  // Searches that find something, or the comparison says little.
  expect(
    a.filter((o) => (JSON.parse(o) as { results: unknown[] }).results.length > 0).length,
  ).toBeGreaterThan(queries.length / 2);
  expect(b).toEqual(a);
}

describe("one-pass indexing of a bulk ingest", () => {
  test("the project's fixtures: the same index rows and search results as per-row triggers", async () => {
    await compareBothWays(FIXTURE_INPUTS, 1);
  }, 60_000);

  test("in chunks of 3 files: the same again, and each chunk's rows are searchable once it ends", async () => {
    await compareBothWays(FIXTURE_INPUTS, 1, 3);
    using dir = tempDir("tl-bulk-chunks-");
    const db = openForWrite(join(dir.path, "tl.db"));
    const seen: { done: number; waiting: number; indexed: number }[] = [];
    try {
      replay(db, FIXTURE_INPUTS, {
        now: () => NOW,
        chunkFiles: 3,
        onProgress: (done) => {
          const c = deferredCounts(db)!;
          seen.push({
            done,
            waiting: c.bodies + c.details + c.events,
            indexed: count(db, "SELECT count(*) AS n FROM bodies_fts"),
          });
        },
      });
    } finally {
      db.close();
    }
    expect(seen.length).toBeGreaterThan(6);
    for (const s of seen) {
      // After the 3rd, 6th, … file the chunk's pass has run: nothing waits, and the index grew.
      if (s.done % 3 === 0) expect(s).toEqual({ ...s, waiting: 0 });
    }
    expect(seen.find((s) => s.done === 3)!.indexed).toBeGreaterThan(0);
    expect(seen.some((s) => s.done % 3 !== 0 && s.waiting > 0)).toBe(true);
  }, 60_000);

  test.skipIf(!existsSync(CORPUS_TRANSCRIPTS))(
    "the shared corpus: the same index rows and search results as per-row triggers",
    async () => {
      await compareBothWays([CORPUS_TRANSCRIPTS], 17);
    },
    120_000,
  );

  test("an ingest that wrote most of an index leaves it in one segment; a small one after it leaves its own", () => {
    using dir = tempDir("tl-bulk-optimize-");
    const db = openForWrite(join(dir.path, "tl.db"));
    const segments = () => segmentsOf(db);
    try {
      let most = [0, 0, 0];
      replay(db, FIXTURE_INPUTS, {
        now: () => NOW,
        chunkFiles: 1,
        onProgress: () => {
          most = segments().map((n, i) => Math.max(n, most[i]!));
        },
      });
      // A pass per file left several segments in each index; the end rebuilt each into one.
      for (const n of most) expect(n).toBeGreaterThan(1);
      expect(segments()).toEqual([1, 1, 1]);
      const file = join(dir.path, "small.jsonl");
      const b = new TranscriptBuilder("bulk-optimize-small", "/home/dev/bulkopt");
      b.user("a quokkaplan prompt").tool("Bash", { command: "make quokka" }, "ok").say("quokkaplan done");
      writeFileSync(file, b.text());
      replay(db, [file], { now: () => NOW });
      // Its turn and its tool call: a segment of their own in L2 and L3 (it made no event).
      expect(segments()).toEqual([2, 2, 1]);
      expect(
        count(db, "SELECT count(*) AS n FROM bodies_fts WHERE bodies_fts MATCH 'quo AND kka AND pla'"),
      ).toBe(2);
    } finally {
      db.close();
    }
  });

  test("FTS5's merges wait while a deferral is on; a small ingest ends with its segments merged as automerge would", () => {
    using dir = tempDir("tl-bulk-merge-");
    const db = openForWrite(join(dir.path, "tl.db"));
    const segments = () => segmentsOf(db);
    try {
      const seen = new Set<string>();
      replay(db, FIXTURE_INPUTS, {
        now: () => NOW,
        chunkFiles: 1,
        onProgress: () => {
          seen.add(JSON.stringify(automerge(db)));
        },
      });
      expect([...seen]).toEqual([JSON.stringify([0, 0, 0])]);
      expect(automerge(db)).toEqual([AUTOMERGE, AUTOMERGE, AUTOMERGE]);
      expect(segments()).toEqual([1, 1, 1]);
      // Six files, a pass each, far less than half of any index: no optimize, but no level keeps
      // the four segments FTS5 merges at.
      const files = Array.from({ length: 6 }, (_, i) => {
        const file = join(dir.path, `small-${i}.jsonl`);
        const b = new TranscriptBuilder(`bulk-merge-small-${i}`, "/home/dev/bulkmerge");
        b.user(`a wombat${i}plan prompt`)
          .tool("Bash", { command: `make wombat${i}` }, "ok")
          .say(`wombat${i} done`);
        writeFileSync(file, b.text());
        return file;
      });
      let most = [0, 0, 0];
      replay(db, files, {
        now: () => NOW,
        chunkFiles: 1,
        onProgress: () => {
          most = segments().map((n, i) => Math.max(n, most[i]!));
        },
      });
      expect(most[0]).toBeGreaterThanOrEqual(5);
      expect(most[1]).toBeGreaterThanOrEqual(5);
      const [bodies, details] = segments() as [number, number, number];
      expect(bodies).toBeLessThan(4);
      expect(details).toBeLessThan(4);
      expect(automerge(db)).toEqual([AUTOMERGE, AUTOMERGE, AUTOMERGE]);
      for (let i = 0; i < 6; i++)
        expect(
          count(db, `SELECT count(*) AS n FROM bodies_fts WHERE bodies_fts MATCH 'wom AND bat AND ${i}pl'`),
        ).toBe(1);
    } finally {
      db.close();
    }
  });

  test("a replay that fails on a file ends its deferral: what it wrote is indexed, the error is the file's", () => {
    using dir = tempDir("tl-bulk-fail-");
    const files = ["a", "b"].map((n) => join(dir.path, `${n}.jsonl`));
    for (const [i, f] of files.entries()) {
      const b = new TranscriptBuilder(`bulk-fail-${i}`, "/home/dev/bulkfail");
      b.user(`plovernaut prompt ${i}`).say("answer");
      writeFileSync(f, b.text());
    }
    const db = openForWrite(join(dir.path, "tl.db"));
    try {
      // The second file is gone by the time its turn comes.
      expect(() =>
        replay(db, [dir.path], { now: () => NOW, onProgress: () => rmSync(files[1]!, { force: true }) }),
      ).toThrow(/transcript not found/);
      expect(deferredCounts(db)).toBeNull();
      expect(count(db, "SELECT count(*) AS n FROM fts_deferral_owners")).toBe(0);
      expect(
        count(db, "SELECT count(*) AS n FROM bodies_fts WHERE bodies_fts MATCH 'plo AND ver AND nau'"),
      ).toBe(1);
    } finally {
      db.close();
    }
  });

  test("a hook writing during a bulk import has its rows indexed by the import's pass", async () => {
    using dir = tempDir("tl-bulk-hook-");
    const dbPath = join(dir.path, "tl.db");
    const sid = "bulk-hook-0001";
    const b = new TranscriptBuilder(sid, "/home/dev/bulkhook");
    b.user("zephyrquill prompt during the import").tool(
      "Bash",
      { command: "echo vexmarrow" },
      "vexmarrow output line",
    );
    b.say("glimmerfant answer");
    const transcript = join(dir.path, `${sid}.jsonl`);
    await Bun.write(transcript, b.text());
    const env = { ...process.env, THROUGHLINE_DB: dbPath, THROUGHLINE_DETACH: "0" };
    const hook = (event: string, payload: object) => {
      const r = Bun.spawnSync(["bun", CLI, "hook", event], {
        env,
        stdin: Buffer.from(JSON.stringify(payload)),
      });
      expect(r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
    };
    const db = openForWrite(dbPath);
    let during: { deferred: ReturnType<typeof deferredCounts>; indexed: number } | null = null;
    try {
      replay(db, FIXTURE_INPUTS, {
        now: () => NOW,
        onProgress: (done) => {
          if (done !== 1) return;
          // Another process, as Claude Code runs hooks while the user imports.
          hook("stop", { session_id: sid, transcript_path: transcript, cwd: "/home/dev/bulkhook" });
          hook("post-tool-use", {
            session_id: sid,
            transcript_path: transcript,
            cwd: "/home/dev/bulkhook",
            hook_event_name: "PostToolUse",
            tool_name: "Edit",
            tool_input: { file_path: "/home/dev/bulkhook/quorbital.ts", old_string: "a", new_string: "b" },
            tool_response: { filePath: "/home/dev/bulkhook/quorbital.ts" },
            tool_use_id: "toolu_bulk_edit",
          });
          during = {
            deferred: deferredCounts(db),
            indexed: count(
              db,
              "SELECT count(*) AS n FROM bodies_fts WHERE bodies_fts MATCH 'zep AND hyr AND qui'",
            ),
          };
        },
      });
    } finally {
      db.close();
    }
    // The hook's rows waited for the import's pass…
    expect(during).not.toBeNull();
    expect(during!.indexed).toBe(0);
    expect(during!.deferred!.bodies).toBeGreaterThan(0);
    // …and are searchable once it ended.
    for (const [word, kind] of [
      ["zephyrquill", "l2"],
      ["glimmerfant", "l2"],
      ["vexmarrow", "l3"],
      ["quorbital", "events"],
    ] as const) {
      const out = JSON.parse((await searchOutputs(dbPath, [[word, "--kind", kind]]))[0]!) as {
        results: { turn_key: string | null; session: string }[];
      };
      expect({ word, found: out.results.length > 0 }).toEqual({ word, found: true });
    }
    const check = new Database(dbPath, { readonly: true });
    expect(count(check, "SELECT count(*) AS n FROM fts_deferral")).toBe(0);
    check.close();
  }, 60_000);

  test("contentless_delete: deleting a rowid the index never held changes nothing, and it can be added later", () => {
    const db = new Database(":memory:");
    db.run(
      "CREATE VIRTUAL TABLE f USING fts5(text, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1)",
    );
    db.run("INSERT INTO f(rowid, text) VALUES (1, 'alpha beta'), (2, 'gamma')");
    db.run("DELETE FROM f WHERE rowid = 3");
    expect(count(db, "SELECT count(*) AS n FROM f")).toBe(2);
    db.run("INSERT INTO f(rowid, text) VALUES (3, 'alpha three')");
    expect(db.query("SELECT rowid AS id FROM f WHERE f MATCH 'alp AND pha' ORDER BY rowid").all()).toEqual([
      { id: 1 },
      { id: 3 },
    ]);
    db.run("INSERT INTO f(f) VALUES ('integrity-check')");
    db.close();
  });
});

describe("a deferral whose owners are gone", () => {
  /** A pid that was alive and is not any more. */
  function deadPid(): number {
    const p = Bun.spawnSync(["sh", "-c", "echo $$"]);
    return Number(p.stdout.toString().trim());
  }

  function deferredFill(path: string, owner: { pid: number; startedAt: number }, seenAt: number) {
    const db = openForWrite(path);
    beginDeferral(db, owner, seenAt);
    expect(automerge(db)).toEqual([0, 0, 0]);
    replay(db, FIXTURE_INPUTS, { now: () => NOW, deferIndex: false });
    const waiting = deferredCounts(db);
    db.close();
    return waiting;
  }

  test("the next writer's open completes the index and ends it (pid gone, or not seen for too long)", () => {
    using dir = tempDir("tl-bulk-stale-");
    const ref = join(dir.path, "ref.db");
    fill(ref, FIXTURE_INPUTS, false);
    const want = indexState(ref);
    const cases = {
      dead: { owner: { pid: deadPid(), startedAt: Date.now() }, seen: Date.now() },
      old: { owner: { pid: process.pid, startedAt: 1 }, seen: Date.now() - STALE_OWNER_MS - 1000 },
    };
    for (const [name, c] of Object.entries(cases)) {
      const path = join(dir.path, `${name}.db`);
      const waiting = deferredFill(path, c.owner, c.seen);
      // The per-row triggers deferred these rows to a pass the owner never ran.
      expect(waiting!.bodies).toBeGreaterThan(0);
      const w = openForWrite(path);
      expect(deferredCounts(w)).toBeNull();
      expect(count(w, "SELECT count(*) AS n FROM fts_deferral_owners")).toBe(0);
      // The merges the dead owner held are on again.
      expect(automerge(w)).toEqual([AUTOMERGE, AUTOMERGE, AUTOMERGE]);
      w.close();
      expect({ name, state: indexState(path) }).toEqual({ name, state: want });
    }
  }, 60_000);

  test("an owner still at work is left alone", () => {
    using dir = tempDir("tl-bulk-live-");
    const path = join(dir.path, "live.db");
    const waiting = deferredFill(path, { pid: process.pid, startedAt: Date.now() }, Date.now());
    const w = openForWrite(path);
    expect(deferredCounts(w)).toEqual(waiting);
    // Its own end (or its death) completes it.
    settleDeferral(w, Date.now(), () => false);
    expect(deferredCounts(w)).toBeNull();
    w.close();
  });
});
