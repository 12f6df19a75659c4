/**
 * The push printed ahead (docs/hooks.md, "The push printed ahead"): SessionStart(clear) asks for a
 * rehearsal of the first prompt's handoff, run behind the client; the first prompt prints what it
 * found when nothing it read has changed, and a follow-up does the handoff itself. The text must
 * be exactly what the handoff prints without the rehearsal, the handoff's rows the same, and any
 * change between the rehearsal and the prompt must send the prompt the usual way.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { handoffState } from "../../src/db/marks/ahead.ts";
import { writeClearMark } from "../../src/db/marks/clear.ts";
import { openForWrite } from "../../src/db/open.ts";
import { eventually, HookDriver, hookProcess, otherWindowsTurn } from "../helpers/hooks.ts";

const S = "11111111-aaaa-4bbb-8ccc-111111111111";
const N = "22222222-aaaa-4bbb-8ccc-222222222222";
const OTHER = "33333333-aaaa-4bbb-8ccc-333333333333";
const LATER = "44444444-aaaa-4bbb-8ccc-444444444444";
const MIN = 60_000;
const PROJECT = "/home/dev/project";

type Change = (h: HookDriver, b: TranscriptBuilder) => Promise<void> | void;

interface Flow {
  /** Rehearse after SessionStart(clear) (the follow-up it asked for). */
  ahead: boolean;
  change?: Change;
  /** Run the prompt's own follow-up (the handoff behind the client); false: it never ran. */
  worker?: boolean;
  prompt?: string;
  promptCwd?: string;
}

/** What the handoff left: its rows, the chain's turns, and what was reported. */
function handoffRows(h: HookDriver) {
  return h.read((db) => ({
    handoffs: db
      .query("SELECT session_id, path, predecessor, reason, chosen_by, evidence FROM handoffs ORDER BY id")
      .all(),
    injections: db
      .query(
        `SELECT session_id, injected_turns, remaining_turns, older_turns, truncated_newest, total_chars
           FROM injections ORDER BY id`,
      )
      .all(),
    turns: db
      .query("SELECT count(*) AS n FROM turns WHERE session_id = (SELECT chain FROM sessions WHERE id = ?)")
      .get(N),
    merged: db.query("SELECT id, merged_into FROM sessions ORDER BY id").all(),
    pending: db.query("SELECT session_id FROM pending_handoffs").all(),
    errors: db.query("SELECT message FROM hook_errors").all(),
  }));
}

/** S with four turns, /clear, N's first prompt; `change` between the rehearsal and the prompt. */
async function clearFlow(dir: string, f: Flow) {
  const h = new HookDriver(dir, undefined, { marksKept: true });
  h.env.THROUGHLINE_SUMMARIZER = "extractive";
  const b = new TranscriptBuilder(S, PROJECT, new Date(h.clock).toISOString());
  await h.fire("session-start", S, { source: "startup" });
  for (let i = 1; i <= 4; i++) {
    b.user(`prompt ${i}: look at src/m${i}.ts`).say("Reading it.");
    b.tool("Read", { file_path: `${PROJECT}/src/m${i}.ts` }, `export const m${i} = ${i};`);
    b.say(`answer ${i}: m${i} is ${i}`);
    h.write(b);
    h.advance(MIN);
    await h.fire("stop", S, {
      stop_hook_active: false,
      last_assistant_message: `answer ${i}: m${i} is ${i}`,
    });
  }
  await h.fire("session-end", S, { reason: "clear" });
  h.advance(1000);
  const start = await h.fire("session-start", N, { source: "clear" });
  expect(start.followUp?.event).toBe("session-start");
  if (f.ahead) await h.followUp(start);
  const kept = Bun.file(join(`${h.dbPath}-pending`, "ahead", N)).size > 0;
  if (f.change) await f.change(h, b);
  h.advance(5000);
  const out = await h.fire("user-prompt-submit", N, { prompt: f.prompt ?? "go on" }, f.promptCwd ?? PROJECT);
  const printedAhead = out.followUp?.event === "user-prompt-submit";
  if (printedAhead && f.worker !== false) {
    const worker = await h.followUp(out);
    expect(worker?.stdout).toBe(""); // the push was printed already
  }
  return { h, push: out.stdout, kept, printedAhead };
}

/** The flow with the rehearsal, and the same flow without it (the handoff as before). */
async function both(f: Omit<Flow, "ahead">, pushed = true) {
  using a = tempDir();
  using r = tempDir();
  const got = await clearFlow(a.path, { ...f, ahead: true });
  const reference = await clearFlow(r.path, { ...f, ahead: false });
  expect(reference.printedAhead).toBe(false);
  if (pushed) expect(reference.push).toContain("answer 4: m4 is 4");
  else expect(reference.push).toBe("");
  expect(got.kept).toBe(true);
  expect(got.push).toBe(reference.push);
  const rows = handoffRows(got.h);
  expect(rows).toEqual(handoffRows(reference.h));
  expect(rows.errors).toEqual([]);
  const left = (sub: string) => {
    const d = join(`${got.h.dbPath}-pending`, sub);
    return existsSync(d) ? readdirSync(d) : [];
  };
  const records = { ahead: left("ahead"), printed: left("printed") };
  const prepared = got.h.read(
    (db) =>
      db.query<{ p: number }, [string]>("SELECT prepared AS p FROM injections WHERE session_id = ?").get(N)
        ?.p,
  );
  return { ...got, prepared, records };
}

/** S with one turn, /clear, and N's SessionStart(clear): the driver and that hook's outcome. */
async function oneTurnThenClear(dir: string) {
  const h = new HookDriver(dir, undefined, { marksKept: true });
  const b = new TranscriptBuilder(S, PROJECT, new Date(h.clock).toISOString());
  await h.fire("session-start", S, { source: "startup" });
  h.advance(1000);
  await h.fire("user-prompt-submit", S, { prompt: "prompt 1" });
  b.user("prompt 1").say("answer 1");
  h.write(b);
  h.advance(MIN);
  await h.fire("stop", S, { stop_hook_active: false });
  await h.fire("session-end", S, { reason: "clear" });
  h.advance(1000);
  return { h, start: await h.fire("session-start", N, { source: "clear" }) };
}

/** The marks a handoff reads (the directory's files and its clear marks), by name relative to it. */
function markFiles(h: HookDriver): string[] {
  const dir = `${h.dbPath}-pending`;
  const names: string[] = [];
  for (const sub of ["", "clear/"])
    if (existsSync(join(dir, sub)))
      for (const e of readdirSync(join(dir, sub), { withFileTypes: true }))
        if (e.isFile()) names.push(sub + e.name);
  return names;
}

describe("the push printed ahead (docs/hooks.md)", () => {
  test("nothing changed since the rehearsal: printed ahead, the same text and the same handoff", async () => {
    const got = await both({});
    expect(got.printedAhead).toBe(true);
    expect(got.prepared).toBe(2);
    // Both records go with the handoff.
    expect(got.records).toEqual({ ahead: [], printed: [] });
  });

  const changes: [string, Change][] = [
    ["a turn of another window is stored", (h) => otherWindowsTurn(h, OTHER, PROJECT)],
    [
      "the predecessor's transcript grew (a turn with no Stop)",
      (h, b) => {
        b.user("prompt 5: one more").say("answer 5: the late one");
        h.write(b);
      },
    ],
    [
      "another window cleared (its SessionStart intent)",
      async (h) => {
        h.advance(100);
        await h.fire("session-start", LATER, { source: "clear" });
      },
    ],
    [
      "another session ended with /clear (a clear mark)",
      async (h) => {
        // What SessionEnd(clear) of a session read to its end writes, and only that.
        const mark = { session_id: OTHER, cwd: PROJECT, client: null, prompt_id: null, created_at: h.clock };
        expect(await writeClearMark(h.dbPath, mark)).toBe(true);
      },
    ],
    [
      "a baton was stored in the project (`/tl` in another window)",
      async (h) => {
        await h.fire("user-prompt-submit", OTHER, { prompt: "/tl" });
      },
    ],
  ];
  for (const [name, change] of changes)
    test(`${name}: the prompt hands over as before, the same text`, async () => {
      // A baton, or a newer /clear, takes the handoff to a session that holds no turns.
      const got = await both({ change }, !/^a baton|^another session ended/.test(name));
      expect(got.printedAhead).toBe(false);
      expect(got.prepared).not.toBe(2);
    });

  test("a prompt from another directory: the handoff as before", async () => {
    // Another project: nothing to continue there.
    const got = await both({ promptCwd: "/home/dev/elsewhere" }, false);
    expect(got.printedAhead).toBe(false);
  });

  test("`/tl` as the first prompt: the handoff as before (it stores a baton after it)", async () => {
    const got = await both({ prompt: "/tl" });
    expect(got.printedAhead).toBe(false);
  });

  test("the handoff's follow-up never ran: the next prompt hands over and prints nothing", async () => {
    using dir = tempDir();
    const got = await clearFlow(dir.path, { ahead: true, worker: false });
    expect(got.printedAhead).toBe(true);
    expect(got.push).toContain("answer 4: m4 is 4");
    expect(handoffRows(got.h).handoffs.filter((r) => (r as { session_id: string }).session_id === N)).toEqual(
      [],
    );
    got.h.advance(MIN);
    const next = await got.h.fire("user-prompt-submit", N, { prompt: "and then?" });
    expect(next.stdout).toBe("");
    expect(next.followUp).toBeUndefined();
    const rows = handoffRows(got.h);
    expect(rows.handoffs.at(-1)).toMatchObject({ session_id: N, path: "auto", predecessor: S });
    expect(rows.turns).toEqual({ n: 4 });
    expect(rows.pending).toEqual([]);
    expect(rows.errors).toEqual([]);
  });

  test("the rehearsal writes nothing: the database, its log and every mark as they were", async () => {
    using dir = tempDir();
    const { h, start } = await oneTurnThenClear(dir.path);
    const marks = () =>
      Object.fromEntries(
        markFiles(h).map((name) => [name, readFileSync(join(`${h.dbPath}-pending`, name), "utf8")]),
      );
    Bun.sleepSync(120); // settled, so the state before is the one the rehearsal waits for
    const before = { state: handoffState(h.dbPath, [h.transcriptPath(S)]).key, marks: marks() };
    const beforeRows = handoffRows(h);
    await h.followUp(start);
    expect(Bun.file(join(`${h.dbPath}-pending`, "ahead", N)).size).toBeGreaterThan(0);
    expect({ state: handoffState(h.dbPath, [h.transcriptPath(S)]).key, marks: marks() }).toEqual(before);
    expect(handoffRows(h)).toEqual(beforeRows);
  });
});

describe("the state's settling time", () => {
  test("a second more where every modification time is a whole second (ext3, HFS+): the rehearsal waits for it", async () => {
    using dir = tempDir();
    const { h, start } = await oneTurnThenClear(dir.path);
    const marks = `${h.dbPath}-pending`;
    const files = [
      h.dbPath,
      `${h.dbPath}-wal`,
      h.transcriptPath(S),
      ...markFiles(h).map((n) => join(marks, n)),
    ];
    expect(handoffState(h.dbPath, [h.transcriptPath(S)]).settledMs).toBe(100);
    // As a file system with whole-second times would have them: all in the current second.
    const second = Math.floor(Date.now() / 1000);
    for (const f of files) if (existsSync(f)) utimesSync(f, second, second);
    const state = handoffState(h.dbPath, [h.transcriptPath(S)]);
    expect(state.settledMs).toBe(1100);
    const t0 = Date.now();
    await h.followUp(start);
    expect(Date.now()).toBeGreaterThanOrEqual(second * 1000 + 1100);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(Bun.file(join(marks, "ahead", N)).size).toBeGreaterThan(0);
  });
});

describe("the push printed ahead, through processes", () => {
  test("SessionStart(clear) starts the rehearsal detached; the prompt prints it; its follow-up hands over", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path, undefined, { marksKept: true });
    const b = new TranscriptBuilder(S, PROJECT, new Date(h.clock).toISOString());
    await h.fire("session-start", S, { source: "startup" });
    b.user("prompt 1: what is m1").say("answer 1: m1 is one");
    h.write(b);
    await h.fire("stop", S, { stop_hook_active: false, last_assistant_message: "answer 1: m1 is one" });
    await h.fire("session-end", S, { reason: "clear" });
    const run = hookProcess(h, { transcript_path: h.transcriptPath(N), cwd: PROJECT });
    writeFileSync(h.transcriptPath(N), "");
    run("session-start", { session_id: N, hook_event_name: "SessionStart", source: "clear" });
    const ahead = join(`${h.dbPath}-pending`, "ahead", N);
    expect(await eventually(() => Bun.file(ahead).size > 0)).toBe(true);
    const push = run("user-prompt-submit", {
      session_id: N,
      hook_event_name: "UserPromptSubmit",
      prompt: "go on",
    });
    expect(push).toContain("answer 1: m1 is one");
    // The handoff itself, in the follow-up that outlived the prompt's process.
    const merged = () =>
      h.read(
        (db) =>
          db
            .query<{ p: number }, [string]>("SELECT prepared AS p FROM injections WHERE session_id = ?")
            .get(N)?.p === 2,
      );
    expect(await eventually(merged)).toBe(true);
    expect(handoffRows(h).handoffs.at(-1)).toMatchObject({ session_id: N, path: "auto", predecessor: S });
    expect(handoffRows(h).errors).toEqual([]);
    // After its commit, the follow-up removes both records.
    expect(await eventually(() => Bun.file(ahead).size === 0)).toBe(true);
  }, 30_000);
});

test("a database no writer opened before is left alone by the rehearsal", async () => {
  using dir = tempDir();
  const h = new HookDriver(dir.path);
  const start = await h.fire("session-start", N, { source: "clear" });
  // Not kept: SessionStart claimed in the database itself and asked for nothing.
  expect(start.followUp).toBeUndefined();
  const db = openForWrite(h.dbPath);
  db.close();
});
