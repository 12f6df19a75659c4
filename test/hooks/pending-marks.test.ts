/**
 * Pending-handoff marks (src/db/marks/): an ordinary prompt is answered from the marks
 * without opening the database, and the marks never hide a pending row: one is written with each
 * row, removed only when the row is gone, and a database older than the marks gets one for every
 * row it already holds. Also what the handoff reads of the predecessor's transcript.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { pendingMark } from "../../src/db/marks/pending.ts";
import { databaseState } from "../../src/db/marks/status.ts";
import { settleMsFor } from "../../src/db/marks/store.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";

function setup(dir: string) {
  const db = join(dir, "tl.db");
  const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir, HOME: dir };
  const payload = (id: string, more: Record<string, unknown>) =>
    JSON.stringify({ session_id: id, transcript_path: join(dir, `${id}.jsonl`), cwd: dir, ...more });
  const start = (id: string) => runHook("session-start", payload(id, { source: "startup" }), env);
  const prompt = (id: string, p = "hello") =>
    runHook("user-prompt-submit", payload(id, { hook_event_name: "UserPromptSubmit", prompt: p }), env);
  const pendingRows = () => {
    const r = new Database(db, { readonly: true });
    try {
      return (
        r.query("SELECT session_id AS id FROM pending_handoffs ORDER BY 1").all() as { id: string }[]
      ).map((x) => x.id);
    } finally {
      r.close();
    }
  };
  const marks = () => (existsSync(`${db}-pending`) ? readdirSync(`${db}-pending`).sort() : []);
  return { db, start, prompt, pendingRows, marks };
}

describe("pending-handoff marks", () => {
  test("SessionStart marks its pending row; the first prompt consumes both; later prompts never open the database", async () => {
    using dir = tempDir("tl-marks-");
    const h = setup(dir.path);
    expect((await h.start("s-1")).exitCode).toBe(0);
    expect(h.pendingRows()).toEqual(["s-1"]);
    expect(h.marks()).toEqual([".marks", "s-1"]);
    expect(pendingMark(h.db, "s-1")).toBe(true);
    expect((await h.prompt("s-1", "first")).exitCode).toBe(0);
    expect(h.pendingRows()).toEqual([]);
    expect(h.marks()).toEqual([".marks"]);
    expect(pendingMark(h.db, "s-1")).toBe(false);
    // With no mark the database is not read at all: even an unreadable one answers nothing.
    writeFileSync(h.db, "this is not a database");
    for (const side of ["-wal", "-shm"]) rmSync(h.db + side, { force: true });
    expect(await h.prompt("s-1", "second")).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    // Without the marks' word for it (a session id that is no file name) the database is asked.
    expect((await h.prompt("../s-1", "third")).exitCode).toBe(1);
  });

  test("a database older than the marks: its first writer marks its pending rows before anything relies on them", async () => {
    using dir = tempDir("tl-marks-");
    const h = setup(dir.path);
    const w = openForWrite(h.db);
    w.run("INSERT INTO sessions (id, created_at, updated_at) VALUES ('old', 1, 1)");
    w.run("INSERT INTO pending_handoffs (session_id, created_at) VALUES ('old', 1)");
    w.close();
    // What a version before the marks left: the row, and no marks directory.
    rmSync(`${h.db}-pending`, { recursive: true, force: true });
    // No marks yet: the prompt path cannot tell, and asks the database.
    expect(pendingMark(h.db, "old")).toBeNull();
    // The first writer to open it marks the row before anything relies on the marks.
    expect((await h.start("new")).exitCode).toBe(0);
    expect(h.marks()).toEqual([".marks", "new", "old"]);
    expect(pendingMark(h.db, "old")).toBe(true);
    expect((await h.prompt("old")).exitCode).toBe(0);
    expect(h.pendingRows()).toEqual(["new"]);
    expect(h.marks()).toEqual([".marks", "new"]);
  });

  test("a mark whose row is gone sends one prompt the long way, which removes it", async () => {
    using dir = tempDir("tl-marks-");
    const h = setup(dir.path);
    expect((await h.start("s-1")).exitCode).toBe(0);
    expect((await h.prompt("s-1")).exitCode).toBe(0);
    writeFileSync(join(`${h.db}-pending`, "s-2"), "1");
    expect(pendingMark(h.db, "s-2")).toBe(true);
    expect(await h.prompt("s-2")).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(h.marks()).toEqual([".marks"]);
  });
});

describe("the handoff finishes the predecessor's transcript only when it grew", () => {
  test("real clock: a turn written after the last Stop is read at the handoff and is in the push", async () => {
    using dir = tempDir("tl-grown-");
    const db = join(dir.path, "tl.db");
    const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir.path, HOME: dir.path, THROUGHLINE_DETACH: "0" };
    const a = "aaaaaaaa-1111-4000-8000-000000000001";
    const b = "bbbbbbbb-2222-4000-8000-000000000002";
    const path = join(dir.path, `${a}.jsonl`);
    const t = new TranscriptBuilder(a, dir.path, new Date(Date.now() - 60_000).toISOString());
    t.user("first question about the walrus").say("First answer.");
    writeFileSync(path, t.text());
    const hook = (event: string, id: string, more: Record<string, unknown>) =>
      runHook(
        event,
        JSON.stringify({
          session_id: id,
          transcript_path: join(dir.path, `${id}.jsonl`),
          cwd: dir.path,
          ...more,
        }),
        env,
      );
    expect((await hook("session-start", a, { source: "startup" })).exitCode).toBe(0);
    expect(
      (await hook("user-prompt-submit", a, { prompt: "first question about the walrus" })).exitCode,
    ).toBe(0);
    expect((await hook("stop", a, { last_assistant_message: "First answer." })).exitCode).toBe(0);
    // A second turn reaches the file, and no Stop reads it before the /clear.
    await Bun.sleep(5);
    t.user("second question about the narwhal").say("Second answer about narwhals.");
    writeFileSync(path, t.text());
    expect((await hook("session-start", b, { source: "clear" })).exitCode).toBe(0);
    const push = await hook("user-prompt-submit", b, { prompt: "go on" });
    expect(push.exitCode).toBe(0);
    expect(push.stdout).toContain("narwhal");
    expect(push.stdout).toContain("walrus");
  });
});

describe("doctor and the marks", () => {
  test("a pending row without its mark is a problem with a fix; after the fix the next hook marks it", async () => {
    using dir = tempDir("tl-marks-");
    const h = setup(dir.path);
    const env = {
      THROUGHLINE_DB: h.db,
      THROUGHLINE_HOME: dir.path,
      HOME: dir.path,
      CLAUDE_CONFIG_DIR: dir.path,
    };
    const check = () => {
      const r = runCli(["doctor", "--json"], { env });
      return (
        JSON.parse(r.stdout).checks as { name: string; ok: boolean; detail: string; fix?: string }[]
      ).find((c) => c.name === "pending handoffs")!;
    };
    expect((await h.start("s-1")).exitCode).toBe(0);
    expect(check()).toMatchObject({ ok: true, detail: "1 pending handoff, each with its mark" });
    // A row written past the marks (a hand edit): a prompt would not see it, and doctor says so.
    rmSync(join(`${h.db}-pending`, "s-1"));
    const bad = check();
    expect(bad.ok).toBe(false);
    expect(bad.detail).toContain("s-1");
    expect(bad.fix).toContain(".marks");
    rmSync(join(`${h.db}-pending`, ".marks"));
    expect((await h.start("s-2")).exitCode).toBe(0); // any writer marks every row again
    expect(check()).toMatchObject({ ok: true, detail: "2 pending handoffs, each with its mark" });
    expect((await h.prompt("s-1")).exitCode).toBe(0);
    expect(h.pendingRows()).toEqual(["s-2"]);
  });
});

describe("when a state of the files has settled (src/db/marks/store.ts settleMsFor)", () => {
  test("100 ms after the newest write; a second more where every time is a whole second", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    openForWrite(path).close();
    writeFileSync(`${path}-wal`, "x");
    const second = Math.floor(Date.now() / 1000) - 5;
    const at = (ms: number) => {
      for (const f of [path, `${path}-wal`]) utimesSync(f, new Date(ms), new Date(ms));
    };
    // Fine-grained times (ext4, XFS, APFS, tmpfs): 100 ms.
    at(second * 1000 + 123);
    expect(settleMsFor([second * 1000 + 123])).toBe(100);
    expect(databaseState(path, second * 1000 + 123 + 99).settled).toBe(false);
    expect(databaseState(path, second * 1000 + 123 + 100).settled).toBe(true);
    // Whole seconds (ext3, HFS+): a write 100 ms later may share the time, so 1.1 s.
    at(second * 1000);
    expect(databaseState(path, second * 1000 + 150).settled).toBe(false);
    expect(databaseState(path, second * 1000 + 1100).settled).toBe(true);
    // A missing file's 0 says nothing either way.
    expect(settleMsFor([0, second * 1000])).toBe(1100);
    expect(settleMsFor([0, second * 1000 + 7])).toBe(100);
    expect(settleMsFor([0])).toBe(100);
  });
});
