/**
 * The prepared push (docs/contract.md, "The prepared push"): what the Stop worker renders for a
 * successor must be, once the successor's id is in, exactly what the handoff would render after
 * merging the chain; on every chain of the corpus and of the project's fixtures, and through the
 * real hooks, where any change in between (a new turn, a summary, a merge, a forget) must make
 * the handoff render instead.
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CORPUS, tempDb, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { renderContext } from "../../src/core/context.ts";
import { openForWrite } from "../../src/db/open.ts";
import { loadContextInput } from "../../src/db/queries/chain.ts";
import { deleteSelection } from "../../src/db/queries/forget.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";
import { contentGeneration, getPrepared, PREPARED_MAX, putPrepared } from "../../src/db/queries/prepared.ts";
import { upsertSession } from "../../src/db/queries/sessions.ts";
import { preparePush } from "../../src/hooks/prepared-push.ts";
import { HookDriver } from "../helpers/hooks.ts";

const INV = "/usr/local/bin/throughline";
const FIXTURES = join(import.meta.dir, "..", "fixtures", "transcripts");
const CORPUS_DIR = join(CORPUS, "transcripts");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUCCESSOR = "99999999-9999-4999-8999-999999999999";

/** Every live end with turns and a client-shaped id: the chains a /clear could continue. */
function liveEnds(db: Database): string[] {
  return db
    .query<{ id: string }, []>(
      `SELECT s.id FROM sessions s WHERE s.merged_into IS NULL
         AND EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.chain) ORDER BY s.id`,
    )
    .all()
    .map((r) => r.id)
    .filter((id) => UUID.test(id));
}

/** For each chain: the prepared push with the successor's id in, and the render after the merge. */
function compareEveryChain(dirs: string[]): number {
  using env = tempDb();
  const { db } = env;
  replay(db, dirs);
  const chains = liveEnds(db);
  for (const live of chains) {
    preparePush(db, live, INV, Date.UTC(2026, 0, 1));
    const row = getPrepared(db, live);
    expect(row).not.toBeNull();
    db.run("SAVEPOINT handoff");
    try {
      // What the handoff does to the chain before it renders: the successor's row, then the merge.
      upsertSession(db, { id: SUCCESSOR, project: null, transcriptPath: null, createdAt: 1, updatedAt: 1 });
      mergeChain(db, live, SUCCESSOR);
      const rendered = renderContext(loadContextInput(db, SUCCESSOR), INV);
      expect({ chain: live, text: row!.text.split(row!.placeholder).join(SUCCESSOR) }).toEqual({
        chain: live,
        text: rendered.text,
      });
      expect(row!.stats).toEqual(rendered.stats);
    } finally {
      db.run("ROLLBACK TO handoff");
      db.run("RELEASE handoff");
    }
  }
  return chains.length;
}

describe("the prepared push equals the rendered one", () => {
  test("on every chain of the project's fixtures", () => {
    expect(compareEveryChain([FIXTURES])).toBeGreaterThan(0);
  });

  test.skipIf(!existsSync(CORPUS_DIR))(
    "on every chain of the corpus",
    () => {
      expect(compareEveryChain([CORPUS_DIR])).toBeGreaterThanOrEqual(30);
    },
    120_000,
  );
});

const S = "11111111-aaaa-4bbb-8ccc-111111111111";
const N = "22222222-aaaa-4bbb-8ccc-222222222222";
const OTHER = "33333333-aaaa-4bbb-8ccc-333333333333";
const MIN = 60_000;

type Change = (h: HookDriver, b: TranscriptBuilder) => Promise<void> | void;

/**
 * Turns of S captured by their Stops (by one Stop at the end, past the 20-turn window: it
 * summarizes one older turn and leaves the rest), /clear, then N's first prompt; `change` runs
 * between the last Stop and the /clear.
 */
async function clearFlow(dir: string, turns: number, change?: Change, dropPrepared = false) {
  const h = new HookDriver(dir, undefined, { marksKept: true });
  h.env.THROUGHLINE_SUMMARIZER = "extractive";
  const b = new TranscriptBuilder(S, "/home/dev/project", new Date(h.clock).toISOString());
  await h.fire("session-start", S, { source: "startup" });
  for (let i = 1; i <= turns; i++) {
    b.user(`prompt ${i}: look at src/m${i}.ts`).say(`Reading it.`);
    b.tool("Read", { file_path: `/home/dev/project/src/m${i}.ts` }, `export const m${i} = ${i};`);
    b.say(`answer ${i}: m${i} is ${i}`);
    h.write(b);
    h.advance(MIN);
    if (turns <= 20 || i === turns)
      await h.fire("stop", S, {
        stop_hook_active: false,
        last_assistant_message: `answer ${i}: m${i} is ${i}`,
      });
  }
  if (change) await change(h, b);
  await h.fire("session-end", S, { reason: "clear" });
  h.advance(1000);
  await h.fire("session-start", N, { source: "clear" });
  if (dropPrepared) {
    const db = openForWrite(h.dbPath);
    db.run("DELETE FROM prepared_pushes");
    db.close();
  }
  h.advance(5000);
  const out = await h.fire("user-prompt-submit", N, { prompt: "go on" });
  const prepared = h.read(
    (db) =>
      db
        .query<{ prepared: number }, { s: string }>("SELECT prepared FROM injections WHERE session_id = $s")
        .get({
          s: N,
        })?.prepared ?? null,
  );
  return { push: out.stdout, prepared };
}

/** The same flow twice: as it comes, and with the prepared push taken away before the prompt. */
async function both(turns: number, change?: Change) {
  using a = tempDir();
  using b = tempDir();
  const got = await clearFlow(a.path, turns, change);
  const reference = await clearFlow(b.path, turns, change, true);
  expect(reference.prepared).toBe(0);
  expect(reference.push.length).toBeGreaterThan(0);
  expect(got.push).toBe(reference.push);
  return got;
}

describe("the prepared push through the hooks (docs/contract.md, 'The prepared push')", () => {
  test("nothing changed since the last Stop: the first prompt after /clear prints the prepared push", async () => {
    const got = await both(4);
    expect(got.prepared).toBe(1);
    expect(got.push).toContain("answer 4: m4 is 4");
  });

  test("a new turn after the last Stop (read at the /clear): rendered, the same text", async () => {
    const got = await both(4, (h, b) => {
      b.user("prompt 5: one more").say("answer 5: the late one");
      h.write(b);
      h.advance(MIN);
    });
    expect(got.prepared).toBe(0);
    expect(got.push).toContain("answer 5: the late one");
  });

  test("a summary made after the last Stop: rendered, the same text", async () => {
    const got = await both(24, async (h) => {
      const db = openForWrite(h.dbPath);
      try {
        const before = contentGeneration(db);
        const { summarizeNext } = await import("../../src/capture/summarize.ts");
        summarizeNext(db, S, { ...h.env, THROUGHLINE_SUMMARIZER: "extractive" }, h.clock);
        expect(contentGeneration(db)).toBeGreaterThan(before);
      } finally {
        db.close();
      }
    });
    expect(got.prepared).toBe(0);
  });

  test("a merge into the chain after the last Stop: rendered, the same text", async () => {
    const got = await both(4, async (h) => {
      const o = new TranscriptBuilder(OTHER, "/home/dev/project", new Date(h.clock - 30 * MIN).toISOString());
      o.user("other window: what is in README.md").say("other answer: the readme");
      h.write(o);
      await h.fire("stop", OTHER, { stop_hook_active: false });
      const db = openForWrite(h.dbPath);
      try {
        mergeChain(db, OTHER, S);
      } finally {
        db.close();
      }
    });
    expect(got.prepared).toBe(0);
    expect(got.push).toContain("other answer: the readme");
  });

  test("a forget after the last Stop: rendered, the same text", async () => {
    const got = await both(4, (h) => {
      const db = openForWrite(h.dbPath);
      try {
        deleteSelection(db, { session: null, before: null, project: null, match: "answer 4" });
      } finally {
        db.close();
      }
    });
    expect(got.prepared).toBe(0);
    expect(got.push).not.toContain("answer 4: m4 is 4");
  });

  test("rows are kept for the newest PREPARED_MAX live ends only", () => {
    using env = tempDb();
    const stats = renderContext(loadContextInput(env.db, S), INV).stats;
    const id = (i: number) => `${String(i).padStart(8, "0")}-aaaa-4bbb-8ccc-000000000000`;
    for (let i = 1; i <= PREPARED_MAX + 4; i++)
      putPrepared(env.db, {
        session_id: id(i),
        generation: 0,
        version: "v",
        invocation: INV,
        placeholder: id(0),
        text: "x",
        stats,
        created_at: i,
      });
    const kept = env.db
      .query<{ session_id: string }, []>("SELECT session_id FROM prepared_pushes ORDER BY created_at")
      .all()
      .map((r) => r.session_id);
    expect(kept).toEqual(Array.from({ length: PREPARED_MAX }, (_, i) => id(i + 5)));
  });

  test("a prepared row leaves with its chain: the handoff that merges the chain takes it", async () => {
    using dir = tempDir();
    const got = await clearFlow(dir.path, 2);
    expect(got.prepared).toBe(1);
    const h = new HookDriver(dir.path);
    // The chain's live end is N now: S's row went with the handoff that used it.
    expect(h.read((db) => db.query("SELECT count(*) AS n FROM prepared_pushes").get())).toEqual({ n: 0 });
  });
});
