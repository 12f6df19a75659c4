/**
 * Forks (docs/contract.md#forks): `claude --resume <id> --fork-session` writes a new file that
 * repeats its parent's entries with their uuids. The fork stores only its own turns and reads the
 * parent's up to the fork point through its link; the parent's chain is left as it was; both
 * branches go on independently; either order of reading the files gives the same database.
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { memoryHash, runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { turnCounts } from "../../src/db/queries/counts.ts";
import { statuslineFacts } from "../../src/db/queries/statusline.ts";
import { MIGRATIONS } from "../../src/db/schema.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";

const PROJECT = "/home/dev/forks";
const PARENT = "aaaaaaaa-0000-4000-8000-00000000f001";
const FORK = "bbbbbbbb-0000-4000-8000-00000000f002";

interface Files {
  parent: string;
  fork: string;
  builders: { parent: TranscriptBuilder; fork: TranscriptBuilder };
}

/** A parent of 2 turns (each with a tool call), and a fork that copies them and adds one. */
function writeFiles(dir: string): Files {
  const parent = new TranscriptBuilder(PARENT, PROJECT, "2026-06-01T10:00:00.000Z");
  parent.raw({ type: "queue-operation", operation: "enqueue", timestamp: parent.time, sessionId: PARENT });
  for (const i of [1, 2]) {
    parent.user(`parent step ${i}: tune the zebracache module`);
    parent.tool("Bash", { command: `make step${i}` }, `step${i} ok`);
    parent.tool("Edit", { file_path: `${PROJECT}/src/step${i}.ts`, old_string: "a", new_string: "b" }, "ok");
    parent.say(`Parent reply ${i}: zebracache tuned.`);
    parent.tick(60_000);
  }
  const fork = parent.fork(FORK, "2026-06-01T11:00:00.000Z");
  fork
    .user("fork step 3: try the quokkaqueue instead")
    .tool("Bash", { command: "make step3" }, "step3 ok")
    .tool("Edit", { file_path: `${PROJECT}/src/step3.ts`, old_string: "a", new_string: "b" }, "ok")
    .say("Fork reply 3: quokkaqueue tried.");
  const files = { parent: join(dir, `${PARENT}.jsonl`), fork: join(dir, `${FORK}.jsonl`) };
  writeFileSync(files.parent, parent.text());
  writeFileSync(files.fork, fork.text());
  return { ...files, builders: { parent, fork } };
}

const turnsOf = (db: Database) =>
  db
    .query(
      `SELECT t.origin_session_id AS origin, t.turn_number AS n, t.session_id AS key, u.text AS user
       FROM turns t JOIN bodies u ON u.turn_id = t.id AND u.role = 'user' ORDER BY t.started_at, t.origin_session_id`,
    )
    .all() as { origin: string; n: number; key: string; user: string }[];

/** What a database holds of the two sessions, without row ids: turns, links, the memory rows. */
function digest(db: Database): string {
  const links = db.query("SELECT id, chain, merged_into, fork_uuid FROM sessions ORDER BY id").all();
  return JSON.stringify({ turns: turnsOf(db), links, memory: memoryHash(db) });
}

const contextJson = async (db: string, session: string) =>
  JSON.parse(await cliInProcess(db, ["context", "--session", session, "--json"])) as {
    turns: { turn_key: string }[];
    stats: { injected_turns: number; remaining_turns: number; older_turns: number };
    text: string;
  };

const searchKeys = async (db: string, word: string, session: string) => {
  const out = JSON.parse(await cliInProcess(db, ["search", word, "--session", session, "--json"])) as {
    results: { turn_key: string }[];
  };
  return out.results.map((h) => h.turn_key);
};

describe("a fork (claude --resume <id> --fork-session)", () => {
  test("stores only its own turn and reads the parent's through its link: each turn once", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    replay(db, [f.parent]);
    const parentPush = await contextJson(path, PARENT);
    replay(db, [f.fork]);
    expect(turnsOf(db).map((r) => `${r.origin.slice(0, 4)}:${r.n}`)).toEqual(["aaaa:1", "aaaa:2", "bbbb:3"]);
    // The fork point is the parent's second prompt, the newest turn the fork copied.
    const second = f.builders.parent.lines
      .map((l) => JSON.parse(l) as { uuid?: string; message?: { content?: unknown } })
      .find((e) => String(e.message?.content).startsWith("parent step 2"))?.uuid;
    expect(db.query("SELECT fork_uuid FROM sessions WHERE id = $f").get({ f: FORK })).toEqual({
      fork_uuid: second!,
    });
    db.close();

    const push = await contextJson(path, FORK);
    expect(push.turns.map((x) => x.turn_key)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:3`]);
    expect(push.text.match(/zebracache tuned/g)?.length).toBe(2);
    // The parent's push is the same as before the fork: the fork's turn is not in it.
    expect(await contextJson(path, PARENT)).toEqual(parentPush);
    expect(parentPush.text).not.toContain("quokkaqueue");

    // Search from the fork finds the parent's turns once each, and the fork's own.
    expect((await searchKeys(path, "zebracache", FORK)).sort()).toEqual([`${PARENT}:1`, `${PARENT}:2`]);
    expect(await searchKeys(path, "quokkaqueue", FORK)).toEqual([`${FORK}:3`]);
    expect(await searchKeys(path, "quokkaqueue", PARENT)).toEqual([]);
    expect((await searchKeys(path, "zebracache", PARENT)).sort()).toEqual([`${PARENT}:1`, `${PARENT}:2`]);
    // The tool calls of the parent's turns are found from the fork too (L3 and events), once.
    expect((await searchKeys(path, "step2", FORK)).sort()).toEqual([`${PARENT}:2`]);

    // The pulls cover each turn once.
    const l2 = JSON.parse(
      await cliInProcess(path, [
        "recall",
        "--l2",
        "--session",
        FORK,
        "--before",
        "2026-06-01T12:00:00.000Z",
        "--last",
        "10",
        "--json",
      ]),
    ) as { turns: { turn_key: string }[] };
    expect(l2.turns.map((x) => x.turn_key)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:3`]);
    const l1 = JSON.parse(
      await cliInProcess(path, [
        "recall",
        "--l1",
        "--session",
        FORK,
        "--before",
        "2026-06-01T12:00:00.000Z",
        "--json",
      ]),
    ) as { turns: { turn_key: string }[] };
    expect(l1.turns.map((x) => x.turn_key)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:3`]);
    // The activity index of the fork holds the parent's edits up to the fork point and its own, once.
    const edits = async (s: string) =>
      (
        JSON.parse(
          await cliInProcess(path, [
            "recall",
            "edits",
            "--session",
            s,
            "--now",
            "2026-06-01T12:00:00.000Z",
            "--json",
          ]),
        ) as { events: { turn_key: string }[] }
      ).events
        .map((e) => e.turn_key)
        .sort();
    expect(await edits(FORK)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:3`]);
    expect(await edits(PARENT)).toEqual([`${PARENT}:1`, `${PARENT}:2`]);

    // The status line and doctor count the turns the fork reads; the parent's count is its own.
    const ro = openForWrite(path);
    expect(statuslineFacts(ro, FORK).turns).toBe(3);
    expect(statuslineFacts(ro, PARENT).turns).toBe(2);
    expect(turnCounts(ro, FORK)).toEqual({ own: 1, chain: 3 });
    ro.close();
    const detail = await cliInProcess(path, ["detail", "10:00-12:00", "--session", FORK]);
    expect(detail.match(/parent step 1/g)?.length).toBe(1);
    expect(detail).toContain("fork step 3");
  });

  test("replay of the parent and the fork in either order gives the same database", () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const digests = [
      [f.parent, f.fork],
      [f.fork, f.parent],
      [t.path], // a directory: the order its walk gives
    ].map((files, i) => {
      const db = openForWrite(join(t.path, `order${i}.db`));
      for (const file of files) replay(db, [file], { now: () => Date.parse("2026-06-02T00:00:00.000Z") });
      // Reading both again changes nothing.
      replay(db, [f.fork, f.parent], { now: () => Date.parse("2026-06-02T00:00:00.000Z") });
      const d = digest(db);
      expect(turnsOf(db)).toHaveLength(3);
      db.close();
      return d;
    });
    expect(digests[1]).toBe(digests[0]!);
    expect(digests[2]).toBe(digests[0]!);
  });

  test("both branches go on: the parent's later turns are not the fork's, the fork's are not the parent's", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    ingestTranscript(db, { path: f.parent, now: 1 });
    ingestTranscript(db, { path: f.fork, now: 2 });
    // Each file grows after the fork, and is read incrementally (a Stop each).
    const { parent, fork } = f.builders;
    parent.at("2026-06-01T12:00:00.000Z").user("parent step 3: back on the parent").say("Parent reply 3.");
    writeFileSync(f.parent, parent.text());
    fork.at("2026-06-01T12:30:00.000Z").user("fork step 4: more on the fork").say("Fork reply 4.");
    writeFileSync(f.fork, fork.text());
    ingestTranscript(db, { path: f.parent, now: 3 });
    ingestTranscript(db, { path: f.fork, now: 4 });
    expect(turnsOf(db)).toHaveLength(5);
    db.close();
    const keys = async (s: string) => (await contextJson(path, s)).turns.map((x) => x.turn_key);
    expect(await keys(PARENT)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${PARENT}:3`]);
    expect(await keys(FORK)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:3`, `${FORK}:4`]);
  });

  test("a fork of a fork reads its parent up to its fork point, and the grandparent up to the first", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const second = "cccccccc-0000-4000-8000-00000000f003";
    const fork2 = f.builders.fork.fork(second, "2026-06-01T13:00:00.000Z");
    fork2.user("second fork step 4: a third way").say("Second fork reply 4.");
    const file2 = join(t.path, `${second}.jsonl`);
    writeFileSync(file2, fork2.text());
    const hashes: string[] = [];
    for (const order of [
      [f.parent, f.fork, file2],
      [file2, f.fork, f.parent],
      [f.fork, file2, f.parent],
    ]) {
      const path = join(t.path, `${hashes.length}.db`);
      const db = openForWrite(path);
      for (const file of order) replay(db, [file], { now: () => 5 });
      hashes.push(digest(db));
      expect(turnsOf(db)).toHaveLength(4);
      db.close();
      expect((await contextJson(path, second)).turns.map((x) => x.turn_key)).toEqual([
        `${PARENT}:1`,
        `${PARENT}:2`,
        `${FORK}:3`,
        `${second}:4`,
      ]);
      expect((await contextJson(path, FORK)).turns.map((x) => x.turn_key)).toEqual([
        `${PARENT}:1`,
        `${PARENT}:2`,
        `${FORK}:3`,
      ]);
    }
    expect(new Set(hashes).size).toBe(1);
  });

  test("a fork made inside a turn keeps its own version of that turn; the fork point is the turn before", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    // Forked before the parent's second turn was answered: the fork answers it differently.
    const { parent } = f.builders;
    const cut = parent.lines.findIndex((l) => l.includes("Parent reply 2"));
    const fork = parent.fork(FORK, "2026-06-01T11:00:00.000Z", cut);
    fork.say("Fork's own reply 2: the quokkaqueue way.").user("fork step 3: go on").say("Fork reply 3.");
    writeFileSync(f.fork, fork.text());
    const hashes: string[] = [];
    for (const order of [
      [f.parent, f.fork],
      [f.fork, f.parent],
    ]) {
      const path = join(t.path, `${hashes.length}.db`);
      const db = openForWrite(path);
      for (const file of order) replay(db, [file], { now: () => 5 });
      hashes.push(digest(db));
      expect(turnsOf(db).map((r) => `${r.origin.slice(0, 4)}:${r.n}`)).toEqual([
        "aaaa:1",
        "aaaa:2",
        "bbbb:2",
        "bbbb:3",
      ]);
      db.close();
      expect((await contextJson(path, FORK)).turns.map((x) => x.turn_key)).toEqual([
        `${PARENT}:1`,
        `${FORK}:2`,
        `${FORK}:3`,
      ]);
      expect((await contextJson(path, PARENT)).turns.map((x) => x.turn_key)).toEqual([
        `${PARENT}:1`,
        `${PARENT}:2`,
      ]);
    }
    expect(hashes[1]).toBe(hashes[0]!);
  });

  test("forget of the parent's fork-point turn: the fork reads what is left of the parent, with the same gap", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    replay(db, [f.parent, f.fork]);
    db.close();
    const r = runCli(["forget", "--match", "parent step 2", "--yes", "--db", path]);
    expect(r.exitCode).toBe(0);
    expect((await contextJson(path, FORK)).turns.map((x) => x.turn_key)).toEqual([
      `${PARENT}:1`,
      `${FORK}:3`,
    ]);
    expect((await contextJson(path, PARENT)).turns.map((x) => x.turn_key)).toEqual([`${PARENT}:1`]);
  });

  test("--resume without --fork-session appends to the same file: one session, each turn once", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    ingestTranscript(db, { path: f.parent, now: 1 });
    // A resumed session writes to the file it resumes, with the same sessionId.
    const { parent } = f.builders;
    const before = parent.lines.length;
    parent.at("2026-06-01T12:00:00.000Z").user("resumed step 3").say("Resumed reply 3.");
    appendFileSync(f.parent, `${parent.lines.slice(before).join("\n")}\n`);
    ingestTranscript(db, { path: f.parent, sessionId: PARENT, now: 2 });
    expect(db.query("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 1 });
    expect(turnsOf(db).map((r) => `${r.origin.slice(0, 4)}:${r.n}`)).toEqual(["aaaa:1", "aaaa:2", "aaaa:3"]);
    db.close();
    expect((await contextJson(path, PARENT)).turns).toHaveLength(3);
  });

  test("export and import --from-export keep the fork's link: the fork reads the same", async () => {
    using t = tempDir("tl-fork-");
    const f = writeFiles(t.path);
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    replay(db, [f.fork, f.parent]);
    db.close();
    const file = join(t.path, "export.jsonl");
    expect(runCli(["export", "jsonl", "--out", file, "--db", path]).exitCode).toBe(0);
    const restored = join(t.path, "restored.db");
    expect(runCli(["import", "--from-export", file, "--db", restored]).exitCode).toBe(0);
    expect(await contextJson(restored, FORK)).toEqual(await contextJson(path, FORK));
    expect(await contextJson(restored, PARENT)).toEqual(await contextJson(path, PARENT));
    const again = openForWrite(restored);
    // A replay on top of the restore finds the copies already settled.
    replay(again, [f.parent, f.fork]);
    expect(turnsOf(again)).toHaveLength(3);
    again.close();
  });

  test("unrelated sessions that reuse a uuid (with another prompt or time) are not forks", () => {
    using t = tempDir("tl-fork-");
    const a = new TranscriptBuilder(
      "dddddddd-0000-4000-8000-000000000001",
      PROJECT,
      "2026-06-01T10:00:00.000Z",
    );
    a.user("one thing").say("ok");
    const b = new TranscriptBuilder(
      "dddddddd-0000-4000-8000-000000000002",
      PROJECT,
      "2026-06-01T10:00:00.000Z",
    );
    b.user("another thing").say("ok");
    writeFileSync(join(t.path, "a.jsonl"), a.text());
    writeFileSync(join(t.path, "b.jsonl"), b.text());
    const db = openForWrite(join(t.path, "tl.db"));
    replay(db, [t.path]);
    expect(turnsOf(db)).toHaveLength(2);
    expect(db.query("SELECT count(*) AS n FROM sessions WHERE fork_uuid IS NOT NULL").get()).toEqual({
      n: 0,
    });
    db.close();
  });

  test("migration 8 keeps a schema-5 database's rows and adds the fork columns", () => {
    using t = tempDir("tl-fork-");
    const path = join(t.path, "old.db");
    const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
    const raw = new Database(path);
    for (let i = 0; i < 5; i++) raw.run(MIGRATIONS[i] as string);
    raw.run("PRAGMA user_version = 5");
    raw.run("INSERT INTO sessions (id, created_at, updated_at) VALUES ('A', 1, 1)");
    raw.run(`INSERT INTO turns (session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars)
      VALUES ('A', 'A', 1, 10, 11, 1, 1)`);
    raw.close();
    const db = openForWrite(path);
    expect(db.query("SELECT id, chain, fork_uuid FROM sessions").all()).toEqual([
      { id: "A", chain: "A", fork_uuid: null },
    ]);
    expect(db.query("SELECT origin_session_id, uuid FROM turns").all()).toEqual([
      { origin_session_id: "A", uuid: null },
    ]);
    db.close();
  });
});
