import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS, count, runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { CONTEXT_BUDGET } from "../../src/core/turn-block.ts";
import { openForWrite } from "../../src/db/open.ts";
import { chainKeyOf } from "../../src/db/queries/sessions.ts";
import { runHook } from "../../src/hooks/run.ts";
import { HookDriver } from "../helpers/hooks.ts";

const PROJECT = "/home/dev/project";
const MIN = 60_000;

/** A session of `n` turns, written and captured through `hook stop` turn by turn. */
async function session(
  h: HookDriver,
  id: string,
  n: number,
  opts: { stopLast?: boolean; start?: string } = {},
) {
  const b = new TranscriptBuilder(id, PROJECT, opts.start ?? new Date(h.clock).toISOString());
  await h.fire("session-start", id, { source: "startup" });
  for (let i = 1; i <= n; i++) {
    b.user(`${id.slice(0, 4)} prompt ${i}`).say(`${id.slice(0, 4)} answer ${i}`);
    h.write(b);
    h.advance(MIN);
    if (i < n || opts.stopLast !== false) await h.fire("stop", id, { stop_hook_active: false });
  }
  return b;
}

function sid(n: number): string {
  return `${String(n).repeat(8)}-aaaa-4bbb-8ccc-${String(n).repeat(12)}`;
}

// Every scenario runs twice: on a database no writer has opened yet, SessionStart claims at
// once; once the pending marks are kept, it only writes its intent and the first prompt claims
// (src/hooks/claim.ts). Both must hand over the same memory.
describe("SessionStart claims at once (marks not kept yet)", () => suites(false));
describe("SessionStart writes only its intent (marks kept)", () => suites(true));

function suites(kept: boolean): void {
  describe("lifecycle: /clear auto handoff (docs/contract.md#the-push)", () => {
    test("SessionStart(clear) + ghost, then the first prompt gets the push; later prompts get nothing", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 5);
      const next = sid(2);
      const ghost = sid(3);
      expect((await h.fire("session-start", next, { source: "clear" })).stdout).toBe("");
      h.advance(300);
      expect((await h.fire("session-start", ghost, { source: "clear" })).stdout).toBe("");
      h.advance(5000);
      const first = await h.fire("user-prompt-submit", next, { prompt: "ok, continue" });
      expect(first.stdout.length).toBeGreaterThan(0);
      expect(first.stdout.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
      expect(first.stdout).toContain("1111 answer 5");
      const second = await h.fire("user-prompt-submit", next, { prompt: "and the next step" });
      expect(second.stdout).toBe("");
      h.read((db) => {
        expect(db.query("SELECT merged_into FROM sessions WHERE id = $id").get({ id: sid(1) })).toEqual({
          merged_into: next,
        });
        expect(
          count(db, `SELECT count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")}`, { s: next }),
        ).toBe(5);
        expect(
          count(db, `SELECT count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")}`, { s: ghost }),
        ).toBe(0);
        expect(count(db, "SELECT count(*) n FROM injections WHERE session_id = $s", { s: ghost })).toBe(0);
        expect(count(db, "SELECT count(*) n FROM injections WHERE session_id = $s", { s: next })).toBe(1);
        expect(
          db.query("SELECT path, predecessor FROM handoffs WHERE session_id = $s").get({ s: next }),
        ).toEqual({
          path: "auto",
          predecessor: sid(1),
        });
        // Origins are kept by the merge.
        expect(count(db, "SELECT count(*) n FROM turns WHERE origin_session_id = $s", { s: sid(1) })).toBe(5);
      });
    });

    test("status --session and doctor --session show the chain and the handoff decision", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 3);
      await h.fire("session-start", sid(2), { source: "clear" });
      await h.fire("user-prompt-submit", sid(2), { prompt: "go on" });
      const status = JSON.parse(runCli(["status", "--session", sid(1), "--json", "--db", h.dbPath]).stdout);
      expect(status.live_end).toBe(sid(2));
      expect(status.chain.map((c: { id: string; turns: number }) => [c.id, c.turns])).toEqual([
        [sid(1), 3],
        [sid(2), 0],
      ]);
      expect(status.last_handoff).toMatchObject({ path: "auto", predecessor: sid(1), reason: null });
      expect(status.last_injection).toMatchObject({ injected_turns: 3, budget: 9500 });
      const doc = runCli(["doctor", "--session", sid(2).slice(0, 8), "--json", "--db", h.dbPath]);
      expect(doc.exitCode).toBe(0);
      expect(JSON.parse(doc.stdout)).toMatchObject({
        session_id: sid(2),
        chain: { merged_into: null, live_end: sid(2), predecessors: [sid(1)] },
        pending_handoff: null,
        last_handoff: { path: "auto" },
      });
      // Nothing linked this clear (no SessionEnd was fired): doctor says it was the last fallback.
      expect(JSON.parse(doc.stdout).handoffs).toMatchObject([
        {
          choice: `fallback → ${sid(1)}`,
          chosen_by: "fallback",
          evidence: "no SessionEnd(clear) linked: newest live session of the project",
        },
      ]);
    });

    test("the predecessor's last turn that never had a Stop is in the push", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 3, { stopLast: false });
      h.read((db) => expect(count(db, "SELECT count(*) n FROM turns")).toBe(2));
      await h.fire("session-start", sid(2), { source: "clear" });
      const out = await h.fire("user-prompt-submit", sid(2), { prompt: "go on" });
      expect(out.stdout).toContain("1111 prompt 3");
      expect(out.stdout).toContain("1111 answer 3");
    });

    test("THROUGHLINE_DISABLE_AUTO_HANDOFF=1 turns the automatic handoff off", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 2);
      h.env.THROUGHLINE_DISABLE_AUTO_HANDOFF = "1";
      await h.fire("session-start", sid(2), { source: "clear" });
      expect((await h.fire("user-prompt-submit", sid(2), { prompt: "hi" })).stdout).toBe("");
    });

    test("a session in another project is never the predecessor", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 2);
      await h.fire("session-start", sid(2), { source: "clear" }, "/elsewhere");
      expect((await h.fire("user-prompt-submit", sid(2), { prompt: "hi" }, "/elsewhere")).stdout).toBe("");
    });

    test("a missing database at the first prompt is created by the hook", async () => {
      using dir = tempDir();
      // Not kept by construction: a kept directory needs the database a writer opened.
      const h = new HookDriver(dir.path);
      expect(existsSync(h.dbPath)).toBe(false);
      expect((await h.fire("user-prompt-submit", sid(1), { prompt: "hello" })).stdout).toBe("");
      expect(existsSync(h.dbPath)).toBe(true);
    });
  });

  describe("lifecycle: forks (docs/contract.md#forks)", () => {
    test("claude -p --resume <id> --fork-session: SessionStart(resume) names the parent, the fork stores its own turn only", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      const parent = await session(h, sid(1), 2);
      h.advance(MIN);
      // What 2.1.197 and 2.1.332 send: SessionStart(resume) with the parent's id and file, then
      // the fork's own prompt and Stop with the fork's id and its new file.
      await h.fire("session-start", sid(1), { source: "resume" });
      const fork = parent.fork(sid(2), new Date(h.clock).toISOString());
      fork.user("2222 fork prompt").say("2222 fork answer");
      h.write(fork);
      expect((await h.fire("user-prompt-submit", sid(2), { prompt: "2222 fork prompt" })).stdout).toBe("");
      h.advance(MIN);
      await h.fire("stop", sid(2), { last_assistant_message: "2222 fork answer" });
      h.read((db) => {
        expect(
          db.query("SELECT origin_session_id o, turn_number n FROM turns ORDER BY started_at").all(),
        ).toEqual([
          { o: sid(1), n: 1 },
          { o: sid(1), n: 2 },
          { o: sid(2), n: 3 },
        ]);
        expect(count(db, "SELECT count(*) n FROM handoffs WHERE session_id = $s", { s: sid(2) })).toBe(0);
      });
      const ctx = JSON.parse(runCli(["context", "--session", sid(2), "--json", "--db", h.dbPath]).stdout);
      expect(ctx.turns.map((t: { turn_key: string }) => t.turn_key)).toEqual([
        `${sid(1)}:1`,
        `${sid(1)}:2`,
        `${sid(2)}:3`,
      ]);
    });

    test("SessionStart(fork) is a start: no /clear fallback, only a SessionEnd(clear) link hands over", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 2);
      h.advance(MIN);
      // Where SessionStart(clear) would take the project's newest session, a fork takes nothing.
      await h.fire("session-start", sid(2), { source: "fork" });
      h.advance(1000);
      expect((await h.fire("user-prompt-submit", sid(2), { prompt: "hi" })).stdout).toBe("");
      h.read((db) =>
        expect(db.query("SELECT path FROM handoffs WHERE session_id = $s").get({ s: sid(2) })).toEqual({
          path: "none",
        }),
      );
      // A clear the same prompt_id links is one, whatever the source says.
      await h.fire("session-end", sid(1), { reason: "clear", prompt_id: "p-fork" });
      h.advance(100);
      await h.fire("session-start", sid(3), { source: "fork", prompt_id: "p-fork" });
      h.advance(1000);
      expect((await h.fire("user-prompt-submit", sid(3), { prompt: "go on" })).stdout).toContain(
        "1111 answer 2",
      );
    });
  });

  describe("lifecycle: /tl baton (docs/contract.md#handoff)", () => {
    async function batonThenNewSession(gapMs: number) {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      const b = await session(h, sid(1), 3);
      b.user("/tl").say("Baton stored.");
      h.write(b);
      await h.fire("user-prompt-submit", sid(1), { prompt: "/tl" });
      await h.fire("stop", sid(1));
      h.advance(gapMs);
      await h.fire("session-start", sid(2), { source: "startup" });
      h.advance(2000);
      const out = await h.fire("user-prompt-submit", sid(2), { prompt: "continue" });
      const batons = h.read((db) => count(db, "SELECT count(*) n FROM handoff_batons"));
      return {
        out,
        batons,
        path: h.read((db) =>
          db.query("SELECT path, reason FROM handoffs WHERE session_id = $s").get({ s: sid(2) }),
        ),
      };
    }

    test("a new session within the hour inherits", async () => {
      const r = await batonThenNewSession(10 * MIN);
      expect(r.out.stdout).toContain("1111 answer 3");
      expect(r.batons).toBe(0);
      expect(r.path).toEqual({ path: "baton", reason: null });
    });

    test("after 61 minutes it does not, and the expired baton is deleted", async () => {
      const r = await batonThenNewSession(61 * MIN);
      expect(r.out.stdout).toBe("");
      expect(r.batons).toBe(0);
      expect(r.path).toEqual({ path: "none", reason: "baton older than 1 hour: expired" });
    });

    test("a baton written after the consumer's birth is left in place", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 2);
      await h.fire("session-start", sid(2), { source: "startup" });
      h.advance(MIN);
      await h.fire("user-prompt-submit", sid(1), { prompt: "/tl" });
      h.advance(MIN);
      expect((await h.fire("user-prompt-submit", sid(2), { prompt: "hi" })).stdout).toBe("");
      h.read((db) =>
        expect(db.query("SELECT session_id FROM handoff_batons").get()).toEqual({ session_id: sid(1) }),
      );
    });

    test("a session never consumes its own baton", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await h.fire("session-start", sid(1), { source: "startup" });
      expect((await h.fire("user-prompt-submit", sid(1), { prompt: "/tl" })).stdout).toBe("");
      h.read((db) => {
        expect(db.query("SELECT session_id FROM handoff_batons").get()).toEqual({ session_id: sid(1) });
        expect(db.query("SELECT merged_into FROM sessions").get()).toEqual({ merged_into: null });
      });
    });

    test("S1 → S2 → S3 keeps every turn with its origin; S3's baked recall reaches S1", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      await session(h, sid(1), 12);
      for (const [from, to] of [
        [sid(1), sid(2)],
        [sid(2), sid(3)],
      ] as const) {
        await h.fire("user-prompt-submit", from, { prompt: "/tl" });
        h.advance(MIN);
        await h.fire("session-start", to, { source: "startup" });
        h.advance(1000);
        const b = new TranscriptBuilder(to, PROJECT, new Date(h.clock).toISOString());
        const push = await h.fire("user-prompt-submit", to, { prompt: `${to.slice(0, 4)} prompt 1` });
        expect(push.stdout.length).toBeGreaterThan(0);
        for (let i = 1; i <= 12; i++) {
          b.user(`${to.slice(0, 4)} prompt ${i}`).say(`${to.slice(0, 4)} answer ${i}`);
          h.write(b);
          h.advance(MIN);
          await h.fire("stop", to);
        }
      }
      await h.fire("user-prompt-submit", sid(3), { prompt: "/tl" });
      h.advance(MIN);
      await h.fire("session-start", sid(4), { source: "startup" });
      const push = (await h.fire("user-prompt-submit", sid(4), { prompt: "go" })).stdout;
      h.read((db) => {
        expect(
          db
            .query(
              `SELECT origin_session_id o, count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")} GROUP BY 1 ORDER BY 1`,
            )
            .all({ s: sid(4) }),
        ).toEqual([
          { o: sid(1), n: 12 },
          { o: sid(2), n: 12 },
          { o: sid(3), n: 12 },
        ]);
      });
      // Whatever invocation the push bakes in front of it, the subcommand and its arguments follow.
      const l1 = /recall --l1 [^\n`]*/.exec(push)?.[0];
      expect(l1).toBeDefined();
      const args = l1!.split(" ").filter(Boolean);
      const r = runCli([...args, "--json", "--db", h.dbPath]);
      expect(r.stderr).toBe("");
      const keys = (JSON.parse(r.stdout).turns as { turn_key: string }[]).map((t) => t.turn_key);
      expect(keys[0]).toBe(`${sid(1)}:1`);
    });
  });

  describe.skipIf(!existsSync(join(CORPUS, "transcripts")))("lifecycle on a real recorded session", () => {
    test("Stop turn by turn, /clear with a ghost, then the push", async () => {
      using dir = tempDir();
      const h = new HookDriver(dir.path, undefined, { marksKept: kept });
      const src = join(CORPUS, "transcripts", "mclaude-ff59cfd2.jsonl");
      const lines = readFileSync(src, "utf8").split("\n").filter(Boolean);
      const first = JSON.parse(lines.find((l) => l.includes('"sessionId"'))!);
      const id = first.sessionId as string;
      const cwd = first.cwd as string;
      await h.fire("session-start", id, { source: "startup" }, cwd);
      // Cut before each line that starts a new human prompt: a Stop fires after every turn.
      const { writeFileSync } = await import("node:fs");
      const path = h.transcriptPath(id);
      let written = 0;
      for (let i = 1; i <= lines.length; i++) {
        const e = JSON.parse(lines[i] ?? "{}");
        const boundary =
          i === lines.length ||
          (e.type === "user" && typeof e.message?.content === "string" && !e.isMeta && !e.isSidechain);
        if (!boundary) continue;
        writeFileSync(path, `${lines.slice(0, i).join("\n")}\n`);
        written = i;
        h.advance(1000);
        await h.fire("stop", id, {}, cwd);
      }
      expect(written).toBe(lines.length);
      const turns = h.read((db) => count(db, "SELECT count(*) n FROM turns"));
      expect(turns).toBe(14); // MANIFEST human column for this file
      await h.fire("session-start", sid(7), { source: "clear" }, cwd);
      h.advance(300);
      await h.fire("session-start", sid(8), { source: "clear" }, cwd);
      const out = await h.fire("user-prompt-submit", sid(7), { prompt: "continue" }, cwd);
      expect(out.stdout.length).toBeGreaterThan(1000);
      expect(out.stdout.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
      expect((await h.fire("user-prompt-submit", sid(7), { prompt: "next" }, cwd)).stdout).toBe("");
      h.read((db) => {
        expect(
          count(db, `SELECT count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")}`, { s: sid(7) }),
        ).toBe(14);
        expect(
          count(db, `SELECT count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")}`, { s: sid(8) }),
        ).toBe(0);
      });
    }, 60_000);
  });

  // ── which session a /clear continues, replayed from recorded Claude Code hooks ─────────────

  interface RecordedProc {
    pid: number;
    ppid: number;
    comm: string;
    cmdline: string;
  }
  interface RecordedEvent {
    t: number;
    window: "A" | "B";
    event: "SessionStart" | "SessionEnd" | "UserPromptSubmit";
    payload: Record<string, unknown> & { session_id: string };
    env: Record<string, string>;
    proc: RecordedProc[];
  }
  interface Recording {
    cli: string;
    events: RecordedEvent[];
  }

  const HOOK_OF = {
    SessionStart: "session-start",
    SessionEnd: "session-end",
    UserPromptSubmit: "user-prompt-submit",
  } as const;

  function loadRecording(cli: string): Recording {
    return JSON.parse(
      readFileSync(join(import.meta.dir, "..", "fixtures", "hooks", `two-windows-${cli}.json`), "utf8"),
    );
  }

  /** What a replay may take from the recording: each kind of evidence can be withheld. */
  interface ReplayOptions {
    promptId?: boolean;
    claudePid?: boolean;
    proc?: boolean;
    sessionEnd?: boolean;
  }

  /**
   * Replay a recorded run through the real hooks, in-process: the recorded payloads, the
   * recorded CLAUDE_* environment and the recorded parent-process chain (as a /proc tree), with
   * transcripts written so each prompt becomes a stored turn. Returns the pushes by prompt.
   */
  async function replayRecording(rec: Recording, opts: ReplayOptions = {}) {
    using dir = tempDir();
    const base = Date.parse("2026-03-01T12:00:00.000Z");
    const db = join(dir.path, "tl.db");
    if (kept) openForWrite(db).close();
    const builders = new Map<string, TranscriptBuilder>();
    const pushes = new Map<string, string>();
    const sessionOf = new Map<string, string>();
    let n = 0;
    for (const ev of rec.events) {
      if (ev.event === "SessionEnd" && opts.sessionEnd === false) continue;
      const now = base + ev.t;
      const id = ev.payload.session_id;
      const payload: Record<string, unknown> = {
        ...ev.payload,
        transcript_path: join(dir.path, `${id}.jsonl`),
      };
      if (opts.promptId === false) delete payload.prompt_id;
      const env: Record<string, string> = {
        THROUGHLINE_DB: db,
        THROUGHLINE_FLUSH_WAIT_MS: "0",
        HOME: dir.path,
      };
      if (opts.claudePid !== false && ev.env.CLAUDE_PID) env.CLAUDE_PID = ev.env.CLAUDE_PID;
      const procRoot = join(dir.path, `proc-${++n}`);
      env.THROUGHLINE_PROC_ROOT = procRoot;
      if (opts.proc !== false)
        for (const [i, p] of ev.proc.entries())
          for (const name of i === 0 ? ["self", String(p.pid)] : [String(p.pid)]) {
            mkdirSync(join(procRoot, name), { recursive: true });
            writeFileSync(join(procRoot, name, "stat"), `${p.pid} (${p.comm}) S ${p.ppid} 1 1 0 -1\n`);
            writeFileSync(join(procRoot, name, "cmdline"), p.cmdline);
          }
      const run = (event: string, body: Record<string, unknown>) =>
        runHook(event, JSON.stringify(body), env, () => now);
      if (ev.event === "SessionStart" && ev.payload.source === "clear") {
        // Claude Code writes the /clear itself at the top of the new session's transcript.
        const b = new TranscriptBuilder(id, String(ev.payload.cwd), new Date(now).toISOString());
        b.user(
          "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>",
        );
        builders.set(id, b);
        writeFileSync(join(dir.path, `${id}.jsonl`), b.text());
      }
      const out = await run(HOOK_OF[ev.event], payload);
      expect(out.stderr).toBe("");
      if (ev.event === "UserPromptSubmit") {
        const prompt = String(ev.payload.prompt);
        sessionOf.set(prompt, id);
        if (out.stdout) pushes.set(prompt, out.stdout);
        // The turn as Claude Code writes it, then its Stop.
        const b =
          builders.get(id) ?? new TranscriptBuilder(id, String(ev.payload.cwd), new Date(now).toISOString());
        builders.set(id, b);
        b.user(prompt).say(`Reply to: ${prompt}`);
        writeFileSync(join(dir.path, `${id}.jsonl`), b.text());
        expect((await run("stop", { ...payload, hook_event_name: "Stop" })).stderr).toBe("");
      }
    }
    const read = new Database(db, { readonly: true });
    try {
      const handoffs = read
        .query("SELECT session_id, path, predecessor, chosen_by, evidence FROM handoffs ORDER BY id")
        .all() as {
        session_id: string;
        path: string;
        predecessor: string | null;
        chosen_by: string;
        evidence: string;
      }[];
      const chainOf = (prompt: string) =>
        (
          read
            .query(
              `SELECT b.text FROM turns t JOIN bodies b ON b.turn_id = t.id AND b.role = 'user'
             WHERE t.session_id = ${chainKeyOf("$s")}
             ORDER BY t.started_at`,
            )
            .all({ s: sessionOf.get(prompt)! }) as { text: string }[]
        )
          .map((r) => r.text)
          .filter((t) => t !== "/clear");
      const chains = new Map([...sessionOf.keys()].map((p) => [p, chainOf(p)]));
      return {
        pushes,
        handoffs,
        sessionOf,
        chainOf: (p: string) => chains.get(p),
        handoffOf: (p: string) => handoffs.find((h) => h.session_id === sessionOf.get(p)),
      };
    } finally {
      read.close();
    }
  }

  /** The session that received `prompt`. */
  function sessionBefore(rec: Recording, prompt: string): string {
    return rec.events.find((e) => e.event === "UserPromptSubmit" && e.payload.prompt === prompt)!.payload
      .session_id;
  }

  describe("which session a /clear continues (recorded hooks of two windows)", () => {
    for (const cli of ["2.1.332", "2.1.197"]) {
      const rec = loadRecording(cli);
      const evidence = cli === "2.1.332" ? /^same client process \(pid:\d+\)/ : /^same prompt_id /;

      test(`${cli}: each window's clears continue that window, also clear-clear-prompt and two clears in the same second`, async () => {
        const r = await replayRecording(rec);
        // A: one, /clear, /clear, two → A's push holds A's first turn (passed on by the empty middle session).
        const two = r.pushes.get("alpha two")!;
        expect(two).toContain("alpha one");
        expect(two).not.toContain("beta one");
        expect(r.handoffOf("alpha two")).toMatchObject({ path: "auto", chosen_by: "link" });
        expect(r.handoffOf("alpha two")!.evidence).toMatch(evidence);
        expect(r.handoffOf("alpha two")!.evidence).toContain("cleared before its first prompt");
        // Both windows clear within the same second: each continues its own.
        const three = r.pushes.get("alpha three")!;
        expect(three).toContain("alpha two");
        expect(three).not.toContain("beta");
        expect(r.handoffOf("alpha three")).toMatchObject({
          predecessor: sessionBefore(rec, "alpha two"),
          chosen_by: "link",
        });
        const beta = r.pushes.get("beta two")!;
        expect(beta).toContain("beta one");
        expect(beta).not.toContain("alpha");
        expect(r.handoffOf("beta two")).toMatchObject({
          predecessor: sessionBefore(rec, "beta one"),
          chosen_by: "link",
        });
        expect(r.chainOf("alpha three")).toEqual(["alpha one", "alpha two", "alpha three"]);
        expect(r.chainOf("beta two")).toEqual(["beta one", "beta two"]);
      });
    }

    test("2.1.197 without /proc (macOS, Windows): the shared prompt_id alone links", async () => {
      const r = await replayRecording(loadRecording("2.1.197"), { proc: false });
      expect(r.handoffOf("alpha three")).toMatchObject({
        predecessor: sessionBefore(loadRecording("2.1.197"), "alpha two"),
        chosen_by: "link",
      });
      expect(r.handoffOf("beta two")!.evidence).toMatch(/^same prompt_id /);
    });

    test("2.1.197 without prompt_id: the parent-process walk alone links", async () => {
      const rec = loadRecording("2.1.197");
      const r = await replayRecording(rec, { promptId: false });
      expect(r.handoffOf("alpha three")).toMatchObject({
        predecessor: sessionBefore(rec, "alpha two"),
        chosen_by: "link",
      });
      expect(r.handoffOf("beta two")!.evidence).toMatch(/^same client process \(pid:\d+\)/);
    });

    for (const cli of ["2.1.332", "2.1.197"])
      test(`${cli} with neither link: a SessionEnd(clear) just seen in the project beats the newer window`, async () => {
        const rec = loadRecording(cli);
        const r = await replayRecording(rec, { promptId: false, claudePid: false, proc: false });
        // B was the most recently active session when A cleared; A's own clear wins.
        expect(r.pushes.get("alpha two")).toContain("alpha one");
        expect(r.pushes.get("alpha two")).not.toContain("beta one");
        expect(r.handoffOf("alpha two")).toMatchObject({ chosen_by: "fallback" });
        expect(r.handoffOf("alpha two")!.evidence).toMatch(/^SessionEnd\(clear\) of /);
      });

    test("no SessionEnd at all: the newest live session of the project is the last fallback, and says so", async () => {
      const rec = loadRecording("2.1.332");
      const r = await replayRecording(rec, {
        promptId: false,
        claudePid: false,
        proc: false,
        sessionEnd: false,
      });
      expect(r.handoffOf("alpha two")).toMatchObject({ chosen_by: "fallback" });
      expect(r.handoffOf("alpha two")!.evidence).toContain("newest live session of the project");
    });
  });

  describe("clears with no prompt between them keep the chain", () => {
    function clientDriver(dir: string): HookDriver {
      const h = new HookDriver(dir, undefined, { marksKept: kept });
      // One client process for every hook; no /proc walk (the recorded trees are tested above).
      h.env.CLAUDE_PID = "4242";
      h.env.THROUGHLINE_PROC_ROOT = join(dir, "no-proc");
      return h;
    }

    test("/tl, a quick /clear, a ghost SessionStart, /clear again, then a prompt: the push holds the first session", async () => {
      using dir = tempDir();
      const h = clientDriver(dir.path);
      await session(h, sid(1), 3);
      await h.fire("user-prompt-submit", sid(1), { prompt: "/tl" });
      h.advance(500);
      await h.fire("session-end", sid(1), { reason: "clear" });
      h.advance(200);
      await h.fire("session-start", sid(2), { source: "clear" });
      h.advance(150);
      await h.fire("session-start", sid(5), { source: "clear" }); // ghost
      h.write(
        new TranscriptBuilder(sid(2), PROJECT, new Date(h.clock).toISOString()).user(
          "<command-name>/clear</command-name>",
        ),
      );
      h.advance(800);
      await h.fire("session-end", sid(2), { reason: "clear" });
      h.advance(200);
      await h.fire("session-start", sid(3), { source: "clear" });
      h.advance(3000);
      const out = await h.fire("user-prompt-submit", sid(3), { prompt: "ok continue" });
      expect(out.stdout).toContain("1111 answer 3");
      h.read((db) => {
        // Three turns of the first session and the middle session's /clear.
        expect(
          count(db, `SELECT count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")}`, { s: sid(3) }),
        ).toBe(4);
        const rows = db
          .query(
            "SELECT session_id, path, predecessor, chosen_by FROM handoffs WHERE path != 'none' ORDER BY id",
          )
          .all();
        // The empty middle session was settled first (it took the baton), then passed on.
        expect(rows).toEqual([
          { session_id: sid(2), path: "baton", predecessor: sid(1), chosen_by: "baton" },
          { session_id: sid(3), path: "auto", predecessor: sid(2), chosen_by: "link" },
        ]);
        expect(count(db, "SELECT count(*) n FROM handoff_batons")).toBe(0);
      });
      const doc = JSON.parse(runCli(["doctor", "--session", sid(3), "--json", "--db", h.dbPath]).stdout);
      expect(doc.handoffs[0].choice).toBe(`link → ${sid(2)}`);
      expect(doc.handoffs[0].evidence).toContain("same client process (pid:4242)");
      const middle = JSON.parse(runCli(["doctor", "--session", sid(2), "--json", "--db", h.dbPath]).stdout);
      expect(middle.handoffs[0].choice).toBe(`baton → ${sid(1)}`);
      expect(middle.cleared_by).toMatchObject([{ client: "pid:4242" }]);
    });

    test("SessionEnd(clear) landing after the new SessionStart is found at the first prompt", async () => {
      using dir = tempDir();
      const h = clientDriver(dir.path);
      await session(h, sid(1), 2);
      h.advance(MIN);
      await session(h, sid(2), 2); // another, newer session of the project
      h.env.CLAUDE_PID = "5151";
      await h.fire("session-start", sid(3), { source: "clear" });
      h.env.CLAUDE_PID = "4242";
      h.advance(100);
      await h.fire("session-end", sid(1), { reason: "clear" });
      await h.fire("session-start", sid(4), { source: "clear" });
      h.advance(100);
      // sid(3)'s client cleared nothing: it falls back; sid(4) links to sid(1) although sid(2) is newer.
      const four = await h.fire("user-prompt-submit", sid(4), { prompt: "go" });
      expect(four.stdout).toContain("1111 answer 2");
      expect(four.stdout).not.toContain("2222 answer");
      h.read((db) =>
        expect(
          db.query("SELECT predecessor, chosen_by FROM handoffs WHERE session_id = $s").get({ s: sid(4) }),
        ).toEqual({ predecessor: sid(1), chosen_by: "link" }),
      );
    });
  });
}
