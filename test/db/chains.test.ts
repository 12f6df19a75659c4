/**
 * Chains keyed on the chain (docs/architecture.md, "Chains"): a merge moves no row, whatever the
 * chain's length; a database written before schema 5 (rows keyed on live ends) and an export
 * written before it read the same after the upgrade.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { seedChain } from "../../harness/pull.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { countChainTurns, loadContextInput } from "../../src/db/queries/chain.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";
import { chainKey, resolveLive } from "../../src/db/queries/sessions.ts";
import { MIGRATIONS } from "../../src/db/schema.ts";
import { SCHEMA_VERSION } from "../../src/db/version.ts";

const PROJECT = "/home/dev/chains";

/** A captured session of `turns` turns, each with a tool call (so it has details and events). */
function captured(db: Database, dir: string, id: string, turns: number, start: string): void {
  const b = new TranscriptBuilder(id, PROJECT, start);
  for (let i = 1; i <= turns; i++) {
    b.user(`${id.slice(0, 4)} step ${i}: edit module ${i}`);
    b.tool("Edit", { file_path: `${PROJECT}/src/m${i}.ts`, old_string: "a", new_string: "b" }, "ok");
    b.say(`${id.slice(0, 4)} done ${i}.`);
    b.tick(60_000);
  }
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, b.text());
  replay(db, [file], { now: () => Date.parse(start) });
}

const totalChanges = (db: Database) => (db.query("SELECT total_changes() AS n").get() as { n: number }).n;

/** Every turn and event row with the key it is stored under. */
const rowKeys = (db: Database) =>
  db
    .query("SELECT 't' || id AS r, session_id FROM turns UNION ALL SELECT 'e' || id, session_id FROM events")
    .all();

describe("chains keyed on the chain", () => {
  test("a merge moves no turn or event row and costs the same for 200 turns as for 2", () => {
    const cost: number[] = [];
    for (const n of [2, 200]) {
      using t = tempDir("tl-chain-");
      const db = openForWrite(join(t.path, "t.db"));
      const [a, b] = [
        `aaaaaaaa-0000-4000-8000-00000000${n.toString().padStart(4, "0")}`,
        "b0b0b0b0-0000-4000-8000-000000000001",
      ];
      captured(db, t.path, a, n, "2026-05-01T08:00:00.000Z");
      db.query("INSERT INTO sessions (id, project, created_at, updated_at) VALUES ($b, $p, 1, 1)").run({
        b,
        p: PROJECT,
      });
      const before = rowKeys(db);
      expect(before.length).toBeGreaterThanOrEqual(2 * n);
      const c0 = totalChanges(db);
      expect(db.transaction(() => mergeChain(db, a, b))()).toBe(n);
      cost.push(totalChanges(db) - c0);
      expect(rowKeys(db)).toEqual(before);
      // Every session of the chain answers with the whole chain; the live end is the new one.
      expect(chainKey(db, b)).toBe(chainKey(db, a));
      expect(resolveLive(db, a).id).toBe(b);
      expect(countChainTurns(db, b)).toBe(n);
      expect(loadContextInput(db, b)).toMatchObject({ sessionId: b, totalTurns: n });
      db.close();
    }
    expect(cost[1]).toBe(cost[0]!);
    // Session rows, and the content generation's one row their triggers raise (migration 10).
    expect(cost[0]).toBeLessThanOrEqual(5);
  });

  test("the push counts the summaries of the older turns only, not those of window turns, ties included", () => {
    using dir = tempDir();
    const db = openForWrite(join(dir.path, "tl.db"));
    const t0 = Date.UTC(2026, 0, 5, 9);
    // 30 turns, two in three summarized; turns 5 to 29 start in one millisecond, so older turns
    // and window turns share it: the window is cut by order, not by time.
    const turns = Array.from({ length: 30 }, (_, i) => ({
      startedAt: t0 + Math.min(i, 5) * 60_000,
      user: `prompt ${i}`,
      assistant: `reply ${i}`,
      ...(i % 3 === 2 ? {} : { summary: `summary of turn ${i}, long enough to count` }),
    }));
    seedChain(db, "s-sum", turns);
    const input = loadContextInput(db, "s-sum");
    expect(input.totalTurns).toBe(30);
    expect(input.window.length).toBe(20);
    // The 10 older turns are turns 0..9 in order (started_at, then turn number): 7 of them summarized.
    expect(input.olderSummarized).toBe(turns.slice(0, 10).filter((t) => "summary" in t).length);
    db.close();
  });

  test("a schema-4 database (rows keyed on the live end) migrates and reads the same from every session", () => {
    using t = tempDir("tl-chain-");
    const path = join(t.path, "old.db");
    const raw = new Database(path);
    raw.run("PRAGMA journal_mode = WAL");
    for (let i = 0; i < 4; i++) raw.run(MIGRATIONS[i] as string);
    raw.run("PRAGMA user_version = 4");
    // A → B → C merged the old way: every row moved to the live end C.
    raw.run(`INSERT INTO sessions (id, created_at, updated_at, merged_into) VALUES
      ('A', 1, 1, 'B'), ('B', 2, 2, 'C'), ('C', 3, 3, NULL), ('D', 4, 4, NULL)`);
    raw.run(`INSERT INTO turns (session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars)
      VALUES ('C', 'A', 1, 10, 11, 1, 1), ('C', 'B', 1, 20, 21, 1, 1), ('C', 'C', 1, 30, 31, 1, 1), ('D', 'D', 1, 40, 41, 1, 1)`);
    raw.close();
    const db = openForWrite(path);
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
    expect(["A", "B", "C"].map((s) => countChainTurns(db, s))).toEqual([3, 3, 3]);
    expect(countChainTurns(db, "D")).toBe(1);
    expect(db.query("SELECT id, chain FROM sessions ORDER BY id").all()).toEqual([
      { id: "A", chain: "C" },
      { id: "B", chain: "C" },
      { id: "C", chain: "C" },
      { id: "D", chain: "D" },
    ]);
    db.close();
  });

  test("an export written before schema 5 (no chain, rows on live ends) imports whole", () => {
    using t = tempDir("tl-chain-");
    const src = join(t.path, "src.db");
    const db = openForWrite(src);
    const [a, b] = ["aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"];
    captured(db, t.path, a, 3, "2026-05-01T08:00:00.000Z");
    captured(db, t.path, b, 2, "2026-05-01T09:00:00.000Z");
    db.transaction(() => mergeChain(db, a, b))();
    db.close();
    const out = join(t.path, "new.jsonl");
    expect(runCli(["export", "jsonl", "--out", out, "--db", src]).exitCode).toBe(0);
    // What the previous version wrote: no `chain` on sessions, turns and events on the live end.
    const old = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => {
        const r = JSON.parse(line);
        if (r.record === "session") delete r.chain;
        if ((r.record === "turn" || r.record === "event") && r.session_id === a) r.session_id = b;
        return JSON.stringify(r);
      });
    const oldFile = join(t.path, "old.jsonl");
    writeFileSync(oldFile, `${old.join("\n")}\n`);
    expect(old.some((l) => l.includes('"record":"session"') && l.includes('"chain"'))).toBe(false);
    const dst = join(t.path, "dst.db");
    const r = runCli(["import", "--from-export", oldFile, "--db", dst]);
    expect(r.stderr).toBe("");
    const check = openForRead(dst);
    expect([a, b].map((s) => countChainTurns(check, s))).toEqual([5, 5]);
    expect(chainKey(check, a)).toBe(b);
    check.close();
    // And the current export round-trips with its keys.
    const dst2 = join(t.path, "dst2.db");
    expect(runCli(["import", "--from-export", out, "--db", dst2]).exitCode).toBe(0);
    const again = openForRead(dst2);
    expect([a, b].map((s) => countChainTurns(again, s))).toEqual([5, 5]);
    again.close();
  });
});
