/**
 * PreCompact, SessionEnd and SessionStart after a compaction load the ingest only when the session's transcripts may hold bytes
 * their cursors have not read (src/capture/unread.ts): the cursor and one stat decide, and any
 * doubt takes the ingest. These run on the real clock, as a hook does: a cursor's time is then
 * comparable with the file's modification time.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mayHaveGrown, sessionMayHaveGrown } from "../../src/capture/unread.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";
import { tempDir } from "../helpers/db.ts";
import { fileDigest } from "../helpers/pull.ts";
import { TranscriptBuilder } from "../helpers/transcript.ts";

const SID = "5e551011-0000-4000-8000-000000000001";

function session(dir: string) {
  const db = join(dir, "tl.db");
  const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir, HOME: dir, CLAUDE_PID: "4242" };
  const path = join(dir, `${SID}.jsonl`);
  const b = new TranscriptBuilder(SID, dir);
  b.user("first prompt").say("first answer");
  writeFileSync(path, b.text());
  const fire = async (event: string, extra: Record<string, unknown> = {}) => {
    const payload = { session_id: SID, transcript_path: path, cwd: dir, hook_event_name: event, ...extra };
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
  return { db, env, path, b, fire, turns, cursorSize, state };
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
