import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { count, memoryHash, tempDb } from "../../harness/db.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { RolloutBuilder, rolloutPath } from "../helpers/codex-rollout.ts";

// Codex rollouts are captured into the same tables as Claude Code transcripts (docs/hosts.md).
// The two fixtures were written by the real Codex 0.171.0 against a loopback stand-in, with hooks
// injecting INJECTED-MARKER-<event> as additionalContext.

const FIXTURES = join(import.meta.dir, "..", "fixtures", "codex");
const fixtures = () =>
  readdirSync(FIXTURES)
    .map((f) => join(FIXTURES, f))
    .sort();
const SMALL = "01a249f7-0d91-7310-8c8d-1fff9b446896";
const BIG = "01a249f8-4adb-7961-b2d6-a918d9cd42e6";

describe("codex capture", () => {
  test("recorded rollouts give their exact turns, tool calls and host, and none of the injected text", () => {
    using t = tempDb();
    for (const path of fixtures()) ingestTranscript(t.db, { path, now: 1 });
    const turns = (id: string) =>
      count(t.db, "SELECT count(*) AS n FROM turns WHERE origin_session_id = $id", { id });
    expect(turns(SMALL)).toBe(3);
    expect(turns(BIG)).toBe(4);
    expect(t.db.query("SELECT id, host FROM sessions ORDER BY id").all()).toEqual([
      { id: SMALL, host: "codex" },
      { id: BIG, host: "codex" },
    ]);
    // Four shell calls and one apply_patch, each with its input and output.
    expect(
      count(t.db, "SELECT count(*) AS n FROM details WHERE kind = 'tool_input' AND tool_name = 'Bash'"),
    ).toBe(4);
    expect(
      count(t.db, "SELECT count(*) AS n FROM details WHERE kind = 'tool_output' AND tool_name = 'Bash'"),
    ).toBe(4);
    const patch = t.db
      .query("SELECT input FROM details WHERE kind = 'tool_input' AND tool_name = 'apply_patch'")
      .get() as {
      input: string;
    };
    expect(JSON.parse(patch.input).patch).toContain("*** Add File: new.txt");
    const prompts = t.db
      .query(
        "SELECT b.text FROM bodies b JOIN turns t ON t.id = b.turn_id WHERE b.role = 'user' ORDER BY t.started_at",
      )
      .all()
      .map((r) => (r as { text: string }).text);
    expect(prompts).toEqual([
      "hello TAG:t1",
      "run it TAG:t2 RUN:echo hi-there",
      "patch TAG:t3 PATCH:new.txt",
      "first TAG:c1 RUN:git commit --allow-empty -m 'seed commit'",
      "failing TAG:c2 RUN:ls /nonexistent-dir",
      "big TAG:c3 TOKENS:5000",
      "after compaction TAG:c4 RUN:bun test --version",
    ]);
    // The hooks' context, the environment block and the base instructions are nowhere.
    for (const word of ["INJECTED", "environment_context", "skills_instructions"]) {
      const w = `%${word}%`;
      expect(count(t.db, "SELECT count(*) AS n FROM bodies WHERE text LIKE $w", { w })).toBe(0);
      expect(
        count(t.db, "SELECT count(*) AS n FROM details WHERE output LIKE $w OR input LIKE $w", { w }),
      ).toBe(0);
    }
    // The compaction's own reply is not the previous turn's text; its summary is an L3 row.
    const c3 = t.db
      .query(
        "SELECT b.text FROM bodies b JOIN turns t ON t.id = b.turn_id WHERE b.role = 'assistant' AND t.origin_session_id = $id AND t.turn_number = 3",
      )
      .get({ id: BIG }) as { text: string };
    expect(c3.text).toBe("[c3] done");
    expect(count(t.db, "SELECT count(*) AS n FROM details WHERE kind = 'compaction'")).toBe(1);
  });

  test("shell exit codes, apply_patch files and test runs become activity events", () => {
    using t = tempDb();
    for (const path of fixtures()) ingestTranscript(t.db, { path, now: 1 });
    const events = t.db.query("SELECT type, summary FROM events ORDER BY ts").all() as {
      type: string;
      summary: string;
    }[];
    expect(events.map((e) => e.type)).toEqual(["file_create", "error", "error", "test_run", "error"]);
    expect(events[0]!.summary).toBe("Created new.txt (1 lines)");
    expect(events[2]!.summary).toContain("Bash failed (exit 2): ls /nonexistent-dir");
    const failed = t.db
      .query("SELECT output, is_error FROM details WHERE output LIKE '%nonexistent-dir%'")
      .get() as {
      output: string;
      is_error: number;
    };
    expect(failed).toEqual({ output: expect.stringMatching(/^Exit code 2\n/), is_error: 1 });
  });

  test("a second read of the same rollouts changes nothing", () => {
    using t = tempDb();
    for (const path of fixtures()) ingestTranscript(t.db, { path, now: 1 });
    const before = memoryHash(t.db);
    for (const path of fixtures()) expect(ingestTranscript(t.db, { path, now: 2 }).turns).toBe(0);
    expect(memoryHash(t.db)).toBe(before);
  });

  test("a rollout read as it grows (resume appends) holds what one read of the whole holds", () => {
    using a = tempDb();
    using b = tempDb();
    const whole = readFileSync(fixtures()[1]!, "utf8");
    const path = join(a.dir, "sessions", `rollout-2026-12-06T06-08-58-${BIG}.jsonl`);
    mkdirSync(dirname(path), { recursive: true });
    const lines = whole.split("\n");
    writeFileSync(path, "");
    for (let i = 0; i < lines.length - 1; i += 7) {
      appendFileSync(path, `${lines.slice(i, i + 7).join("\n")}\n`);
      ingestTranscript(a.db, { path, now: 1 });
    }
    const copy = join(b.dir, `rollout-2026-12-06T06-08-58-${BIG}.jsonl`);
    writeFileSync(copy, whole);
    ingestTranscript(b.db, { path: copy, now: 1 });
    expect(memoryHash(a.db)).toBe(memoryHash(b.db));
  });

  test("the bytes read for one new turn are the same at turn 10 and at turn 1,000", () => {
    using t = tempDb();
    const id = "0000aaaa-0000-7000-8000-000000001000";
    const path = rolloutPath(t.dir, id);
    mkdirSync(dirname(path), { recursive: true });
    const b = new RolloutBuilder(id, "/tmp/p");
    const step = (i: number) =>
      b.turn(`step ${i} of the work`, `done with step ${i}`, {
        shell: { cmd: `echo ${i}`, output: `${i}\n`, exit: 0 },
        injected: `INJECTED ${i}`,
      });
    const cost: Record<number, number> = {};
    let written = 0;
    for (let i = 1; i <= 1000; i++) {
      step(i);
      const text = b.text();
      appendFileSync(path, text.slice(written));
      written = text.length;
      const r = ingestTranscript(t.db, { path, now: i });
      if (i === 10 || i === 1000) cost[i] = r.bytes;
    }
    expect(count(t.db, "SELECT count(*) AS n FROM turns")).toBe(1000);
    // Each run reads the open turn again and the new one: the same few lines, whatever came before.
    expect(Math.abs(cost[1000]! - cost[10]!)).toBeLessThan(50);
    expect(count(t.db, "SELECT count(*) AS n FROM bodies WHERE text LIKE '%INJECTED%'")).toBe(0);
  }, 60_000); // 1,000 runs: about 6 s on a busy two-core machine

  test("a reasoning summary is an L3 thinking row of its turn", () => {
    using t = tempDb();
    const id = "0000aaaa-0000-7000-8000-000000000002";
    const path = rolloutPath(t.dir, id);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(
      path,
      new RolloutBuilder(id, "/tmp/p").turn("why", "because", { reasoning: "weighing the options" }).text(),
    );
    ingestTranscript(t.db, { path, now: 1 });
    expect(t.db.query("SELECT kind, output FROM details").all()).toEqual([
      { kind: "thinking", output: "weighing the options" },
    ]);
  });
});
