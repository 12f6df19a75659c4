/**
 * PreCompact, SessionEnd and SessionStart after a compaction load the ingest only when the session's transcripts may hold bytes
 * their cursors have not read (src/capture/unread.ts): the cursor and one stat decide, and any
 * doubt takes the ingest. These run on the real clock, as a hook does: a cursor's time is then
 * comparable with the file's modification time.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { fileDigest } from "../../harness/pull.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { mayHaveGrown, readToTheEnd, sessionMayHaveGrown } from "../../src/capture/unread.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";

const SID = "5e551011-0000-4000-8000-000000000001";

function session(dir: string) {
  const db = join(dir, "tl.db");
  const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir, HOME: dir, CLAUDE_PID: "4242" };
  const path = join(dir, `${SID}.jsonl`);
  const b = new TranscriptBuilder(SID, dir);
  b.user("first prompt").say("first answer");
  writeFileSync(path, b.text());
  /** A hook of this session, or of another one (`sid`) in the same directory. */
  const fire = async (event: string, extra: Record<string, unknown> = {}, sid = SID) => {
    const transcript = sid === SID ? path : join(dir, `${sid}.jsonl`);
    const payload = {
      session_id: sid,
      transcript_path: transcript,
      cwd: dir,
      hook_event_name: event,
      ...extra,
    };
    const out = await runHook(event, JSON.stringify(payload), env);
    expect(out.stderr).toBe("");
    expect(out.exitCode).toBe(0);
    return out;
  };
  const read = <T>(fn: (d: Database) => T): T => {
    const d = new Database(db, { readonly: true });
    try {
      return fn(d);
    } finally {
      d.close();
    }
  };
  const turns = () => read((d) => (d.query("SELECT count(*) AS n FROM turns").get() as { n: number }).n);
  const cursorSize = (p: string) =>
    read(
      (d) =>
        (
          d.query("SELECT size FROM ingest_cursors WHERE transcript_path = ?").get(p) as {
            size: number;
          } | null
        )?.size ?? null,
    );
  const state = () => [fileDigest(db), existsSync(`${db}-wal`) ? fileDigest(`${db}-wal`) : "no wal"];
  return { db, env, path, b, fire, read, turns, cursorSize, state };
}

describe("PreCompact and SessionEnd read only what is unread", () => {
  test("after the Stop read it all, PreCompact and SessionEnd(exit) write nothing", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    expect(s.turns()).toBe(1);
    const before = s.state();
    await s.fire("pre-compact", { trigger: "manual", custom_instructions: null });
    expect(s.state()).toEqual(before);
    await s.fire("session-end", { reason: "prompt_input_exit" });
    expect(s.state()).toEqual(before);
  });

  test("bytes past the cursor are stored by PreCompact, and by SessionEnd(clear) with its link", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    // An interrupted turn: no Stop ran for it.
    s.b.user("second prompt").say("second answer, interrupted");
    writeFileSync(s.path, s.b.text());
    await s.fire("pre-compact", { trigger: "auto", custom_instructions: null });
    expect(s.turns()).toBe(2);
    expect(s.cursorSize(s.path)).toBe(Bun.file(s.path).size);
    s.b.user("third prompt").say("third answer");
    writeFileSync(s.path, s.b.text());
    await s.fire("session-end", { reason: "clear" });
    expect(s.turns()).toBe(3);
    const d = new Database(s.db, { readonly: true });
    expect(d.query("SELECT count(*) AS n FROM clear_links WHERE session_id = ?").get(SID)).toEqual({ n: 1 });
    d.close();
  });

  test("a rewrite of the same size, modified after the read, is read again", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    const w = openForWrite(s.db);
    try {
      expect(mayHaveGrown(w, s.path)).toBe(false);
      expect(sessionMayHaveGrown(w, s.path)).toBe(false);
      // Same length, other words, a modification time past the cursor's.
      const text = (await Bun.file(s.path).text()).replace("first answer", "FIRST ANSWER");
      writeFileSync(s.path, text);
      const later = new Date(Date.now() + 5_000);
      utimesSync(s.path, later, later);
      expect(mayHaveGrown(w, s.path)).toBe(true);
      expect(mayHaveGrown(w, join(dir.path, "never-read.jsonl"))).toBe(true);
    } finally {
      w.close();
    }
  });

  test("SessionEnd(exit) reads a subagent's transcript that grew while the session's did not", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    const agentDir = join(dir.path, SID, "subagents");
    mkdirSync(agentDir, { recursive: true });
    const agent = join(agentDir, "agent-k1.jsonl");
    const step = (n: number) =>
      `${JSON.stringify({ type: "assistant", isSidechain: true, agentId: "k1", sessionId: SID, uuid: `k1-${n}`, timestamp: s.b.time, message: { role: "assistant", content: [{ type: "text", text: `step ${n}` }] } })}\n`;
    writeFileSync(agent, step(1));
    await s.fire("stop", { stop_hook_active: false });
    expect(s.cursorSize(agent)).toBe(Bun.file(agent).size);
    appendFileSync(agent, step(2));
    const w = openForWrite(s.db);
    try {
      expect(mayHaveGrown(w, s.path)).toBe(false);
      expect(sessionMayHaveGrown(w, s.path)).toBe(true);
    } finally {
      w.close();
    }
    await s.fire("session-end", { reason: "logout" });
    expect(s.cursorSize(agent)).toBe(Bun.file(agent).size);
  });

  test("SubagentStop for a subagent with no transcript (2.1.332's compaction) writes nothing; the Stop reads the file if it appears", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    // The session grew too: still nothing is written while the agent's file is not there.
    s.b.user("second prompt").say("second answer");
    writeFileSync(s.path, s.b.text());
    const agent = join(dir.path, SID, "subagents", "agent-c0.jsonl");
    const before = s.state();
    await s.fire("subagent-stop", { agent_id: "c0", agent_type: "", agent_transcript_path: agent });
    expect(s.state()).toEqual(before);
    expect(s.read((d) => d.query("SELECT count(*) AS n FROM hook_errors").get())).toEqual({ n: 0 });
    mkdirSync(join(dir.path, SID, "subagents"), { recursive: true });
    writeFileSync(
      agent,
      `${JSON.stringify({ type: "assistant", isSidechain: true, agentId: "c0", sessionId: SID, uuid: "c0-1", timestamp: s.b.time, message: { role: "assistant", content: [{ type: "text", text: "late agent step" }] } })}\n`,
    );
    await s.fire("stop", { stop_hook_active: false });
    expect(s.turns()).toBe(2);
    expect(s.cursorSize(agent)).toBe(Bun.file(agent).size);
  });

  test("without a database yet, PreCompact creates it and stores the transcript", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    expect(existsSync(s.db)).toBe(false);
    await s.fire("pre-compact", { trigger: "auto", custom_instructions: null });
    expect(s.turns()).toBe(1);
  });

  test("SessionStart after a compaction pushes the turns, reading only what the client wrote since PreCompact", async () => {
    using dir = tempDir("tl-unread-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    await s.fire("pre-compact", { trigger: "manual", custom_instructions: null });
    const before = s.state();
    // Nothing written since: the push is printed and nothing new is read (the push's own record
    // is the only write).
    const first = await s.fire("session-start", { source: "compact" });
    expect(first.stdout).toContain("first answer");
    expect(s.cursorSize(s.path)).toBe(Bun.file(s.path).size);
    expect(s.state()).not.toEqual(before);
    // The boundary, and a turn after it, written before the next compaction's SessionStart.
    s.b.system("compact_boundary", { compactMetadata: { trigger: "manual", preTokens: 1000 } });
    s.b.user("after the boundary").say("an answer after the boundary");
    writeFileSync(s.path, s.b.text());
    const second = await s.fire("session-start", { source: "compact" });
    expect(s.cursorSize(s.path)).toBe(Bun.file(s.path).size);
    expect(s.turns()).toBe(2);
    expect(second.stdout).toContain("an answer after the boundary");
  });
});

/**
 * The same answers without SQLite (docs/hooks.md, "Hooks that find nothing to write"): a session's
 * ingest leaves a read mark after its commit, and SessionEnd(clear) leaves its link in a clear mark
 * that the next handoff folds into `clear_links`.
 */
describe("read marks and clear marks", () => {
  const markDir = (db: string) => join(`${db}-pending`, "read", SID);
  /** The one state of the transcript marked read: `<path hash>.<size>.<mtime>`. */
  const marked = (db: string) => {
    const names = existsSync(markDir(db)) ? readdirSync(markDir(db)) : [];
    expect(names.length).toBeLessThanOrEqual(1);
    const m = names[0] ? /^[0-9a-z]+\.(\d+)\.(\d+)$/.exec(names[0]) : null;
    return m ? { size: Number(m[1]), mtime: Number(m[2]) } : null;
  };
  const clearDir = (db: string) => join(`${db}-pending`, "clear");
  /** A database SQLite refuses to open: a hook that answers from the marks never notices. */
  const unopenable = (db: string) => {
    const bytes = readFileSync(db);
    const broken = Buffer.from(bytes);
    broken.fill(0, 0, 16);
    writeFileSync(db, broken);
    return () => writeFileSync(db, bytes);
  };

  test("after the Stop, PreCompact and SessionEnd(exit) answer from its read mark and open no database", async () => {
    using dir = tempDir("tl-marks-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    expect(marked(s.db)).toEqual({ size: Bun.file(s.path).size, mtime: Bun.file(s.path).lastModified });
    // The Stop's commit folded into the file first, so the file alone is the database.
    const w = new Database(s.db);
    w.run("PRAGMA wal_checkpoint(TRUNCATE)");
    w.close();
    const restore = unopenable(s.db);
    const broken = fileDigest(s.db);
    await s.fire("pre-compact", { trigger: "manual", custom_instructions: null });
    await s.fire("session-end", { reason: "prompt_input_exit" });
    expect(fileDigest(s.db)).toBe(broken);
    // Without the mark the same hook has to open the database, and says so.
    rmSync(markDir(s.db), { recursive: true });
    const payload = {
      session_id: SID,
      transcript_path: s.path,
      cwd: dir.path,
      hook_event_name: "PreCompact",
    };
    const out = await runHook("pre-compact", JSON.stringify(payload), s.env);
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain("throughline hook pre-compact");
    restore();
  });

  test("a turn written after the mark is stored by PreCompact, and the mark follows the cursor", async () => {
    using dir = tempDir("tl-marks-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    s.b.user("second prompt").say("second answer, no Stop");
    writeFileSync(s.path, s.b.text());
    expect(readToTheEnd(s.db, SID, s.path)).toBe(false);
    await s.fire("pre-compact", { trigger: "auto", custom_instructions: null });
    expect(s.turns()).toBe(2);
    expect(marked(s.db)?.size).toBe(Bun.file(s.path).size);
    expect(readToTheEnd(s.db, SID, s.path)).toBe(true);
    // Rewritten with the same size and a later modification time: another state, not marked.
    const later = new Date(Date.now() + 5_000);
    utimesSync(s.path, later, later);
    expect(readToTheEnd(s.db, SID, s.path)).toBe(false);
  });

  test("a mark for another path or session, or one a removed database left, says nothing", async () => {
    using dir = tempDir("tl-marks-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    expect(readToTheEnd(s.db, SID, s.path)).toBe(true);
    const elsewhere = join(dir.path, "elsewhere.jsonl");
    writeFileSync(elsewhere, readFileSync(s.path));
    utimesSync(elsewhere, Bun.file(s.path).lastModified / 1000, Bun.file(s.path).lastModified / 1000);
    expect(readToTheEnd(s.db, SID, elsewhere)).toBe(false);
    expect(readToTheEnd(s.db, "5e551011-0000-4000-8000-00000000ffff", s.path)).toBe(false);
    // The database removed (its -pending directory left behind), then made again by a writer.
    // A status line kept for it goes too (its key is of files that no longer exist).
    mkdirSync(`${s.db}-pending/status`, { recursive: true });
    writeFileSync(`${s.db}-pending/status/${SID}`, '{"key":"1.2.0.0","turns":7}');
    for (const f of [s.db, `${s.db}-wal`, `${s.db}-shm`]) rmSync(f, { force: true });
    expect(readToTheEnd(s.db, SID, s.path)).toBe(false);
    openForWrite(s.db).close();
    expect(existsSync(markDir(s.db))).toBe(false);
    expect(existsSync(`${s.db}-pending/status`)).toBe(false);
    await s.fire("pre-compact", { trigger: "manual", custom_instructions: null });
    expect(s.turns()).toBe(1);
  });

  test("SessionEnd(clear) with nothing to read leaves a clear mark; the next first prompt folds it and continues the session", async () => {
    using dir = tempDir("tl-marks-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    const before = s.state();
    await s.fire("session-end", { reason: "clear" });
    expect(s.state()).toEqual(before);
    const names = readdirSync(clearDir(s.db));
    expect(names).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(clearDir(s.db), names[0]!), "utf8"))).toMatchObject({
      session_id: SID,
      cwd: dir.path,
      client: "pid:4242",
    });
    // Not folded yet: doctor shows the link as waiting.
    const waiting = runCli(["doctor", "--session", SID, "--json", "--db", s.db]);
    expect(waiting.exitCode).toBe(0);
    expect(JSON.parse(waiting.stdout).cleared_by).toMatchObject([{ client: "pid:4242", waiting: true }]);
    const next = "5e551011-0000-4000-8000-000000000002";
    await s.fire("session-start", { source: "clear" }, next);
    const push = await s.fire("user-prompt-submit", { prompt: "go on" }, next);
    expect(push.stdout).toContain("first answer");
    expect(readdirSync(clearDir(s.db))).toEqual([]);
    const folded = JSON.parse(runCli(["doctor", "--session", SID, "--json", "--db", s.db]).stdout).cleared_by;
    expect(folded).toHaveLength(1);
    expect(folded[0].waiting).toBeUndefined();
    const d = new Database(s.db, { readonly: true });
    try {
      expect(d.query("SELECT session_id, client FROM clear_links").all()).toEqual([
        { session_id: SID, client: "pid:4242" },
      ]);
      expect(d.query("SELECT predecessor, chosen_by FROM handoffs WHERE session_id = ?").get(next)).toEqual({
        predecessor: SID,
        chosen_by: "link",
      });
    } finally {
      d.close();
    }
  });

  test("a clear mark that does not parse is skipped and counted; the handoff goes on", async () => {
    using dir = tempDir("tl-marks-");
    const s = session(dir.path);
    await s.fire("stop", { stop_hook_active: false });
    mkdirSync(clearDir(s.db), { recursive: true });
    writeFileSync(join(clearDir(s.db), "garbage"), "{not json");
    await s.fire("session-end", { reason: "clear" });
    const next = "5e551011-0000-4000-8000-000000000003";
    await s.fire("session-start", { source: "clear" }, next);
    const push = await s.fire("user-prompt-submit", { prompt: "go on" }, next);
    expect(push.stdout).toContain("first answer");
    expect(readdirSync(clearDir(s.db))).toEqual([]);
    const d = new Database(s.db, { readonly: true });
    try {
      const errors = d.query("SELECT message FROM hook_errors").all() as { message: string }[];
      expect(errors.map((e) => e.message)).toEqual([
        expect.stringContaining("skipped 1 unreadable SessionEnd(clear) mark(s): garbage"),
      ]);
    } finally {
      d.close();
    }
  });
});

describe("clear marks of two windows", () => {
  test("each window's /clear, left as a mark, is continued by the session that window starts next", async () => {
    using dir = tempDir("tl-marks-");
    const db = join(dir.path, "tl.db");
    const base = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir.path, HOME: dir.path };
    const id = (n: number) => `5e551011-0000-4000-8000-0000000001${String(n).padStart(2, "0")}`;
    const fire = async (event: string, sid: string, pid: string, extra: Record<string, unknown> = {}) => {
      const payload = {
        session_id: sid,
        transcript_path: join(dir.path, `${sid}.jsonl`),
        cwd: dir.path,
        hook_event_name: event,
        ...extra,
      };
      const out = await runHook(event, JSON.stringify(payload), { ...base, CLAUDE_PID: pid });
      expect(out.stderr).toBe("");
      return out.stdout;
    };
    // Window 1 (pid 111) worked in session 1, window 2 (pid 222) in session 2, same project.
    for (const [n, words] of [
      [1, "alpha"],
      [2, "beta"],
    ] as const) {
      const b = new TranscriptBuilder(id(n), dir.path);
      b.user(`${words} prompt`).say(`${words} reply`);
      writeFileSync(join(dir.path, `${id(n)}.jsonl`), b.text());
      await fire("stop", id(n), n === 1 ? "111" : "222", { stop_hook_active: false });
    }
    // Both clear; window 1's new session prompts first. Without the links it would be handed the
    // newest live session of the project, window 2's.
    await fire("session-end", id(1), "111", { reason: "clear" });
    await fire("session-end", id(2), "222", { reason: "clear" });
    expect(readdirSync(join(`${db}-pending`, "clear"))).toHaveLength(2);
    await fire("session-start", id(3), "111", { source: "clear" });
    await fire("session-start", id(4), "222", { source: "clear" });
    const alpha = await fire("user-prompt-submit", id(3), "111", { prompt: "alpha next" });
    const beta = await fire("user-prompt-submit", id(4), "222", { prompt: "beta next" });
    expect(beta).toContain("beta reply");
    expect(beta).not.toContain("alpha reply");
    expect(alpha).toContain("alpha reply");
    expect(alpha).not.toContain("beta reply");
    expect(readdirSync(join(`${db}-pending`, "clear"))).toEqual([]);
  });
});
