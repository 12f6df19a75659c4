/**
 * A Codex fork (`codex exec fork <id>`, docs/hosts.md "Forks"): its rollout does not copy the
 * parent's history but names it in `session_meta.history_base`. The two rollouts in
 * test/fixtures/codex-fork/ were written by the real Codex 0.171.0 against the loopback stand-in,
 * with hooks injecting INJECTED-MARKER-<event>: parent turns p1 and p2 (a shell call), a fork after
 * p2 (f1 with a shell call), the parent resumed after the fork (p3), the fork resumed (f2).
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { memoryHash, tempDir } from "../../harness/db.ts";
import { findRollout } from "../../src/capture/codex-fork.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";

const DIR = join(import.meta.dir, "..", "fixtures", "codex-fork");
const PARENT = "01a24a1b-a7b8-7f73-800f-39e62a732296";
const FORK = "01a24a1b-ab6f-7a81-835e-b5a5ec257ac0";
const file = (id: string) => join(DIR, readdirSync(DIR).find((f) => f.endsWith(`-${id}.jsonl`))!);
const LATER = "2027-01-01T00:00:00.000Z";

/** The id of the parent's prompt `text` in its rollout: the fork point Codex recorded. */
function promptId(text: string): string {
  for (const line of readFileSync(file(PARENT), "utf8").split("\n")) {
    const r = line ? JSON.parse(line) : null;
    if (r?.payload?.role === "user" && r.payload.content?.[0]?.text === text) return r.payload.id;
  }
  throw new Error(`no prompt ${text}`);
}

const l2Keys = async (db: string, session: string) =>
  (
    JSON.parse(
      await cliInProcess(db, [
        "recall",
        "--l2",
        "--session",
        session,
        "--before",
        LATER,
        "--last",
        "10",
        "--json",
      ]),
    ) as { turns: { turn_key: string }[] }
  ).turns.map((t) => t.turn_key);

const searchKeys = async (db: string, words: string, session: string) =>
  (
    JSON.parse(await cliInProcess(db, ["search", words, "--session", session, "--json"])) as {
      results: { turn_key: string }[];
    }
  ).results.map((h) => h.turn_key);

function digest(db: Database): string {
  const links = db.query("SELECT id, chain, fork_uuid FROM sessions ORDER BY id").all();
  return JSON.stringify({ links, memory: memoryHash(db) });
}

describe("a codex fork (history_base)", () => {
  test("the fork's chain reads the parent's turns up to the fork point, then its own; the parent's stays its own", async () => {
    using t = tempDir("tl-codex-fork-");
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    ingestTranscript(db, { path: file(PARENT), now: 1 });
    ingestTranscript(db, { path: file(FORK), now: 1 });
    // Nothing copied: each session stores its own turns only.
    const own = db
      .query("SELECT origin_session_id AS o, count(*) AS n FROM turns GROUP BY 1 ORDER BY 1")
      .all();
    expect(own).toEqual([
      { o: PARENT, n: 3 },
      { o: FORK, n: 2 },
    ]);
    expect(db.query("SELECT fork_uuid FROM sessions WHERE id = $f").get({ f: FORK })).toEqual({
      fork_uuid: promptId("parent two TAG:p2 RUN:echo parent-shell"),
    });
    expect(db.query("SELECT count(*) AS n FROM bodies WHERE text LIKE '%INJECTED%'").get()).toEqual({ n: 0 });
    db.close();

    expect(await l2Keys(path, FORK)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:1`, `${FORK}:2`]);
    // The parent's turn after the fork is not the fork's, and the fork's are not the parent's.
    expect(await l2Keys(path, PARENT)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${PARENT}:3`]);
    // Search from the fork finds the parent's shell call up to the fork point, and its own.
    expect(await searchKeys(path, "p2", FORK)).toEqual([`${PARENT}:2`]);
    expect(await searchKeys(path, "f1", FORK)).toEqual([`${FORK}:1`]);
    expect(await searchKeys(path, "f1", PARENT)).toEqual([]);
    expect(await searchKeys(path, "p3", FORK)).toEqual([]);
    expect(await searchKeys(path, "p3", PARENT)).toEqual([`${PARENT}:3`]);
  });

  test("the fork read before its parent, or both again, gives the same rows and link", () => {
    using t = tempDir("tl-codex-fork-");
    const digests = [[file(PARENT), file(FORK)], [file(FORK), file(PARENT)], [DIR]].map((files, i) => {
      const db = openForWrite(join(t.path, `order${i}.db`));
      for (const f of files) replay(db, [f], { now: () => 1 });
      replay(db, [file(FORK), file(PARENT)], { now: () => 1 });
      const d = digest(db);
      db.close();
      return d;
    });
    expect(digests[1]).toBe(digests[0]!);
    expect(digests[2]).toBe(digests[0]!);
    expect(digests[0]).toContain(promptId("parent two TAG:p2 RUN:echo parent-shell"));
  });

  test("a parent rollout from another day of $CODEX_HOME/sessions is found; a missing one leaves the fork its own turns", async () => {
    using t = tempDir("tl-codex-fork-");
    const sessions = join(t.path, "codex", "sessions");
    const parentDay = join(sessions, "2026", "11", "30");
    const forkDay = join(sessions, "2026", "12", "06");
    for (const d of [parentDay, forkDay, join(t.path, "alone")]) mkdirSync(d, { recursive: true });
    const parentCopy = join(parentDay, `rollout-2026-11-30T23-59-00-${PARENT}.jsonl`);
    copyFileSync(file(PARENT), parentCopy);
    const forkCopy = join(forkDay, `rollout-2026-12-06T06-47-37-${FORK}.jsonl`);
    copyFileSync(file(FORK), forkCopy);
    expect(findRollout(forkCopy, PARENT)).toBe(parentCopy);
    const path = join(t.path, "tl.db");
    const db = openForWrite(path);
    replay(db, [sessions], { now: () => 1 });
    const alone = join(t.path, "alone", `rollout-2026-12-06T06-47-37-${FORK}.jsonl`);
    copyFileSync(file(FORK), alone);
    expect(findRollout(alone, PARENT)).toBeNull();
    db.close();
    expect(await l2Keys(path, FORK)).toEqual([`${PARENT}:1`, `${PARENT}:2`, `${FORK}:1`, `${FORK}:2`]);
    using u = tempDir("tl-codex-fork-alone-");
    const lone = openForWrite(join(u.path, "tl.db"));
    ingestTranscript(lone, { path: alone, now: 1 });
    expect(lone.query("SELECT fork_uuid FROM sessions").get()).toEqual({ fork_uuid: null });
    lone.close();
    expect(await l2Keys(join(u.path, "tl.db"), FORK)).toEqual([`${FORK}:1`, `${FORK}:2`]);
  });
});
