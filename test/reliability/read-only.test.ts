import { describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { databaseState } from "../../src/db/marks/status.ts";
import { SETTLED_MS } from "../../src/db/marks/store.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";
import { CLI, childEnv, isOneLine, snapshot, unprivileged } from "./harness.ts";

const SESSION = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13"; // test/fixtures/sample
const AFTER = "2027-01-01T00:00:00.000Z";

/** Every read command, with what its output must show when it really read the database. */
const READS: { args: string[]; shows: RegExp }[] = [
  { args: ["status", "--json"], shows: /"turns": 4/ },
  { args: ["context", "--session", SESSION], shows: /Resume context/ },
  {
    args: ["recall", "--l2", "--session", SESSION, "--before", AFTER, "--last", "2"],
    shows: /2 turns before/,
  },
  { args: ["recall", "--l1", "--session", SESSION, "--before", AFTER], shows: /4 turns, 0 summarized/ },
  { args: ["recall", "commits", "--project", "/home/dev/todo-api"], shows: /Showing:\*\* 1 event/ },
  { args: ["detail", "2026-11-30T09:12:04.000Z", "--session", SESSION], shows: /Add a due date to todos/ },
  { args: ["search", "due", "--all"], shows: /Committed 4f2a9c1/ },
  { args: ["doctor", "--json"], shows: /"name": "database integrity",\s*"ok": true/ },
];

function fill(dir: string): string {
  const path = join(dir, "throughline.db");
  const db = openForWrite(path);
  replay(db, [SAMPLE]);
  db.close();
  return path;
}

function runReads(path: string, prefix: string[]) {
  return READS.map(({ args, shows }) => {
    const r = Bun.spawnSync([...prefix, "bun", CLI, ...args, "--db", path], {
      env: childEnv({ HOME: "/tmp", THROUGHLINE_HOME: join(path, "..", "no-home") }),
      cwd: "/tmp",
    });
    const stdout = r.stdout.toString();
    const stderr = r.stderr.toString();
    return {
      args: args.join(" "),
      ok: shows.test(stdout),
      exitCode: r.exitCode,
      stderr,
      doctor: args[0] === "doctor",
    };
  });
}

let probed: ReturnType<typeof unprivileged> | undefined;

/** How to run a reader that cannot write, probed once (it spawns processes); null says why. */
function readerThatCannotWrite(): ReturnType<typeof unprivileged> {
  if (probed === undefined) probed = unprivileged();
  if (probed === null)
    console.warn("skipped: no way to run a reader that cannot write here (root without setpriv)");
  return probed;
}

describe("reads never write (docs/architecture.md)", () => {
  test("with no -wal or -shm, every read command works; the database and its marks stay byte for byte", () => {
    using dir = tempDir("tl-ro-");
    const path = fill(dir.path);
    const before = snapshot(dir.path);
    // The database and its pending-handoff marks (src/db/marks/), no -wal or -shm.
    expect(before.map((l) => l.split(" ")[0])).toEqual(["throughline.db", "throughline.db-pending"]);
    for (const r of runReads(path, [])) {
      expect({ args: r.args, ok: r.ok }).toEqual({ args: r.args, ok: true });
      if (!r.doctor)
        expect({ args: r.args, exitCode: r.exitCode, stderr: r.stderr }).toMatchObject({
          exitCode: 0,
          stderr: "",
        });
    }
    // A reader goes through the WAL like any connection (docs/architecture.md, "The read path"): it
    // may leave an empty -wal and the -shm index beside the file, never a byte of the database.
    const after = snapshot(dir.path);
    expect(after.filter((l) => !/^throughline\.db-(wal|shm) /.test(l))).toEqual(before);
    for (const l of after.filter((l) => l.startsWith("throughline.db-wal ")))
      expect(l.split(" ")[1]).toBe("0");
    // Once they exist, the reads leave the file and the log as they found them, times included (the
    // status line's kept facts are keyed on both: src/db/marks/ databaseState).
    const mainAndLog = () => snapshot(dir.path).filter((l) => !/^throughline\.db-(shm|pending) /.test(l));
    const kept = mainAndLog();
    expect(kept.map((l) => l.split(" ")[0])).toEqual(["throughline.db", "throughline.db-wal"]);
    for (const r of runReads(path, []))
      expect({ args: r.args, ok: r.ok }).toEqual({ args: r.args, ok: true });
    expect(mainAndLog()).toEqual(kept);
  }, 60_000);

  test("in a directory the reader cannot write, every read command works and creates nothing", () => {
    const how = readerThatCannotWrite();
    if (how === null) return;
    using dir = tempDir("tl-ro-locked-");
    const path = fill(dir.path);
    // Readable by the unprivileged reader, writable by no one but the owner.
    chmodSync(path, 0o444);
    chmodSync(dir.path, 0o555);
    try {
      const before = snapshot(dir.path);
      const results = runReads(path, how.prefix);
      for (const r of results) {
        expect({ args: r.args, ok: r.ok, readonly: /readonly|read-only|cannot open/.test(r.stderr) }).toEqual(
          {
            args: r.args,
            ok: true,
            readonly: false,
          },
        );
        if (!r.doctor) expect({ args: r.args, exitCode: r.exitCode }).toEqual({ args: r.args, exitCode: 0 });
        else if (r.exitCode !== 0) expect(r.stderr === "" || isOneLine(r.stderr)).toBe(true);
      }
      expect(snapshot(dir.path)).toEqual(before);
    } finally {
      chmodSync(dir.path, 0o700);
      chmodSync(path, 0o600);
    }
  }, 60_000);

  test("the status line keeps what it read in the marks directory only; where it cannot write, it works and creates nothing", async () => {
    using dir = tempDir("tl-ro-status-");
    const path = fill(dir.path);
    const stdin = JSON.stringify({
      session_id: SESSION,
      context_window: {
        context_window_size: 200_000,
        current_usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
    const line = (prefix: string[]) =>
      Bun.spawnSync([...prefix, "bun", CLI, "statusline"], {
        env: childEnv({ HOME: "/tmp", THROUGHLINE_DB: path }),
        stdin: Buffer.from(stdin),
        cwd: "/tmp",
      });
    // Every file below the directory, but the SQLite side files a reader may map.
    const files = () =>
      readdirSync(dir.path, { recursive: true, encoding: "utf8" })
        .filter((f) => !/^throughline\.db-(wal|shm)$/.test(f))
        .sort();
    // Past the settling time: a state is kept only once the files have settled (src/db/marks/).
    await Bun.sleep(SETTLED_MS + 50);
    const how = readerThatCannotWrite();
    if (how !== null) {
      chmodSync(path, 0o444);
      chmodSync(dir.path, 0o555);
      try {
        const before = snapshot(dir.path);
        const listed = files();
        const r = line(how.prefix);
        expect({ exitCode: r.exitCode, stdout: r.stdout.toString() }).toEqual({
          exitCode: 0,
          stdout: "ctx 10 / 200k (0%) · mem 4 turns\n",
        });
        expect(snapshot(dir.path)).toEqual(before);
        expect(files()).toEqual(listed);
      } finally {
        chmodSync(dir.path, 0o700);
        chmodSync(path, 0o600);
      }
    }
    const before = files();
    const r = line([]);
    expect(r.stdout.toString()).toBe("ctx 10 / 200k (0%) · mem 4 turns\n");
    const status = join("throughline.db-pending", "status");
    expect(files()).toEqual([...before, status, join(status, SESSION)].sort());
    expect(line([]).stdout.toString()).toBe("ctx 10 / 200k (0%) · mem 4 turns\n");
    // Settled again with the log in place, a line reads and keeps the state it read at; its read
    // changed nothing of that state, so the next lines answer from what it kept.
    await Bun.sleep(SETTLED_MS + 50);
    expect(line([]).stdout.toString()).toBe("ctx 10 / 200k (0%) · mem 4 turns\n");
    const keptKey = () =>
      (JSON.parse(readFileSync(join(dir.path, status, SESSION), "utf8")) as { key: string }).key;
    expect(keptKey()).toBe(databaseState(path).key);
  }, 60_000);

  test("after a hook left its commit in the WAL, a reader that cannot write sees it and creates nothing", async () => {
    const how = readerThatCannotWrite();
    if (how === null) return;
    using dir = tempDir("tl-ro-kept-");
    const path = fill(dir.path);
    const edit = {
      session_id: SESSION,
      cwd: "/home/dev/todo-api",
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: {
        file_path: "/home/dev/todo-api/src/kept-in-the-log.ts",
        old_string: "a",
        new_string: "b",
      },
      tool_response: { filePath: "/home/dev/todo-api/src/kept-in-the-log.ts", structuredPatch: [] },
      tool_use_id: "toolu_kept_in_the_log",
    };
    const out = await runHook("post-tool-use", JSON.stringify(edit), {
      THROUGHLINE_DB: path,
      HOME: dir.path,
    });
    expect(out.exitCode).toBe(0);
    // The hook's commit is only in the WAL (src/db/open.ts, closeKeepingLog).
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    for (const f of [path, `${path}-wal`, `${path}-shm`]) chmodSync(f, 0o444);
    chmodSync(dir.path, 0o555);
    try {
      const before = snapshot(dir.path);
      for (const r of runReads(path, how.prefix))
        expect({ args: r.args, ok: r.ok }).toEqual({ args: r.args, ok: true });
      const r = Bun.spawnSync(
        [...how.prefix, "bun", CLI, "recall", "edits", "--project", "/home/dev/todo-api", "--db", path],
        { env: childEnv({ HOME: "/tmp", THROUGHLINE_HOME: join(path, "..", "no-home") }), cwd: "/tmp" },
      );
      expect({ exitCode: r.exitCode, stderr: r.stderr.toString() }).toEqual({ exitCode: 0, stderr: "" });
      expect(r.stdout.toString()).toContain("kept-in-the-log.ts");
      expect(snapshot(dir.path)).toEqual(before);
    } finally {
      chmodSync(dir.path, 0o700);
      for (const f of [path, `${path}-wal`, `${path}-shm`]) chmodSync(f, 0o600);
    }
  }, 60_000);

  test("while a writer holds uncheckpointed frames, a reader sees them and leaves every file as it was", () => {
    using dir = tempDir("tl-ro-live-");
    const path = join(dir.path, "throughline.db");
    const writer = openForWrite(path);
    writer.run("PRAGMA wal_autocheckpoint = 0");
    replay(writer, [SAMPLE]);
    const before = snapshot(dir.path);
    const reader = openForRead(path);
    expect(
      reader.query("SELECT count(*) AS n FROM turns WHERE origin_session_id = $s").get({ s: SESSION }),
    ).toEqual({
      n: 4,
    });
    reader.close();
    expect(snapshot(dir.path)).toEqual(before);
    writer.close();
  });
});
