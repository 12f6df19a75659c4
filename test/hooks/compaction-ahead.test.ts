/**
 * The push after compaction printed ahead (docs/contract.md, "After compaction"): PreCompact asks
 * for a rehearsal of the push SessionStart(compact) will print, run while the client compacts;
 * SessionStart(compact) prints what it kept when nothing it read has changed, and a follow-up
 * records the push. The text must be exactly what SessionStart renders without the rehearsal, the
 * rows the same, and the next compaction's push the same too (it starts after this one).
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { handoffState } from "../../src/db/marks/ahead.ts";
import { PUSH_AHEAD_ENV } from "../../src/hooks/flags.ts";
import { eventually, HookDriver, hookProcess, otherWindowsTurn } from "../helpers/hooks.ts";

const PROJECT = "/home/dev/project";
const MIN = 60_000;
const SID = "c1c1c1c1-aaaa-4bbb-8ccc-c1c1c1c1c1c1";
const OTHER = "d1d1d1d1-aaaa-4bbb-8ccc-d1d1d1d1d1d1";

type Change = (h: HookDriver, b: TranscriptBuilder) => Promise<void> | void;

/** One turn mentioning FOOBAR<i>, captured by its Stop; ~2,500 characters so not all fit a push. */
async function turn(h: HookDriver, b: TranscriptBuilder, i: number): Promise<void> {
  b.user(`step ${i}: look at FOOBAR${i}`).say(`FOOBAR${i} is done. ${"detail ".repeat(330)}`);
  h.write(b);
  h.advance(MIN);
  await h.fire("stop", SID, { stop_hook_active: false });
}

/** A session of three stored turns, in a database whose marks are kept. */
async function threeTurns(dir: string) {
  const h = new HookDriver(dir, undefined, { marksKept: true });
  const b = new TranscriptBuilder(SID, PROJECT, new Date(h.clock).toISOString());
  await h.fire("session-start", SID, { source: "startup" });
  for (let i = 0; i < 3; i++) await turn(h, b, i);
  return { h, b };
}

/** The boundary and the summary, which the client writes after SessionStart(compact) returns. */
function boundary(h: HookDriver, b: TranscriptBuilder): void {
  b.at(new Date(h.clock).toISOString())
    .system("compact_boundary", {
      content: "Conversation compacted",
      parentUuid: null,
      compactMetadata: { trigger: "manual", preTokens: 50_000 },
    })
    .user("This session is being continued from a previous conversation. Summary: FOOBAR work.", {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    });
  h.write(b);
}

interface Options {
  /** Run PreCompact's follow-up (the rehearsal). */
  ahead: boolean;
  change?: Change;
  /** Run SessionStart's follow-up (the push's row); false: it never ran. */
  worker?: boolean;
}

/** One compaction as the client runs it: PreCompact, the summary request, SessionStart, the boundary. */
async function compaction(h: HookDriver, b: TranscriptBuilder, o: Options) {
  const pre = await h.fire("pre-compact", SID, { trigger: "manual", custom_instructions: null });
  expect(pre.followUp?.event).toBe("pre-compact");
  if (o.ahead) await h.followUp(pre);
  const kept = Bun.file(join(`${h.dbPath}-pending`, "compacted", SID)).size > 0;
  if (o.change) await o.change(h, b);
  h.advance(2000);
  const out = await h.fire("session-start", SID, { source: "compact" });
  const printedAhead = out.followUp !== undefined;
  if (printedAhead && o.worker !== false) expect((await h.followUp(out))?.stdout).toBe("");
  boundary(h, b);
  return { push: out.stdout, kept, printedAhead };
}

/** Six turns and two compactions with two turns between; `first` shapes the first compaction. */
async function flow(dir: string, first: Options, second: Options = { ahead: first.ahead }) {
  const h = new HookDriver(dir, undefined, { marksKept: true });
  const b = new TranscriptBuilder(SID, PROJECT, new Date(h.clock).toISOString());
  await h.fire("session-start", SID, { source: "startup" });
  for (let i = 0; i < 6; i++) await turn(h, b, i);
  const one = await compaction(h, b, first);
  for (let i = 6; i < 8; i++) await turn(h, b, i);
  const two = await compaction(h, b, second);
  return { h, one, two };
}

/** What the pushes left: their rows (without who printed them), the session, what was reported. */
function rows(h: HookDriver) {
  return h.read((db) => ({
    injections: db
      .query(
        `SELECT session_id, created_at, total_chars, injected_turns, remaining_turns, older_turns,
                older_summarized, truncated_newest, boundary, moment FROM injections ORDER BY id`,
      )
      .all(),
    prepared: db
      .query<{ p: number }, []>("SELECT prepared AS p FROM injections ORDER BY id")
      .all()
      .map((r) => r.p),
    turns: db.query("SELECT count(*) AS n FROM turns").get(),
    sessions: db.query("SELECT id, updated_at FROM sessions ORDER BY id").all(),
    errors: db.query("SELECT message FROM hook_errors").all(),
  }));
}

const compactedDir = (h: HookDriver) => {
  const d = join(`${h.dbPath}-pending`, "compacted");
  return existsSync(d) ? readdirSync(d) : [];
};

/**
 * The flow with the rehearsals as given, and the same flow (the same changes) without any
 * rehearsal, where SessionStart renders: the pushes and the rows must agree.
 */
async function againstRendered(first: Omit<Options, "ahead">) {
  using a = tempDir();
  using r = tempDir();
  const got = await flow(a.path, { ...first, ahead: true });
  const reference = await flow(r.path, { ahead: false, change: first.change }, { ahead: false });
  expect(reference.one.printedAhead).toBe(false);
  expect(reference.one.push).toStartWith("# Resume context after compaction (throughline)");
  expect(reference.one.push).toContain("FOOBAR5 is done.");
  expect(reference.two.push).toContain("FOOBAR7 is done.");
  expect(reference.two.push).not.toContain("FOOBAR5 is done.");
  expect(got.one.kept).toBe(true);
  expect(got.one.push).toBe(reference.one.push);
  expect(got.two.push).toBe(reference.two.push);
  const { prepared, ...same } = rows(got.h);
  const { prepared: refPrepared, ...refSame } = rows(reference.h);
  expect(same).toEqual(refSame);
  expect(refPrepared).toEqual([0, 0]);
  expect(same.errors).toEqual([]);
  return { ...got, prepared, left: compactedDir(got.h) };
}

/** What 2.1.332 writes while it compacts, sometimes only then (the ingest takes nothing from these). */
const bookkeeping: Change = (h) => {
  const at = new Date(h.clock + 500).toISOString();
  const lines = [
    { type: "queue-operation", operation: "enqueue", timestamp: at, sessionId: SID, content: "/compact" },
    { type: "queue-operation", operation: "dequeue", timestamp: at, sessionId: SID },
    { type: "mode", mode: "normal", sessionId: SID },
    { type: "atis-latch", atis: "", sessionId: SID },
  ];
  appendFileSync(h.transcriptPath(SID), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
};

describe("the push after compaction printed ahead", () => {
  test("the client's bookkeeping lines written meanwhile: printed ahead, the same text and rows", async () => {
    const got = await againstRendered({ change: bookkeeping });
    expect(got.one.printedAhead).toBe(true);
    expect(got.prepared).toEqual([2, 2]);
    expect(got.left).toEqual([]);
  });

  test("nothing changed since PreCompact: printed ahead, the same text and rows; the next compaction too", async () => {
    const got = await againstRendered({});
    expect(got.one.printedAhead).toBe(true);
    expect(got.two.printedAhead).toBe(true);
    expect(got.prepared).toEqual([2, 2]);
    // The record goes once its row is committed: no copy of a turn stays behind.
    expect(got.left).toEqual([]);
  });

  const changes: [string, Change][] = [
    [
      "a bookkeeping line from another directory",
      (h) =>
        appendFileSync(
          h.transcriptPath(SID),
          `${JSON.stringify({ type: "mode", mode: "normal", sessionId: SID, cwd: "/home/dev/elsewhere" })}\n`,
        ),
    ],
    [
      "a bookkeeping line of another session",
      (h) => appendFileSync(h.transcriptPath(SID), `${JSON.stringify({ type: "mode", sessionId: OTHER })}\n`),
    ],
    [
      "the client wrote the transcript before SessionStart (the boundary)",
      (h, b) => {
        b.at(new Date(h.clock).toISOString()).system("compact_boundary", {
          content: "Conversation compacted",
          parentUuid: null,
          compactMetadata: { trigger: "manual", preTokens: 50_000 },
        });
        h.write(b);
      },
    ],
    ["a turn of another window is stored", (h) => otherWindowsTurn(h, OTHER, PROJECT)],
    [
      "another window's SessionStart left its intent",
      async (h) => {
        await h.fire("session-start", OTHER, { source: "startup" });
      },
    ],
  ];
  for (const [name, change] of changes)
    test(`${name}: SessionStart renders as before, the same text`, async () => {
      const got = await againstRendered({ change });
      expect(got.one.printedAhead).toBe(false);
      // The second compaction, with nothing between its PreCompact and its SessionStart, is.
      expect(got.two.printedAhead).toBe(true);
      expect(got.prepared).toEqual([0, 2]);
      expect(got.left).toEqual([]);
    });

  test("SessionStart's follow-up never ran: the next compaction records that push first, then renders", async () => {
    const got = await againstRendered({ worker: false });
    expect(got.one.printedAhead).toBe(true);
    // The next PreCompact does not rehearse over a push whose row is missing: SessionStart renders.
    expect(got.two.printedAhead).toBe(false);
    expect(got.prepared).toEqual([2, 0]);
    expect(got.left).toEqual([]);
  });

  test("the follow-up that runs twice records the push once", async () => {
    using a = tempDir();
    const { h } = await threeTurns(a.path);
    const pre = await h.fire("pre-compact", SID, { trigger: "manual", custom_instructions: null });
    await h.followUp(pre);
    const out = await h.fire("session-start", SID, { source: "compact" });
    expect(out.stdout).toContain("FOOBAR2 is done.");
    const printed = readFileSync(join(`${h.dbPath}-pending`, "compacted", SID), "utf8");
    // What stays until the row is written holds no text of a turn.
    expect(printed).not.toContain("FOOBAR");
    // A second run of the same follow-up (the record written back as it was before the first).
    await h.followUp(out);
    await Bun.write(join(`${h.dbPath}-pending`, "compacted", SID), printed);
    await h.followUp(out);
    expect(rows(h).prepared).toEqual([2]);
  });

  test("PUSH_AHEAD=0: PreCompact asks for no rehearsal", async () => {
    using a = tempDir();
    const h = new HookDriver(a.path, undefined, { marksKept: true });
    h.env[PUSH_AHEAD_ENV] = "0";
    await h.fire("session-start", SID, { source: "startup" });
    const b = new TranscriptBuilder(SID, PROJECT, new Date(h.clock).toISOString());
    await turn(h, b, 0);
    const pre = await h.fire("pre-compact", SID, { trigger: "manual", custom_instructions: null });
    expect(pre.followUp).toBeUndefined();
  });

  test("the rehearsal writes nothing: the database, its log, the marks and the transcript as they were", async () => {
    using a = tempDir();
    const { h } = await threeTurns(a.path);
    const pre = await h.fire("pre-compact", SID, { trigger: "manual", custom_instructions: null });
    Bun.sleepSync(120); // settled, so the state before is the one the rehearsal waits for
    const before = { state: handoffState(h.dbPath, [h.transcriptPath(SID)]).key, rows: rows(h) };
    await h.followUp(pre);
    expect(Bun.file(join(`${h.dbPath}-pending`, "compacted", SID)).size).toBeGreaterThan(0);
    expect({ state: handoffState(h.dbPath, [h.transcriptPath(SID)]).key, rows: rows(h) }).toEqual(before);
  });
});

describe("the push after compaction printed ahead, through processes", () => {
  test("PreCompact starts the rehearsal detached; SessionStart(compact) prints it; its follow-up records it", async () => {
    using dir = tempDir();
    const { h } = await threeTurns(dir.path);
    const run = hookProcess(h, { session_id: SID, transcript_path: h.transcriptPath(SID), cwd: PROJECT });
    run("pre-compact", { hook_event_name: "PreCompact", trigger: "manual", custom_instructions: null });
    const record = join(`${h.dbPath}-pending`, "compacted", SID);
    expect(
      await eventually(() => existsSync(record) && readFileSync(record, "utf8").includes('"ahead"')),
    ).toBe(true);
    const push = run("session-start", { hook_event_name: "SessionStart", source: "compact" });
    expect(push).toStartWith("# Resume context after compaction (throughline)");
    expect(push).toContain("FOOBAR2 is done.");
    const recorded = () => rows(h).prepared.join() === "2";
    expect(await eventually(recorded)).toBe(true);
    expect(await eventually(() => !existsSync(record))).toBe(true);
    expect(rows(h).errors).toEqual([]);
  }, 30_000);
});
