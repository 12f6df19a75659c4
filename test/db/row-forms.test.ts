/**
 * Schema 11's compact rows (src/db/row-forms.ts, docs/architecture.md "What a row costs"): a
 * turn's details keyed on the turn's row id, a reply that is the turn's whole text stored once,
 * the preamble index in place of the per-transcript one. A database written in the forms before
 * (here: the same rows turned back into them, at schema 10) migrates, reads, exports, re-ingests
 * and imports exactly as one written in the new forms.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { count, FIXTURES, memoryHash, runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { bakedCommands } from "../../harness/pull.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForRead, openForWrite, withReader } from "../../src/db/open.ts";
import { originCounts } from "../../src/db/queries/counts.ts";
import { detailKey, FINAL_TEXT, storedFinal } from "../../src/db/row-forms.ts";
import { MIGRATIONS } from "../../src/db/schema.ts";
import { SCHEMA_VERSION } from "../../src/db/version.ts";
import { bakedArgs, chainsWithLongestPrompt, cliInProcess } from "../helpers/cli-in-process.ts";

const SOURCES = [join(FIXTURES, "pull"), dirname(SAMPLE), join(FIXTURES, "transcripts")];
const NOW = () => Date.parse("2026-03-02T02:00:00Z");

let dir: ReturnType<typeof tempDir>;
let fresh: string;
let old: string;

/**
 * A schema-10 database (its migrations, triggers and indexes) holding the rows of `from` in the
 * forms schema 10 wrote: every transcript detail keyed on its transcript, every reply stored
 * whole. Row ids are kept, and the full-text indexes are filled by its triggers.
 */
function schema10Copy(from: string, path: string): void {
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const raw = new Database(path);
  for (let i = 0; i < 10; i++) {
    const m = MIGRATIONS[i]!;
    if (typeof m === "string") raw.run(m);
    else m(raw);
  }
  raw.run("PRAGMA user_version = 10");
  raw.run(`ATTACH '${from}' AS f`);
  const overrides: Record<string, Record<string, string>> = {
    bodies: { final_text: FINAL_TEXT("b") },
    details: {
      ikey: `CASE WHEN d.source = 'transcript' AND d.turn_id IS NOT NULL
               THEN d.origin_session_id || ':' || (SELECT turn_number FROM f.turns t WHERE t.id = d.turn_id) || ':' || d.ord
               ELSE d.ikey END`,
    },
  };
  const alias: Record<string, string> = { bodies: "b", details: "d" };
  const tables = (
    raw.query("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]
  )
    .map((r) => r.name)
    .filter((n) => !n.includes("_fts") && n !== "content_generation");
  raw.run("BEGIN");
  for (const t of tables) {
    const cols = (raw.query(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
    const a = alias[t] ?? "x";
    const select = cols.map((c) => overrides[t]?.[c] ?? `${a}.${c}`).join(", ");
    raw.run(`INSERT INTO main.${t} (${cols.join(", ")}) SELECT ${select} FROM f.${t} ${a}`);
  }
  raw.run("COMMIT");
  raw.run("DETACH f");
  raw.close();
}

const hashOf = (path: string): string => withReader(path, memoryHash);
const detailsOf = (path: string): number =>
  withReader(path, (db) => count(db, "SELECT count(*) n FROM details"));

/** What a model or a person reads of every chain, as printed. */
async function views(db: string): Promise<Record<string, string>> {
  const v: Record<string, string> = {};
  for (const c of chainsWithLongestPrompt(db)) {
    v[`${c.live} context`] = await cliInProcess(db, ["context", "--session", c.live, "--json"]);
    const baked = bakedCommands(await cliInProcess(db, ["context", "--session", c.live]));
    if (baked.l2) v[`${c.live} l2`] = await cliInProcess(db, [...bakedArgs(baked.l2), "--json"]);
    v[`${c.live} detail`] = await cliInProcess(db, [
      "detail",
      new Date(c.last).toISOString(),
      "--session",
      c.live,
      "--json",
    ]);
    v[`${c.live} search`] = await cliInProcess(db, ["search", "the", "--session", c.live, "--json"]);
  }
  return v;
}

beforeAll(() => {
  dir = tempDir("tl-row-forms-");
  fresh = join(dir.path, "fresh.db");
  old = join(dir.path, "old.db");
  const w = openForWrite(fresh);
  replay(w, SOURCES, { now: NOW });
  w.close();
  schema10Copy(fresh, old);
});
afterAll(() => dir[Symbol.dispose]());

describe("the forms rows are written in", () => {
  test("a reply that is all of the turn's text is stored as '' and reads back whole; another is kept as it is", () => {
    expect(storedFinal("Done.", "Done.")).toBe("");
    expect(storedFinal("Looked.\n\nDone.", "Done.")).toBe("Done.");
    expect(storedFinal("", null)).toBeNull();
    const db = openForRead(fresh);
    try {
      const rows = db
        .query<{ text: string; stored: string | null; read: string | null }, []>(
          `SELECT text, final_text AS stored, ${FINAL_TEXT("b")} AS read FROM bodies b WHERE role = 'assistant'`,
        )
        .all();
      const same = rows.filter((r) => r.stored === "");
      const apart = rows.filter((r) => r.stored !== "" && r.stored !== null);
      expect(same.length).toBeGreaterThan(0);
      expect(apart.length).toBeGreaterThan(0);
      for (const r of same) expect(r.read).toBe(r.text);
      for (const r of apart) {
        expect(r.read).toBe(r.stored);
        expect(r.read).not.toBe(r.text);
      }
    } finally {
      db.close();
    }
  });

  test("a turn's details are keyed on its row id, the rows before a first prompt on their transcript", () => {
    expect(detailKey(12, "s", 3, 0)).toBe("12:0");
    expect(detailKey(null, "s", 0, 2)).toBe("s:0:2");
    const db = openForRead(fresh);
    try {
      const bad = db
        .query<{ n: number }, []>(
          `SELECT count(*) AS n FROM details
           WHERE source = 'transcript' AND turn_id IS NOT NULL AND ikey <> turn_id || ':' || ord`,
        )
        .get()!.n;
      expect(bad).toBe(0);
      expect(count(db, "SELECT count(*) n FROM details WHERE turn_id IS NOT NULL")).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  test("details are counted and deleted through indexes: no statement scans the table", () => {
    const db = openForRead(fresh);
    try {
      const plan = (sql: string) =>
        (db.query(`EXPLAIN QUERY PLAN ${sql}`).all({ origin: "x" }) as { detail: string }[]).map(
          (r) => r.detail,
        );
      for (const sql of [
        "SELECT count(*) FROM turns t JOIN details d ON d.turn_id = t.id WHERE t.origin_session_id = $origin",
        "SELECT count(*) FROM details WHERE turn_id IS NULL AND origin_session_id = $origin",
        "SELECT id FROM details WHERE origin_session_id = $origin AND turn_id IS NULL AND source = 'transcript'",
      ])
        expect(plan(sql).filter((d) => /^SCAN (d|details)\b/.test(d))).toEqual([]);
      const origin = db
        .query<{ o: string }, []>(
          "SELECT t.origin_session_id AS o FROM turns t JOIN details d ON d.turn_id = t.id GROUP BY 1 ORDER BY count(*) DESC LIMIT 1",
        )
        .get()!.o;
      const c = originCounts(db, origin);
      expect(c.details).toBe(
        count(db, "SELECT count(*) n FROM details WHERE origin_session_id = $o", { o: origin }),
      );
      expect(c.details).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});

describe("a database in the forms before (schema 10)", () => {
  test("migrates to schema 11: the per-transcript index gives way to the preamble one, no row changes", () => {
    const w = openForWrite(old);
    try {
      expect((w.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(
        SCHEMA_VERSION,
      );
      const indexes = (
        w.query("SELECT name FROM sqlite_schema WHERE type = 'index'").all() as { name: string }[]
      ).map((r) => r.name);
      expect(indexes).toContain("details_loose");
      expect(indexes).not.toContain("details_origin");
      // The old forms are still there: nothing was rewritten.
      expect(count(w, "SELECT count(*) n FROM bodies WHERE final_text = ''")).toBe(0);
      expect(
        count(w, "SELECT count(*) n FROM details WHERE turn_id IS NOT NULL AND ikey = turn_id || ':' || ord"),
      ).toBe(0);
      expect(memoryHash(w)).toBe(hashOf(fresh));
    } finally {
      w.close();
    }
  });

  test("reads exactly as the new forms: context, the baked --l2, detail and search of every chain", async () => {
    const a = await views(fresh);
    const b = await views(old);
    expect(Object.keys(a).length).toBeGreaterThan(4);
    expect(b).toEqual(a);
  });

  test("exports the same file: the natural keys whatever the stored form", () => {
    const out = (db: string, name: string) => {
      const file = join(dir.path, name);
      const r = runCli(["export", "jsonl", "--out", file, "--db", db]);
      expect(r.exitCode).toBe(0);
      return readFileSync(file, "utf8").replace(/"exported_at":"[^"]+"/, "");
    };
    const a = out(fresh, "fresh.jsonl");
    expect(a).toContain(`"ikey":"`);
    expect(out(old, "old.jsonl")).toBe(a);
  });

  test("a replay of the same transcripts and an import of its own export add nothing and change nothing", () => {
    const w = openForWrite(old);
    try {
      const hash = memoryHash(w);
      const rows = count(w, "SELECT count(*) n FROM details");
      // Every file read again from its first byte, every turn's rows compared and kept.
      w.run("DELETE FROM ingest_cursors");
      replay(w, SOURCES, { now: NOW });
      expect(count(w, "SELECT count(*) n FROM details")).toBe(rows);
      expect(memoryHash(w)).toBe(hash);
    } finally {
      w.close();
    }
    const r = runCli(["import", "--from-export", join(dir.path, "fresh.jsonl"), "--db", old, "--json"]);
    expect(r.exitCode).toBe(0);
    const db = openForRead(old);
    try {
      expect(memoryHash(db)).toBe(hashOf(fresh));
      expect(count(db, "SELECT count(*) n FROM details")).toBe(detailsOf(fresh));
    } finally {
      db.close();
    }
  });
});
