import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestInCuts, rng } from "../../harness/cuts.ts";
import { count, FIXTURES, memoryHash, SAMPLE, tempDb } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { subagentFiles } from "../../src/capture/ingest-subagent.ts";
import { replay } from "../../src/capture/replay.ts";
import { MAX_JSON_DEPTH } from "../../src/core/jsonl.ts";

describe("incremental capture", () => {
  test("ingesting twice gives the same rows", () => {
    using a = tempDb();
    replay(a.db, [SAMPLE]);
    const once = memoryHash(a.db);
    replay(a.db, [SAMPLE]);
    expect(memoryHash(a.db)).toBe(once);
    expect(count(a.db, "SELECT count(*) n FROM turns")).toBe(4);
  });

  for (const seed of [1, 2, 3, 4, 5])
    test(`random cut points (seed ${seed}) converge on the full replay`, () => {
      using full = tempDb();
      replay(full.db, [SAMPLE]);
      using cut = tempDb();
      const bytes = readFileSync(SAMPLE);
      const r = rng(seed);
      const cuts = Array.from({ length: 12 }, () => Math.floor(r() * bytes.length));
      const path = join(cut.dir, "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13.jsonl");
      ingestInCuts(path, bytes, cuts, () => ingestTranscript(cut.db, { path, now: 1 }));
      // Same memory, whatever the file path was.
      expect(memoryHash(cut.db)).toBe(memoryHash(full.db));
    });

  test("the next Stop re-reads the open turn but leaves its unchanged detail rows (and their index entries) alone", () => {
    using t = tempDb();
    const b = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000002");
    const path = join(t.dir, "s.jsonl");
    b.user("Read the config")
      .tool("Read", { file_path: "/p/config.ts" }, "export const a = 1;")
      .say("Read it.");
    writeFileSync(path, b.text());
    ingestTranscript(t.db, { path, now: 1 });
    const rows = () => t.db.query("SELECT id, turn_id, ord FROM details ORDER BY id").all();
    const before = rows();
    expect(before.length).toBeGreaterThan(0);
    b.user("Now the tests").tool("Bash", { command: "bun test" }, "3 pass").say("They pass.");
    writeFileSync(path, b.text());
    const res = ingestTranscript(t.db, { path, now: 2 });
    expect(res.turns).toBe(2); // the open turn is read again, with the new one
    // Turn 1's rows keep their ids: nothing was deleted and inserted again.
    const after = rows();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBeGreaterThan(before.length);
  });

  test("a turn that grows after its first Stop is updated, not duplicated, and later Stops keep working", () => {
    using t = tempDb();
    const b = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000001");
    const path = join(t.dir, "s.jsonl");
    b.user("Build the parser").say("Started: tokenizer done.");
    writeFileSync(path, b.text());
    ingestTranscript(t.db, { path, now: 1 });
    expect(t.db.query("SELECT text FROM bodies WHERE role = 'assistant'").get()).toEqual({
      text: "Started: tokenizer done.",
    });

    // Same turn continues (a second Stop in the same turn).
    b.tool("Bash", { command: "bun test" }, "3 pass");
    b.say("Parser done, 3 tests pass.");
    writeFileSync(path, b.text());
    ingestTranscript(t.db, { path, now: 2 });
    expect(count(t.db, "SELECT count(*) n FROM turns")).toBe(1);
    expect(t.db.query("SELECT text, final_text FROM bodies WHERE role = 'assistant'").get()).toEqual({
      text: "Started: tokenizer done.\n\nParser done, 3 tests pass.",
      final_text: "Parser done, 3 tests pass.",
    });
    expect(count(t.db, "SELECT count(*) n FROM details WHERE kind = 'tool_input'")).toBe(1);

    // Next turn and its Stop.
    b.user("Now the printer").say("Printer done.");
    writeFileSync(path, b.text());
    const r = ingestTranscript(t.db, { path, now: 3 });
    expect(r.turns).toBe(2); // the re-read open turn and the new one
    expect(count(t.db, "SELECT count(*) n FROM turns")).toBe(2);
    expect(t.db.query("SELECT turn_number, started_at FROM turns ORDER BY turn_number").values()).toEqual([
      [1, Date.parse("2026-03-01T09:00:01.000Z")],
      [2, Date.parse(b.time) - 1000],
    ]);
    // Nothing new: no work, no change.
    const h = memoryHash(t.db);
    expect(ingestTranscript(t.db, { path, now: 4 }).turns).toBe(0);
    expect(memoryHash(t.db)).toBe(h);
  });

  test("a replaced (shorter) file starts over for that transcript", () => {
    using t = tempDb();
    const path = join(t.dir, "s.jsonl");
    const long = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000002");
    long.user("one").say("1").user("two").say("2").user("three").say("3");
    writeFileSync(path, long.text());
    ingestTranscript(t.db, { path, now: 1 });
    const short = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000002");
    short.user("one").say("1 again");
    writeFileSync(`${path}.new`, short.text());
    copyFileSync(`${path}.new`, path);
    ingestTranscript(t.db, { path, now: 2 });
    expect(t.db.query("SELECT turn_number FROM turns").values()).toEqual([[1]]);
    expect(t.db.query("SELECT text FROM bodies WHERE role='assistant'").get()).toEqual({ text: "1 again" });
  });

  test("bad lines are counted once, however many Stops re-read the open turn", () => {
    using t = tempDb();
    const path = join(t.dir, "s.jsonl");
    const b = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000003");
    b.user("go").raw("garbage line");
    writeFileSync(path, b.text());
    expect(ingestTranscript(t.db, { path, now: 1 }).skippedLines).toBe(1);
    b.say("went");
    writeFileSync(path, b.text());
    expect(ingestTranscript(t.db, { path, now: 2 }).skippedLines).toBe(1);
    b.raw("{broken");
    writeFileSync(path, b.text());
    expect(ingestTranscript(t.db, { path, now: 3 }).skippedLines).toBe(2);
  });

  test("subagent files attach to the turn that started them", () => {
    using t = tempDb();
    replay(t.db, [join(FIXTURES, "transcripts")]);
    const row = t.db
      .query(
        `SELECT t.turn_number, d.input FROM details d JOIN turns t ON t.id = d.turn_id
         WHERE d.source = 'subagent' AND d.origin_session_id = '11111111-0000-4000-8000-000000000006'`,
      )
      .get();
    expect(row).toEqual({ turn_number: 1, input: "Review src/auth.ts" });
  });

  const nested = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

  test("a line nested 40,000 levels (tool input, toolUseResult, attachment) is skipped and counted; the lines after it land", () => {
    using t = tempDb();
    const path = join(t.dir, "s.jsonl");
    const b = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000004");
    b.user("first").say("one");
    b.raw(
      `{"type":"assistant","uuid":"d1","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":${nested(40_000)}}]}}`,
    );
    b.raw(
      `{"type":"user","uuid":"d2","toolUseResult":${nested(40_000)},"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}`,
    );
    b.raw(`{"type":"attachment","uuid":"d3","attachment":{"type":"x","v":${nested(40_000)}}}`);
    b.user("second").say("two");
    writeFileSync(path, b.text());
    const r = ingestTranscript(t.db, { path, now: 1 });
    expect(r.skippedLines).toBe(3);
    expect(
      t.db.query("SELECT text FROM bodies WHERE role = 'user' ORDER BY turn_id").values().flat(),
    ).toEqual(["first", "second"]);
    // The cursor moved past them: a later Stop reads only what is new, and counts nothing twice.
    b.user("third").say("three");
    writeFileSync(path, b.text());
    expect(ingestTranscript(t.db, { path, now: 2 }).skippedLines).toBe(3);
    expect(count(t.db, "SELECT count(*) n FROM turns")).toBe(3);
  });

  test(`nesting up to ${MAX_JSON_DEPTH} levels is kept, one more is skipped`, () => {
    using t = tempDb();
    const path = join(t.dir, "s.jsonl");
    const b = new TranscriptBuilder("bbbbbbbb-0000-4000-8000-000000000005");
    // The tool_use block sits 5 levels deep (entry, message, content, block, input).
    b.user("go");
    b.raw(
      `{"type":"assistant","uuid":"ok","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"x":${nested(MAX_JSON_DEPTH - 5)}}}]}}`,
    );
    b.raw(
      `{"type":"assistant","uuid":"no","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"x":${nested(MAX_JSON_DEPTH - 4)}}}]}}`,
    );
    writeFileSync(path, b.text());
    expect(ingestTranscript(t.db, { path, now: 1 }).skippedLines).toBe(1);
    expect(t.db.query("SELECT tool_use_id FROM details WHERE kind = 'tool_input'").values().flat()).toEqual([
      "t1",
    ]);
  });

  test("a transcript path that is a FIFO or a directory is refused in one line, never read", () => {
    using t = tempDb();
    const fifo = join(t.dir, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(() => ingestTranscript(t.db, { path: fifo, now: 1 })).toThrow(
      `transcript is not a regular file: ${fifo}`,
    );
    expect(() => ingestTranscript(t.db, { path: t.dir, now: 1 })).toThrow(/not a regular file/);
    expect(() => replay(t.db, [fifo])).toThrow(`not a regular file or directory: ${fifo}`);
    // Inside a folder, a FIFO is passed over and the rest is replayed.
    const folder = join(t.dir, "history");
    mkdirSync(join(folder, "s", "subagents"), { recursive: true });
    execFileSync("mkfifo", [join(folder, "other.jsonl")]);
    execFileSync("mkfifo", [join(folder, "s", "subagents", "agent-x.jsonl")]);
    copyFileSync(SAMPLE, join(folder, "s.jsonl"));
    expect(subagentFiles(join(folder, "s.jsonl"))).toEqual([]);
    expect(replay(t.db, [folder]).totals.files).toBe(1);
  });
});

describe("a transcript that cannot be read", () => {
  test("missing is 'not found'; any other failure says what it is", () => {
    using t = tempDb();
    expect(() => ingestTranscript(t.db, { path: join(t.dir, "gone.jsonl"), now: 1 })).toThrow(
      /^transcript not found: /,
    );
    const file = join(t.dir, "plain.txt");
    writeFileSync(file, "x");
    // A path through a file: stat fails with ENOTDIR, not ENOENT.
    expect(() => ingestTranscript(t.db, { path: join(file, "t.jsonl"), now: 1 })).toThrow(
      /^cannot read transcript .*ENOTDIR/,
    );
  });
});
