/**
 * `forget` and the never list (docs/memory-control.md). Forgotten text must leave the database
 * file, its WAL and the FTS5 shadow tables; what is left must still be pulled whole (the push,
 * `recall --l2` and `recall --l1` cover every remaining turn exactly once); `--dry-run` and a
 * refused confirmation change no byte. `pause`/`resume`: a listed project or session is not
 * captured by any hook, nor by `import`.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runCli, runShell, tempDir } from "../../harness/db.ts";
import { bakedCommands, fileDigest, isoAt, Jsonl } from "../../harness/pull.ts";
import { replay } from "../../src/capture/replay.ts";
import { writeAhead } from "../../src/db/marks/ahead.ts";
import { writeCompaction } from "../../src/db/marks/compaction.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { deleteSelection } from "../../src/db/queries/forget.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";
import { chainKeyOf } from "../../src/db/queries/sessions.ts";
import { preparePush } from "../../src/hooks/prepared-push.ts";
import { HookDriver } from "../helpers/hooks.ts";

/** Text someone regrets pasting: ASCII, and CJK whose trigrams are stored whole in the index. */
const SECRET = "Zebra-Quokka-9431";
const CJK = "秘密の合言葉は蒼穹";
const A = "aaaaaaaa-0000-4000-8000-00000000000a";
const B = "bbbbbbbb-0000-4000-8000-00000000000b";
const BASE = "2026-03-01T10:00:00.000Z";
const CWD = "/home/dev/forget-fixture";
const B_TURNS = 26;

function sessionA(): Jsonl {
  const j = new Jsonl(A, CWD);
  for (let n = 1; n <= 4; n++) {
    const at = (s: number) => isoAt(BASE, (n * 60 + s) * 1000);
    j.user(at(0), n === 2 ? `here is the key: ${SECRET} ${CJK}` : `A prompt ${n} about the tokenizer`);
    j.say(at(5), `A reply ${n}.`);
  }
  return j;
}

function sessionB(turns = B_TURNS): Jsonl {
  const j = new Jsonl(B, CWD);
  for (let n = 1; n <= turns; n++) {
    const at = (s: number) => isoAt(BASE, 3_600_000 + (n * 60 + s) * 1000);
    j.user(
      at(0),
      n === 5 ? `remember ${SECRET} and ${CJK} please` : `B prompt ${n}: work on the parser module`,
    );
    if (n === 12) j.tool(at(2), "Bash", { command: "cat notes.txt" }, `the note says ${SECRET}\n${CJK}`);
    j.say(at(5), n === B_TURNS ? `Noted: ${SECRET}.` : `B reply ${n}: done with step ${n}.`);
  }
  return j;
}

interface Fixture {
  dir: string;
  db: string;
  transcriptB: string;
  [Symbol.dispose](): void;
}

/** Two sessions captured from transcripts, A continued by B (one chain), old turns summarised. */
function build(): Fixture {
  const t = tempDir("tl-forget-");
  const db = join(t.path, "throughline.db");
  const files = [join(t.path, `${A}.jsonl`), join(t.path, `${B}.jsonl`)];
  writeFileSync(files[0]!, sessionA().text());
  writeFileSync(files[1]!, sessionB().text());
  const w = openForWrite(db);
  replay(w, files, { now: () => Date.parse("2026-03-01T12:00:00Z") });
  w.transaction(() => mergeChain(w, A, B))();
  w.query(
    `INSERT INTO skeletons (turn_id, summary, backend, created_at)
     SELECT t.id, CASE WHEN t.origin_session_id = $b AND t.turn_number = 5 THEN 'Asked to keep ' || $secret
                       ELSE 'Turn ' || t.turn_number || ' summary' END, 'extractive', 0
     FROM turns t WHERE t.origin_session_id = $a OR t.turn_number <= 6`,
  ).run({ a: A, b: B, secret: SECRET });
  w.close();
  return { dir: t.path, db, transcriptB: files[1]!, [Symbol.dispose]: () => t[Symbol.dispose]() };
}

const bytes = (s: string) => Buffer.from(s, "utf8");

function filesOf(db: string): Buffer[] {
  return [db, `${db}-wal`].filter(existsSync).map((f) => readFileSync(f));
}

/** Does the database file or its WAL hold these bytes anywhere (live rows, free pages, old frames)? */
function onDisk(db: string, s: string): boolean {
  return filesOf(db).some((b) => b.includes(bytes(s)));
}

/** The CJK trigrams as the FTS5 shadow tables hold their terms (each one whole, 9 bytes). */
const TRIGRAMS = [...CJK].slice(0, -2).map((_, i) => [...CJK].slice(i, i + 3).join(""));

function inShadowTables(db: string): string[] {
  const r = new Database(db, { readonly: true });
  try {
    const hits: string[] = [];
    for (const table of ["bodies_fts_data", "details_fts_data", "events_fts_data"])
      for (const [block] of r.query(`SELECT block FROM ${table}`).values()) {
        const b = Buffer.from(block as Uint8Array);
        for (const t of TRIGRAMS) if (b.includes(bytes(t))) hits.push(`${table}:${t}`);
      }
    return hits;
  } finally {
    r.close();
  }
}

/** The database's bytes and its log's; no log and an empty one (a reader may leave it) are the same. */
function hashes(db: string) {
  return { db: fileDigest(db), wal: Bun.file(`${db}-wal`).size > 0 ? fileDigest(`${db}-wal`) : null };
}

/** Chain order of the turns left, as the pulls key them. */
function chainKeys(db: string, live: string): string[] {
  const r = openForRead(db);
  try {
    return r
      .query<{ k: string }, { s: string }>(
        `SELECT origin_session_id || ':' || turn_number AS k FROM turns WHERE session_id = ${chainKeyOf("$s")}
         ORDER BY started_at, origin_session_id, turn_number`,
      )
      .all({ s: live })
      .map((x) => x.k);
  } finally {
    r.close();
  }
}

/** The push and the two pulls it bakes in, run as printed: their turns, in order. */
function pulledKeys(db: string, live: string): string[] {
  const ctx = runCli(["context", "--session", live, "--json", "--db", db]);
  expect(ctx.exitCode).toBe(0);
  const parsed = JSON.parse(ctx.stdout);
  const baked = bakedCommands(parsed.text);
  const run = (cmd: string | null) => {
    if (cmd === null) return [];
    const r = runShell(cmd, { env: { THROUGHLINE_DB: db }, extra: ["--json"] });
    expect(r.stderr).toBe("");
    return JSON.parse(r.stdout).turns.map((t: { turn_key: string }) => t.turn_key) as string[];
  };
  return [...run(baked.l1), ...run(baked.l2), ...parsed.turns.map((t: { turn_key: string }) => t.turn_key)];
}

function expectWholeChain(db: string, live: string): string[] {
  const keys = chainKeys(db, live);
  const pulled = pulledKeys(db, live);
  expect(pulled).toEqual(keys);
  expect(new Set(pulled).size).toBe(keys.length);
  return keys;
}

describe("forget --match", () => {
  test("the fixture holds the text in the file, the index and the pulls before anything is forgotten", () => {
    using f = build();
    expect(onDisk(f.db, SECRET)).toBe(true);
    expect(inShadowTables(f.db).length).toBeGreaterThan(0);
    expect(chainKeys(f.db, B)).toHaveLength(4 + B_TURNS);
    expectWholeChain(f.db, B);
  });

  test("--dry-run lists what would go and changes no byte", () => {
    using f = build();
    const before = hashes(f.db);
    const r = runCli(["forget", "--match", SECRET, "--dry-run", "--db", f.db]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Would forget 4 turns");
    for (const k of [`${A}:2`, `${B}:5`, `${B}:12`, `${B}:${B_TURNS}`]) expect(r.stdout).toContain(k);
    expect(r.stdout).toContain("Dry run: nothing changed.");
    const j = runCli(["forget", "--match", SECRET, "--dry-run", "--json", "--db", f.db]);
    expect(JSON.parse(j.stdout).counts.turns).toBe(4);
    expect(hashes(f.db)).toEqual(before);
  });

  test("without --yes and without a terminal it refuses in one line and changes no byte", () => {
    using f = build();
    const before = hashes(f.db);
    const r = runCli(["forget", "--match", SECRET, "--db", f.db]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--yes");
    expect(hashes(f.db)).toEqual(before);
  });

  test("--yes: the bytes leave the file, the WAL and the FTS5 shadow tables; the rest is still pulled whole", () => {
    using f = build();
    const hits = JSON.parse(runCli(["search", "Quokka", "--all", "--json", "--db", f.db]).stdout).results;
    expect(hits.length).toBeGreaterThan(0);
    const plan = JSON.parse(
      runCli(["forget", "--match", SECRET, "--dry-run", "--json", "--db", f.db]).stdout,
    );
    const r = runCli(["forget", "--match", SECRET.toLowerCase(), "--yes", "--json", "--db", f.db]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.counts).toEqual(plan.counts);
    expect(out.wal_truncated).toBe(true);
    expect(onDisk(f.db, SECRET)).toBe(false);
    expect(onDisk(f.db, CJK.slice(0, 3))).toBe(false);
    expect(inShadowTables(f.db)).toEqual([]);
    const found = (q: string) =>
      JSON.parse(runCli(["search", q, "--all", "--json", "--db", f.db]).stdout).results;
    expect(found("Quokka")).toEqual([]);
    expect(found(CJK)).toEqual([]);
    expect(found("parser").length).toBeGreaterThan(0);
    // Turn numbers are the transcript's: the forgotten ones leave gaps, nothing is renumbered.
    const keys = expectWholeChain(f.db, B);
    expect(keys).toHaveLength(4 + B_TURNS - 4);
    expect(keys).toContain(`${B}:4`);
    expect(keys).not.toContain(`${B}:5`);
    expect(keys).toContain(`${B}:6`);
    // A summary row went with its turn; the others stay.
    const db = openForRead(f.db);
    try {
      expect(db.query("SELECT count(*) AS n FROM skeletons WHERE summary LIKE '%Quokka%'").get()).toEqual({
        n: 0,
      });
      expect((db.query("SELECT count(*) AS n FROM skeletons").get() as { n: number }).n).toBe(4 + 6 - 2);
    } finally {
      db.close();
    }
  });

  test("--yes: pushes rendered ahead (a prepared push, a push kept for a first prompt or a compaction) go with the text", async () => {
    using f = build();
    const w = openForWrite(f.db);
    try {
      preparePush(w, B, "/usr/local/bin/throughline", Date.parse("2026-03-01T12:00:00Z"));
      expect(w.query("SELECT count(*) AS n FROM prepared_pushes WHERE text LIKE '%Quokka%'").get()).toEqual({
        n: 1,
      });
    } finally {
      w.close();
    }
    const kept = {
      key: "k",
      transcripts: [],
      text: `The push: ${SECRET}`,
      version: "v",
      invocation: "i",
      cwd: null,
      transcript_path: null,
    };
    expect(await writeAhead(f.db, "cccccccc-0000-4000-8000-00000000000c", kept)).toBe(true);
    const stats = {
      total_chars: 1,
      budget: 9500,
      injected_turns: 1,
      remaining_turns: 0,
      older_turns: 0,
      older_summarized: 0,
      truncated_newest: 0,
      boundary: null,
      brief_turns: 0,
    };
    const compaction = {
      ...kept,
      form: "ahead" as const,
      stats,
      base: "b",
      size: 0,
      text: `After compaction: ${SECRET}`,
    };
    expect(await writeCompaction(f.db, B, compaction)).toBe(true);
    expect(readFileSync(`${f.db}-pending/compacted/${B}`, "utf8")).toContain(SECRET);
    const pendingFiles = () =>
      readdirSync(`${f.db}-pending`, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => readFileSync(join(e.parentPath, e.name)));
    expect(pendingFiles().some((b) => b.includes(bytes(SECRET)))).toBe(true);
    expect(onDisk(f.db, SECRET)).toBe(true);
    const r = runCli(["forget", "--match", SECRET, "--yes", "--db", f.db]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(onDisk(f.db, SECRET)).toBe(false);
    expect(pendingFiles().some((b) => b.includes(bytes(SECRET)))).toBe(false);
  });

  test("the forgotten open turn is not captured again when the transcript grows", () => {
    using f = build();
    expect(runCli(["forget", "--match", SECRET, "--yes", "--db", f.db]).exitCode).toBe(0);
    const more = new Jsonl(B, CWD);
    more.user(isoAt(BASE, 7_200_000), "B prompt 27: one more thing");
    more.say(isoAt(BASE, 7_205_000), "B reply 27.");
    appendFileSync(f.transcriptB, more.text());
    const w = openForWrite(f.db);
    replay(w, [f.transcriptB], { now: () => Date.parse("2026-03-01T13:00:00Z") });
    w.close();
    expect(onDisk(f.db, SECRET)).toBe(false);
    const keys = expectWholeChain(f.db, B);
    expect(keys.at(-1)).toBe(`${B}:${B_TURNS + 1}`);
    expect(keys).not.toContain(`${B}:${B_TURNS}`);
  });
});

describe("why forget rewrites the file", () => {
  test("DELETE alone, even with secure_delete, leaves the text in the FTS5 segments; without VACUUM it stays in the file", () => {
    using f = build();
    // What the delete triggers alone do: FTS5 contentless_delete records a tombstone only.
    const plain = join(f.dir, "plain.db");
    copyFileSync(f.db, plain);
    const p = new Database(plain);
    p.run("PRAGMA secure_delete = ON");
    p.run("DELETE FROM bodies WHERE instr(text, 'Quokka') > 0");
    p.run("DELETE FROM details WHERE instr(coalesce(output, ''), 'Quokka') > 0");
    p.run("DELETE FROM skeletons WHERE instr(coalesce(summary, ''), 'Quokka') > 0");
    p.run("PRAGMA wal_checkpoint(TRUNCATE)");
    p.close();
    expect(inShadowTables(plain).length).toBeGreaterThan(0);
    // Deleting and merging the index, without VACUUM: free space in the pages still holds it.
    const merged = join(f.dir, "merged.db");
    copyFileSync(f.db, merged);
    const m = openForWrite(merged);
    m.transaction(() => deleteSelection(m, { session: null, before: null, project: null, match: SECRET }))();
    m.run("PRAGMA wal_checkpoint(TRUNCATE)");
    m.close();
    expect(inShadowTables(merged)).toEqual([]);
    expect(onDisk(merged, SECRET)).toBe(true);
  });
});

describe("forget --session / --before / --project", () => {
  test("--session forgets one session of a chain; the chain's live end and its pulls are untouched", () => {
    using f = build();
    const r = runCli(["forget", "--session", A, "--yes", "--db", f.db]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("Forgot 4 turns");
    expect(onDisk(f.db, "A prompt 1 about the tokenizer")).toBe(false);
    const keys = expectWholeChain(f.db, B);
    expect(keys.filter((k) => k.startsWith(A))).toEqual([]);
    expect(keys).toHaveLength(B_TURNS);
    const db = openForRead(f.db);
    try {
      expect(db.query("SELECT id FROM sessions ORDER BY id").all()).toEqual([{ id: B }]);
    } finally {
      db.close();
    }
  });

  test("--before drops the older turns and their events; --project with it narrows", () => {
    using f = build();
    const cut = isoAt(BASE, 3_600_000 + 10 * 60_000 + 30_000); // between B's turns 10 and 11
    const other = runCli(["forget", "--before", cut, "--project", "/elsewhere", "--yes", "--db", f.db]);
    expect(other.stdout).toBe("Nothing matches; nothing changed.\n");
    const r = runCli(["forget", "--before", cut, "--project", CWD, "--yes", "--json", "--db", f.db]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).counts.turns).toBe(4 + 10);
    const keys = expectWholeChain(f.db, B);
    expect(keys[0]).toBe(`${B}:11`);
    expect(keys).toHaveLength(B_TURNS - 10);
    const db = openForRead(f.db);
    try {
      expect(db.query("SELECT count(*) AS n FROM events WHERE ts < $c").get({ c: Date.parse(cut) })).toEqual({
        n: 0,
      });
    } finally {
      db.close();
    }
  });

  test("bad input is one clear line", () => {
    using f = build();
    for (const [args, text] of [
      [[], "forget needs what to forget"],
      [["--before", "yesterday-ish"], "--before must be a date or time"],
      [["--match", " "], "--match needs a value"],
    ] as const) {
      const r = runCli(["forget", ...args, "--db", f.db]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(text);
    }
    const missing = runCli(["forget", "--match", "x", "--dry-run", "--db", join(f.dir, "none.db")]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("no throughline database");
    expect(existsSync(join(f.dir, "none.db"))).toBe(false);
  });
});

describe("pause / resume: the never list", () => {
  function setup(t: { path: string }) {
    const home = join(t.path, "tl-home");
    const hooks = new HookDriver(t.path);
    hooks.env.THROUGHLINE_HOME = home;
    const env = { THROUGHLINE_HOME: home };
    return { home, hooks, env };
  }

  async function capture(hooks: HookDriver, id: string, cwd: string) {
    const j = new Jsonl(id, cwd);
    j.user("2026-03-01T12:00:01.000Z", "a prompt worth keeping private");
    j.say("2026-03-01T12:00:02.000Z", "a reply");
    writeFileSync(hooks.transcriptPath(id), j.text());
    await hooks.fire("session-start", id, { source: "startup" }, cwd);
    await hooks.fire("user-prompt-submit", id, { prompt: "a prompt worth keeping private" }, cwd);
    await hooks.fire("stop", id, {}, cwd);
  }

  const turnsOf = (hooks: HookDriver, id: string) =>
    existsSync(hooks.dbPath)
      ? hooks.read(
          (db) =>
            (db.query("SELECT count(*) AS n FROM turns WHERE origin_session_id = ?").get(id) as { n: number })
              .n,
        )
      : 0;

  test("a paused project is not captured by any hook (the database is not even opened) until resume", async () => {
    using t = tempDir("tl-never-");
    const { home, hooks, env } = setup(t);
    const project = join(t.path, "secret-client");
    mkdirSync(join(project, "sub"), { recursive: true });
    const p = runCli(["pause", "--project", project], { env });
    expect(p.exitCode).toBe(0);
    expect(p.stdout).toContain("Paused project");
    expect(readFileSync(join(home, "never"), "utf8")).toContain(`project ${project}\n`);
    await capture(hooks, "11111111-aaaa-4000-8000-000000000001", join(project, "sub"));
    expect(existsSync(hooks.dbPath)).toBe(false);
    await capture(hooks, "11111111-aaaa-4000-8000-000000000002", join(t.path, "elsewhere"));
    expect(turnsOf(hooks, "11111111-aaaa-4000-8000-000000000002")).toBe(1);
    const list = JSON.parse(runCli(["pause", "--list", "--json"], { env }).stdout);
    expect(list.projects).toEqual([project]);
    expect(runCli(["resume", "--project", project], { env }).stdout).toContain("Resumed project");
    await capture(hooks, "11111111-aaaa-4000-8000-000000000003", project);
    expect(turnsOf(hooks, "11111111-aaaa-4000-8000-000000000003")).toBe(1);
    expect(runCli(["pause", "--list"], { env }).stdout).toBe("Nothing is paused.\n");
  });

  test("a paused session is skipped by hooks and by import", async () => {
    using t = tempDir("tl-never-");
    const { hooks, env } = setup(t);
    const id = "22222222-bbbb-4000-8000-000000000001";
    expect(runCli(["pause", "--session", id, "--json"], { env }).exitCode).toBe(0);
    await capture(hooks, id, join(t.path, "proj"));
    expect(turnsOf(hooks, id)).toBe(0);
    // History import: the same transcript under $CLAUDE_CONFIG_DIR/projects.
    const config = join(t.path, "claude");
    mkdirSync(join(config, "projects", "-proj"), { recursive: true });
    copyFileSync(hooks.transcriptPath(id), join(config, "projects", "-proj", `${id}.jsonl`));
    const importEnv = { ...env, CLAUDE_CONFIG_DIR: config };
    const skipped = runCli(["import", "--json", "--db", hooks.dbPath], { env: importEnv });
    expect(skipped.exitCode).toBe(0);
    expect(JSON.parse(skipped.stdout).totals.turns).toBe(0);
    runCli(["resume", "--session", id], { env });
    const imported = runCli(["import", "--json", "--db", hooks.dbPath], { env: importEnv });
    expect(JSON.parse(imported.stdout).totals.turns).toBe(1);
  });

  test("pause and resume refuse bad input in one line", () => {
    using t = tempDir("tl-never-");
    const { env } = setup(t);
    const both = runCli(["pause", "--project", "/x", "--session", "y"], { env });
    expect(both.exitCode).toBe(1);
    expect(both.stderr.trim().split("\n")).toHaveLength(1);
    expect(runCli(["resume", "--session", "not-paused"], { env }).stdout).toBe(
      "session not-paused was not paused.\n",
    );
  });
});
