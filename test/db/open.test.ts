import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForRead, openForWrite, peekUserVersion, withReader } from "../../src/db/open.ts";
import { MIGRATIONS } from "../../src/db/schema.ts";
import { SCHEMA_VERSION } from "../../src/db/version.ts";

/** A database holding the sample transcript, its writer still open; disposed with its directory. */
function sampleDb() {
  const dir = tempDir();
  const path = join(dir.path, "tl.db");
  const w = openForWrite(path);
  replay(w, [SAMPLE]);
  return { path, w, [Symbol.dispose]: () => dir[Symbol.dispose]() };
}

const sessionCount = (db: Database) =>
  (db.query("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;

describe("database module", () => {
  test("writers create the directory 0700 and files 0600, in WAL mode with a busy timeout", () => {
    using dir = tempDir();
    const path = join(dir.path, "home", "tl.db");
    const db = openForWrite(path);
    replay(db, [SAMPLE]);
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect((db.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout).toBeGreaterThanOrEqual(
      5000,
    );
    expect(statSync(join(dir.path, "home")).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-shm`).mode & 0o777).toBe(0o600);
    db.close();
  });

  test("schema has every table of docs/contract.md#storage, and user_version is current", () => {
    using dir = tempDir();
    const db = openForWrite(join(dir.path, "tl.db"));
    const names = (
      db.query("SELECT name FROM sqlite_master WHERE type IN ('table')").values() as string[][]
    ).map((r) => r[0]);
    for (const t of [
      "sessions",
      "turns",
      "bodies",
      "details",
      "skeletons",
      "events",
      "handoff_batons",
      "pending_handoffs",
      "ingest_cursors",
      "injections",
      "hook_errors",
      "bodies_fts",
      "details_fts",
      "events_fts",
    ])
      expect(names).toContain(t);
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
    db.close();
  });

  test("the schema version is the number of migrations (said apart so a current open loads none)", () => {
    expect(MIGRATIONS.length).toBe(SCHEMA_VERSION);
  });

  test("a database from a newer version is refused and never modified", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    const raw = new Database(path, { create: true });
    raw.run("PRAGMA user_version = 99");
    raw.close();
    const before = readFileSync(path);
    expect(() => openForWrite(path)).toThrow(/schema version 99, newer than this throughline/);
    expect(() => openForRead(path)).toThrow(/schema version 99/);
    const r = runCli(["migrate", "--json", "--db", path]);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      schema: "throughline.migrate.v1",
      status: "future_schema",
      from: 99,
    });
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("migrate --json: not_applicable, migrated, already_current", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    expect(JSON.parse(runCli(["migrate", "--json", "--db", path]).stdout).status).toBe("not_applicable");
    new Database(path, { create: true }).close();
    expect(JSON.parse(runCli(["migrate", "--json", "--db", path]).stdout)).toMatchObject({
      status: "migrated",
      from: 0,
    });
    expect(JSON.parse(runCli(["migrate", "--json", "--db", path]).stdout)).toMatchObject({
      status: "already_current",
    });
  });

  test("readers refuse a missing file and never create it", () => {
    using dir = tempDir();
    expect(() => openForRead(join(dir.path, "missing.db"))).toThrow(/no throughline database at/);
  });

  test("status --json reports counts per layer", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    const db = openForWrite(path);
    replay(db, [SAMPLE]);
    db.close();
    const r = runCli(["status", "--json", "--db", path]);
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.counts).toMatchObject({ sessions: 1, turns: 4, l2_bodies: 8, l1_summaries: 0 });
    expect(s.counts.l3_details).toBeGreaterThan(10);
  });

  test("a reader of a database without -wal/-shm changes none of its bytes, and binds parameters as strict mode does", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    const w = openForWrite(path);
    replay(w, [SAMPLE]);
    w.close();
    expect(readdirSync(dir.path).sort()).toEqual(["tl.db", "tl.db-pending"]);
    const before = readFileSync(path);
    expect(peekUserVersion(path)).toBe(SCHEMA_VERSION);
    const db = openForRead(path);
    const id = (db.query("SELECT id FROM sessions").get() as { id: string }).id;
    expect(db.query("SELECT count(*) AS n FROM turns WHERE origin_session_id = $id").get({ id })).toEqual({
      n: 4,
    });
    expect(db.prepare("SELECT count(*) AS n FROM turns WHERE turn_number > :n").get({ n: 2 })).toEqual({
      n: 2,
    });
    expect(() => db.run("DELETE FROM turns")).toThrow(/readonly/);
    db.close();
    // It reads through the WAL like any connection (docs/architecture.md, "The read path"): an
    // empty log and the index may stay beside the file, which keeps every byte.
    expect(
      readdirSync(dir.path)
        .filter((f) => !/-(wal|shm)$/.test(f))
        .sort(),
    ).toEqual(["tl.db", "tl.db-pending"]);
    if (existsSync(`${path}-wal`)) expect(Bun.file(`${path}-wal`).size).toBe(0);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("a reader sees what a live writer committed to its WAL", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    const w = openForWrite(path);
    w.run("PRAGMA wal_autocheckpoint = 0");
    replay(w, [SAMPLE]);
    expect(existsSync(`${path}-wal`)).toBe(true);
    const db = openForRead(path);
    expect(db.query("SELECT count(*) AS n FROM turns").get()).toEqual({ n: 4 });
    db.close();
    w.close();
  });

  test("a read command's statements read one moment: a write committed between two of them is seen by neither", () => {
    using sample = sampleDb();
    const { path, w } = sample;
    const count = sessionCount;
    const add = (id: string) =>
      w.query("INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 1, 1)").run(id);
    const seen = withReader(path, (db) => {
      const before = count(db);
      add("written-between");
      return [before, count(db)];
    });
    expect(seen[1]).toBe(seen[0]!);
    // The next read sees it, and the reader left no transaction behind.
    expect(withReader(path, count)).toBe(seen[0]! + 1);
    // A read that throws ends its transaction too: a writer can then checkpoint the whole log.
    expect(() =>
      withReader(path, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(w.query("PRAGMA wal_checkpoint(TRUNCATE)").get()).toMatchObject({ busy: 0 });
    w.close();
  });

  test("an async read holds its moment for its synchronous part only", async () => {
    using sample = sampleDb();
    const { path, w } = sample;
    const count = sessionCount;
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let first = 0;
    const reading = withReader(path, async (db) => {
      first = count(db);
      await gate;
      return count(db);
    });
    // While it waits, a writer commits and checkpoints past it: no snapshot pins the log.
    w.query("INSERT INTO sessions (id, created_at, updated_at) VALUES ('written-while-waiting', 1, 1)").run();
    expect(w.query("PRAGMA wal_checkpoint(TRUNCATE)").get()).toMatchObject({ busy: 0 });
    release();
    expect(await reading).toBe(first + 1);
    w.close();
  });
});
