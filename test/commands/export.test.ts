/**
 * `export jsonl` and `import --from-export` (docs/export.md) on the project's own fixtures:
 * the file's shape, a restore into an empty database that answers every pull, search and
 * activity query exactly as the original does, idempotence, chains, redaction, bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FIXTURES, memoryHash, runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { bakedCommands } from "../../harness/pull.ts";
import { replay } from "../../src/capture/replay.ts";
import { EXPORT_SCHEMA, parseRecord } from "../../src/core/export-format.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";
import { bakedArgs, chainsWithLongestPrompt, cliInProcess } from "../helpers/cli-in-process.ts";
import { SECRETS } from "../helpers/secrets.ts";

let dir: ReturnType<typeof tempDir>;
let original: string;
let file: string;

/** Every read a model or a person makes of one chain, as printed. */
async function views(
  db: string,
  session: string,
  word: string,
  now: string,
): Promise<Record<string, string>> {
  const v: Record<string, string> = {};
  v.context = await cliInProcess(db, ["context", "--session", session]);
  v.contextJson = await cliInProcess(db, ["context", "--session", session, "--json"]);
  const baked = bakedCommands(v.context);
  if (baked.l2) {
    v.l2 = await cliInProcess(db, bakedArgs(baked.l2));
    v.l2Json = await cliInProcess(db, [...bakedArgs(baked.l2), "--json"]);
  }
  if (baked.l1) {
    v.l1 = await cliInProcess(db, bakedArgs(baked.l1));
    v.l1Json = await cliInProcess(db, [...bakedArgs(baked.l1), "--json"]);
  }
  v.search = await cliInProcess(db, ["search", word, "--session", session]);
  v.searchAll = await cliInProcess(db, ["search", word, "--all", "--json"]);
  v.recall = await cliInProcess(db, ["recall", "--session", session, "--now", now]);
  v.recallWords = await cliInProcess(db, ["recall", word, "--session", session, "--now", now]);
  v.recallErrors = await cliInProcess(db, ["recall", "errors", "--session", session, "--now", now, "--json"]);
  v.status = await cliInProcess(db, ["status", "--session", session, "--json"]);
  return v;
}

interface Chain {
  live: string;
  word: string;
  now: string;
}

function chains(db: string): Chain[] {
  return chainsWithLongestPrompt(db).map((c) => ({
    live: c.live,
    // The longest word of the chain's longest prompt: a term its search and recall must find.
    word:
      [...(c.prompt ?? "").matchAll(/[\p{L}\p{N}_]{4,}/gu)]
        .map((m) => m[0])
        .sort((a, b) => b.length - a.length)[0] ?? "the",
    now: new Date(c.last + 60_000).toISOString(),
  }));
}

beforeAll(() => {
  dir = tempDir("tl-export-");
  original = join(dir.path, "original.db");
  file = join(dir.path, "memory.jsonl");
  const w = openForWrite(original);
  replay(
    w,
    [
      join(FIXTURES, "pull"),
      dirname(SAMPLE),
      join(FIXTURES, "activity", "search-session.jsonl"),
      join(FIXTURES, "transcripts"),
    ],
    { now: () => Date.parse("2026-03-02T02:00:00Z") },
  );
  // L1 summaries (one failed), and a chain: the sample session continued in the pull fixture's.
  w.query(
    `INSERT INTO skeletons (turn_id, summary, backend, error, created_at)
     SELECT id, CASE turn_number WHEN 2 THEN NULL ELSE 'Asked ' || turn_number || ': parser work.' END,
            'extractive', CASE turn_number WHEN 2 THEN 'backend timed out' END, 5
     FROM turns WHERE turn_number IN (1, 2, 3)`,
  ).run();
  w.transaction(() =>
    mergeChain(w, "11111111-0000-4000-8000-000000000007", "5e1f0c2a-9b7d-4c3e-8a21-0f6b2d9c4e17"),
  )();
  w.close();
  const r = runCli(["export", "jsonl", "--out", file, "--db", original, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
});
afterAll(() => dir[Symbol.dispose]());

describe("export jsonl", () => {
  test("one record per line: a header, sessions, turns, details, events, summaries, an end with the counts", () => {
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    const records = lines.map((l, i) => parseRecord(l, i + 1));
    expect(records[0]).toMatchObject({ record: "header", schema: EXPORT_SCHEMA });
    const kinds = records.map((r) => r.record);
    const order = ["header", "session", "turn", "detail", "event", "summary", "end"];
    expect(kinds.map((k) => order.indexOf(k))).toEqual(
      kinds.map((k) => order.indexOf(k)).sort((a, b) => a - b),
    );
    const end = records.at(-1);
    const r = openForRead(original);
    try {
      const n = (t: string) => (r.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
      expect(end).toEqual({
        record: "end",
        counts: {
          sessions: n("sessions"),
          turns: n("turns"),
          details: n("details"),
          events: n("events"),
          summaries: n("skeletons"),
        },
      });
      expect(n("skeletons")).toBeGreaterThan(0);
    } finally {
      r.close();
    }
    // Every turn carries both L2 rows.
    const turn = records.find((x) => x.record === "turn");
    expect(turn).toHaveProperty("user");
    expect(turn).toHaveProperty("assistant");
  });

  test("stdout is the export itself; a terminal or --json without --out is refused in one line", () => {
    const r = runCli(["export", "jsonl", "--db", original]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      readFileSync(file, "utf8").replace(
        /"exported_at":"[^"]+"/,
        r.stdout.match(/"exported_at":"[^"]+"/)![0],
      ),
    );
    const j = runCli(["export", "jsonl", "--db", original, "--json"]);
    expect(j.exitCode).toBe(1);
    expect(j.stderr.trim().split("\n")).toHaveLength(1);
    expect(j.stderr).toContain("--out");
  });

  test("redacted text stays redacted: no secret of the fixture is in the file", () => {
    const text = readFileSync(file, "utf8");
    expect(text).toContain("[REDACTED");
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });
});

describe("import --from-export into an empty database", () => {
  let restored: string;
  beforeAll(() => {
    restored = join(dir.path, "restored.db");
    const r = runCli(["import", "--from-export", file, "--db", restored, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.turns.kept).toBe(0);
    expect(report.turns.added).toBeGreaterThan(0);
  });

  test("holds the same memory, chains (merged_into) included", () => {
    const a = openForRead(original);
    const b = openForRead(restored);
    try {
      expect(memoryHash(b)).toBe(memoryHash(a));
      const sessions =
        "SELECT id, project, transcript_path, created_at, updated_at, merged_into, title FROM sessions ORDER BY id";
      expect(b.query(sessions).all()).toEqual(a.query(sessions).all());
      expect(b.query("SELECT merged_into FROM sessions WHERE merged_into IS NOT NULL").all()).toHaveLength(1);
    } finally {
      a.close();
      b.close();
    }
  });

  test("context, recall --l2/--l1, search, recall <words> and status print the same as on the original", async () => {
    const list = chains(original);
    expect(list.length).toBeGreaterThan(3);
    let pulled = 0;
    for (const c of list) {
      const want = await views(original, c.live, c.word, c.now);
      const got = await views(restored, c.live, c.word, c.now);
      // status reports the file's own size and path: compare everything else.
      const strip = (s: string) => s.replace(/"(db_bytes|database|path|size_bytes|bytes)": [^\n]+\n/g, "");
      want.status = strip(want.status!);
      got.status = strip(got.status!);
      expect(got).toEqual(want);
      if (want.l1 && want.l2) pulled++;
    }
    // At least one chain is long enough for the push to leave turns to both pulls.
    expect(pulled).toBeGreaterThan(0);
  });

  test("importing the file twice changes nothing", () => {
    const before = openForRead(restored);
    const hash = memoryHash(before);
    before.close();
    const r = runCli(["import", "--from-export", file, "--db", restored, "--json"]);
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout);
    for (const k of ["sessions", "turns", "details", "events", "summaries"]) expect(report[k].added).toBe(0);
    const after = openForRead(restored);
    try {
      expect(memoryHash(after)).toBe(hash);
      expect((after.query("SELECT count(*) AS n FROM turns").get() as { n: number }).n).toBe(
        report.turns.kept,
      );
    } finally {
      after.close();
    }
  });
});

describe("import --from-export: bad input is one line and writes nothing", () => {
  function attempt(name: string, text: string) {
    const f = join(dir.path, name);
    writeFileSync(f, text);
    const db = join(dir.path, `${name}.db`);
    const r = runCli(["import", "--from-export", f, "--db", db]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toContain("    at ");
    const check = openForRead(db);
    try {
      expect((check.query("SELECT count(*) AS n FROM turns").get() as { n: number }).n).toBe(0);
      expect((check.query("SELECT count(*) AS n FROM sessions").get() as { n: number }).n).toBe(0);
    } finally {
      check.close();
    }
    return r.stderr;
  }
  const lines = () => readFileSync(file, "utf8").trimEnd().split("\n");

  test("a truncated file (no end record)", () => {
    expect(attempt("truncated.jsonl", `${lines().slice(0, 20).join("\n")}\n`)).toContain("end record");
  });
  test("a transcript, not an export", () => {
    const transcript = readFileSync(SAMPLE, "utf8");
    expect(attempt("transcript.jsonl", transcript)).toContain("not a throughline.export.v1 file");
  });
  test("a damaged record names its line and field", () => {
    const l = lines();
    const i = l.findIndex((x) => x.includes('"record":"turn"'));
    l[i] = l[i]!.replace(/"turn_number":\d+/, '"turn_number":"two"');
    expect(attempt("damaged.jsonl", `${l.join("\n")}\n`)).toContain(`line ${i + 1}: turn.turn_number`);
  });
  test("a missing file", () => {
    const r = runCli([
      "import",
      "--from-export",
      join(dir.path, "nope.jsonl"),
      "--db",
      join(dir.path, "x.db"),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`throughline: no such file: ${join(dir.path, "nope.jsonl")}\n`);
  });
});
