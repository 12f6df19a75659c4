/**
 * SessionStart without the database (src/hooks/claim.ts, docs/hooks.md "Which session a /clear
 * continues"): once the pending marks are kept, SessionStart writes what it knows into the
 * session's mark and opens nothing; the first prompt of any session claims every SessionStart
 * born before it, in birth order, as if each had claimed at its own start.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { markIntent, pendingMark } from "../../src/db/marks/pending.ts";
import { HookDriver } from "../helpers/hooks.ts";

const PROJECT = "/home/dev/project";

/** Two windows of one project, with no client to tell them apart (no CLAUDE_PID, no /proc). */
function driver(dir: string): HookDriver {
  const h = new HookDriver(dir, undefined, { marksKept: true });
  delete h.env.CLAUDE_PID;
  h.env.THROUGHLINE_PROC_ROOT = join(dir, "no-proc");
  mkdirSync(h.env.THROUGHLINE_PROC_ROOT, { recursive: true });
  return h;
}

async function oneTurn(h: HookDriver, id: string, words: string) {
  await h.fire("session-start", id, { source: "startup" });
  await h.fire("user-prompt-submit", id, { prompt: `${words} prompt` });
  h.write(
    new TranscriptBuilder(id, PROJECT, new Date(h.clock).toISOString())
      .user(`${words} prompt`)
      .say(`${words} reply`),
  );
  await h.fire("stop", id, { stop_hook_active: false });
}

function handoffOf(h: HookDriver, id: string) {
  return h.read((db) =>
    db.query("SELECT predecessor, chosen_by, evidence FROM handoffs WHERE session_id = ?").all(id),
  ) as { predecessor: string; chosen_by: string; evidence: string }[];
}

const fileState = (path: string) => (existsSync(path) ? Bun.hash(readFileSync(path)).toString(16) : "absent");

describe("SessionStart writes only its intent once the marks are kept", () => {
  test("no database byte is written at SessionStart; the first prompt claims it and hands over", async () => {
    using dir = tempDir();
    const h = driver(dir.path);
    await oneTurn(h, "old-1", "alpha");
    h.advance(1000);
    await h.fire("session-end", "old-1", { reason: "clear" });
    const before = [fileState(h.dbPath), fileState(`${h.dbPath}-wal`)];
    h.advance(100);
    expect((await h.fire("session-start", "new-1", { source: "clear" })).stdout).toBe("");
    // Neither the database nor its WAL changed (a writer's close would have left the WAL checkpointed
    // and the file rewritten); the intent is in the mark.
    expect([fileState(h.dbPath), fileState(`${h.dbPath}-wal`)]).toEqual(before);
    const intent = JSON.parse(readFileSync(`${h.dbPath}-pending/new-1`, "utf8"));
    expect(statSync(`${h.dbPath}-pending/new-1`).mode & 0o777).toBe(0o600);
    expect(intent).toMatchObject({ session_id: "new-1", source: "clear", client: null, cwd: PROJECT });
    expect(h.read((db) => db.query("SELECT count(*) AS n FROM sessions WHERE id = 'new-1'").get())).toEqual({
      n: 0,
    });

    h.advance(60_000);
    const push = (await h.fire("user-prompt-submit", "new-1", { prompt: "go on" })).stdout;
    expect(push).toContain("alpha reply");
    expect(handoffOf(h, "new-1")).toEqual([
      expect.objectContaining({ predecessor: "old-1", chosen_by: "fallback" }),
    ]);
    // Born when SessionStart ran, not when the prompt folded it in.
    expect(h.read((db) => db.query("SELECT created_at FROM sessions WHERE id = 'new-1'").get())).toEqual({
      created_at: h.clock - 60_000,
    });
    expect(pendingMark(h.dbPath, "new-1")).toBe(false);
  });

  test("two windows clearing at once: whichever prompts first, each continues its own window", async () => {
    using dir = tempDir();
    const h = driver(dir.path);
    await oneTurn(h, "a-old", "alpha");
    h.advance(1000);
    await oneTurn(h, "b-old", "beta");
    h.advance(60_000);
    // Both clears land within the same 10 s; no client tells the windows apart, so each SessionStart
    // takes the newest clear of the project that nobody took yet: A's first, then B's.
    await h.fire("session-end", "b-old", { reason: "clear" });
    h.advance(100);
    await h.fire("session-end", "a-old", { reason: "clear" });
    h.advance(100);
    await h.fire("session-start", "a-new", { source: "clear" });
    h.advance(100);
    await h.fire("session-start", "b-new", { source: "clear" });
    // B prompts first: it claims A's SessionStart before its own, in the order they were born.
    h.advance(30_000);
    const beta = (await h.fire("user-prompt-submit", "b-new", { prompt: "beta next" })).stdout;
    expect(beta).toContain("beta reply");
    expect(beta).not.toContain("alpha");
    expect(handoffOf(h, "b-new")).toEqual([expect.objectContaining({ predecessor: "b-old" })]);
    // A's claim was written, and its mark says so; A's prompt then hands over A's memory.
    expect(readFileSync(`${h.dbPath}-pending/a-new`, "utf8")).toBe("1");
    h.advance(30_000);
    const alpha = (await h.fire("user-prompt-submit", "a-new", { prompt: "alpha next" })).stdout;
    expect(alpha).toContain("alpha reply");
    expect(alpha).not.toContain("beta");
    expect(handoffOf(h, "a-new")).toEqual([expect.objectContaining({ predecessor: "a-old" })]);
  });

  test("an intent already handed over (its mark outlived the commit) is not claimed twice", async () => {
    using dir = tempDir();
    const h = driver(dir.path);
    await oneTurn(h, "old-2", "gamma");
    h.advance(1000);
    await h.fire("session-end", "old-2", { reason: "clear" });
    h.advance(100);
    await h.fire("session-start", "new-2", { source: "clear" });
    const intent = readFileSync(`${h.dbPath}-pending/new-2`, "utf8");
    h.advance(1000);
    expect((await h.fire("user-prompt-submit", "new-2", { prompt: "one" })).stdout).toContain("gamma reply");
    // What a crash between the handoff's commit and the mark's removal leaves.
    writeFileSync(`${h.dbPath}-pending/new-2`, intent);
    h.advance(1000);
    expect((await h.fire("user-prompt-submit", "new-2", { prompt: "two" })).stdout).toBe("");
    expect(handoffOf(h, "new-2")).toHaveLength(1);
    expect(existsSync(`${h.dbPath}-pending/new-2`)).toBe(false);
  });

  test("an unreadable intent is skipped and recorded; the prompt goes on and the next one takes the fast path", async () => {
    using dir = tempDir();
    const h = driver(dir.path);
    await oneTurn(h, "old-3", "delta");
    writeFileSync(`${h.dbPath}-pending/new-3`, "{not a record");
    const out = await h.fire("user-prompt-submit", "new-3", { prompt: "hello" });
    expect(out).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    const errors = h.read((db) => db.query("SELECT message FROM hook_errors").all()) as { message: string }[];
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining("unreadable SessionStart record")]);
    expect(pendingMark(h.dbPath, "new-3")).toBe(false);
    // The next prompt is answered from the marks alone: even an unreadable database is not opened.
    writeFileSync(h.dbPath, "not a database");
    expect((await h.fire("user-prompt-submit", "new-3", { prompt: "again" })).exitCode).toBe(0);
  });

  test("a mark another window folded or consumed between the listing and the read is gone, not unreadable", () => {
    const intent = { session_id: "w-2", source: "clear", created_at: 1, cwd: "/tmp/x" };
    // Folded: its prompt wrote "1"; consumed: the file removed (read as ""); caught mid-rewrite: "".
    expect(markIntent("w-2", "1")).toBe("gone");
    expect(markIntent("w-2", "")).toBe("gone");
    expect(markIntent("w-2", "{not a record")).toBeNull();
    expect(markIntent("w-2", JSON.stringify(intent))).toMatchObject({ session_id: "w-2", source: "clear" });
  });

  test("no SessionEnd at all: the newest live session as of the new session's birth, not the window that wrote since", async () => {
    using dir = tempDir();
    const h = driver(dir.path);
    await oneTurn(h, "b-old", "beta");
    h.advance(60_000);
    await oneTurn(h, "a-old", "alpha");
    h.advance(10_000);
    // A clears (its SessionEnd never ran); B keeps working before A's first prompt.
    await h.fire("session-start", "a-new", { source: "clear" });
    h.advance(10_000);
    h.write(
      new TranscriptBuilder("b-old", PROJECT, new Date(h.clock).toISOString())
        .user("beta prompt")
        .say("beta reply")
        .user("beta more")
        .say("beta more reply"),
    );
    await h.fire("stop", "b-old", { stop_hook_active: false });
    h.advance(10_000);
    const push = (await h.fire("user-prompt-submit", "a-new", { prompt: "go" })).stdout;
    expect(handoffOf(h, "a-new")).toEqual([
      expect.objectContaining({ predecessor: "a-old", chosen_by: "fallback" }),
    ]);
    expect(push).toContain("alpha reply");
    expect(push).not.toContain("beta");
  });

  test("a ghost SessionStart born before is claimed by the next prompt, as SessionStart used to claim it at once", async () => {
    using dir = tempDir();
    const h = driver(dir.path);
    await h.fire("session-start", "ghost", { source: "startup" });
    h.advance(100);
    await h.fire("session-start", "real", { source: "startup" });
    h.advance(100);
    await h.fire("user-prompt-submit", "real", { prompt: "first" });
    // The ghost born before was claimed too (its row, as SessionStart used to write at once).
    expect(h.read((db) => db.query("SELECT session_id FROM pending_handoffs").all())).toEqual([
      { session_id: "ghost" },
    ]);
    expect(readFileSync(`${h.dbPath}-pending/ghost`, "utf8")).toBe("1");
  });
});
