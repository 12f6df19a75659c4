import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTEXT_BUDGET } from "../../src/core/context.ts";
import { CORPUS, count, runCli, tempDir } from "../helpers/db.ts";
import { HookDriver } from "../helpers/hooks.ts";
import { TranscriptBuilder } from "../helpers/transcript.ts";

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

describe("lifecycle: /clear auto handoff (SPEC §4.1)", () => {
  test("SessionStart(clear) + ghost, then the first prompt gets the push; later prompts get nothing", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
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
      expect(count(db, "SELECT count(*) n FROM turns WHERE session_id = $s", { s: next })).toBe(5);
      expect(count(db, "SELECT count(*) n FROM turns WHERE session_id = $s", { s: ghost })).toBe(0);
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
    const h = new HookDriver(dir.path);
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
  });

  test("the predecessor's last turn that never had a Stop is in the push", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    await session(h, sid(1), 3, { stopLast: false });
    h.read((db) => expect(count(db, "SELECT count(*) n FROM turns")).toBe(2));
    await h.fire("session-start", sid(2), { source: "clear" });
    const out = await h.fire("user-prompt-submit", sid(2), { prompt: "go on" });
    expect(out.stdout).toContain("1111 prompt 3");
    expect(out.stdout).toContain("1111 answer 3");
  });

  test("THROUGHLINE_DISABLE_AUTO_HANDOFF=1 turns the automatic handoff off", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    await session(h, sid(1), 2);
    h.env.THROUGHLINE_DISABLE_AUTO_HANDOFF = "1";
    await h.fire("session-start", sid(2), { source: "clear" });
    expect((await h.fire("user-prompt-submit", sid(2), { prompt: "hi" })).stdout).toBe("");
  });

  test("a session in another project is never the predecessor", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    await session(h, sid(1), 2);
    await h.fire("session-start", sid(2), { source: "clear" }, "/elsewhere");
    expect((await h.fire("user-prompt-submit", sid(2), { prompt: "hi" }, "/elsewhere")).stdout).toBe("");
  });

  test("a missing database at the first prompt is created by the hook", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    expect(existsSync(h.dbPath)).toBe(false);
    expect((await h.fire("user-prompt-submit", sid(1), { prompt: "hello" })).stdout).toBe("");
    expect(existsSync(h.dbPath)).toBe(true);
  });
});

describe("lifecycle: /tl baton (SPEC §5)", () => {
  async function batonThenNewSession(gapMs: number) {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
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
    const h = new HookDriver(dir.path);
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
    const h = new HookDriver(dir.path);
    await h.fire("session-start", sid(1), { source: "startup" });
    expect((await h.fire("user-prompt-submit", sid(1), { prompt: "/tl" })).stdout).toBe("");
    h.read((db) => {
      expect(db.query("SELECT session_id FROM handoff_batons").get()).toEqual({ session_id: sid(1) });
      expect(db.query("SELECT merged_into FROM sessions").get()).toEqual({ merged_into: null });
    });
  });

  test("S1 → S2 → S3 keeps every turn with its origin; S3's baked recall reaches S1", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
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
            "SELECT origin_session_id o, count(*) n FROM turns WHERE session_id = $s GROUP BY 1 ORDER BY 1",
          )
          .all({ s: sid(4) }),
      ).toEqual([
        { o: sid(1), n: 12 },
        { o: sid(2), n: 12 },
        { o: sid(3), n: 12 },
      ]);
    });
    const l1 = /throughline recall --l1 [^\n`]*/.exec(push)?.[0];
    expect(l1).toBeDefined();
    const args = l1!
      .replace(/^throughline /, "")
      .split(" ")
      .filter(Boolean);
    const r = runCli([...args, "--json", "--db", h.dbPath]);
    expect(r.stderr).toBe("");
    const keys = (JSON.parse(r.stdout).turns as { turn_key: string }[]).map((t) => t.turn_key);
    expect(keys[0]).toBe(`${sid(1)}:1`);
  });
});

describe.skipIf(!existsSync(join(CORPUS, "transcripts")))("lifecycle on a real recorded session", () => {
  test("Stop turn by turn, /clear with a ghost, then the push", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
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
      expect(count(db, "SELECT count(*) n FROM turns WHERE session_id = $s", { s: sid(7) })).toBe(14);
      expect(count(db, "SELECT count(*) n FROM turns WHERE session_id = $s", { s: sid(8) })).toBe(0);
    });
  }, 60_000);
});
