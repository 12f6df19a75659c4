/**
 * End-to-end: parallel windows and repeated clears with the real Claude Code TUI (tmux),
 * offline. Each /clear must continue its own window's session, whatever the other windows
 * did last, and clears with no prompt between them must keep the chain (docs/hooks.md, "Which
 * session a /clear continues"). Runs against THROUGHLINE_E2E_CLAUDE or the pinned CLI.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  createHome,
  type E2EHome,
  e2eSkipReason,
  findTranscript,
  hookEvents,
  installHooks,
  queryDb,
  readTranscript,
  TmuxClaude,
  waitUntil,
} from "../../harness/e2e/driver.ts";
import { lastPrompt } from "../../harness/e2e/stand-in.ts";
import { chainKeyOf } from "../../src/db/queries/sessions.ts";

const SKIP = e2eSkipReason();
if (SKIP) console.warn(`e2e: skipped (${SKIP})`);
const LONG = 240_000;

const homes: E2EHome[] = [];
afterAll(async () => {
  for (const h of homes) await h[Symbol.asyncDispose]();
});

async function newHome(): Promise<E2EHome> {
  const h = await createHome({ script: (_r, body) => `Reply to: ${lastPrompt(body)}` });
  homes.push(h);
  installHooks(h, "auto");
  return h;
}

function tag(): string {
  return Math.random().toString(36).slice(2, 7);
}

/** One window: its tmux session and the id of the session it is in now. */
class Window {
  sid = "";
  readonly h: E2EHome;
  readonly t: TmuxClaude;
  constructor(h: E2EHome, t: TmuxClaude) {
    this.h = h;
    this.t = t;
  }

  static async open(h: E2EHome): Promise<Window> {
    const t = await TmuxClaude.start(h);
    await t.waitReady(60_000);
    return new Window(h, t);
  }

  /** Submit a prompt and wait until its turn is stored with its reply. */
  async prompt(text: string): Promise<void> {
    await this.t.submit(text);
    const ups = await waitUntil(
      () => hookEvents(this.h, "UserPromptSubmit").find((r) => r.payload.prompt === text),
      `UserPromptSubmit for "${text}"`,
    );
    this.sid = String(ups.payload.session_id);
    await this.t.waitForScreen((s) => s.includes(`Reply to: ${text}`), `the reply to "${text}"`);
    await waitUntil(() => storedPrompts(this.h, this.sid).includes(text), `"${text}" stored`);
  }

  /** `/clear`, then the new session id from its SessionStart(clear). */
  async clear(): Promise<string> {
    const known = new Set(hookEvents(this.h, "SessionStart").map((r) => String(r.payload.session_id)));
    await this.t.submit("/clear");
    const start = await waitUntil(
      () =>
        hookEvents(this.h, "SessionStart").find(
          (r) => r.payload.source === "clear" && !known.has(String(r.payload.session_id)),
        ),
      "SessionStart(clear) of a new session",
    );
    await this.t.waitReady();
    this.sid = String(start.payload.session_id);
    return this.sid;
  }

  /** The push the session's first prompt received, as Claude Code recorded it. */
  push(): string {
    const path = findTranscript(this.h, this.sid);
    if (!path) return "";
    const outs = readTranscript(path)
      .map((e) => e.attachment as Record<string, unknown> | undefined)
      .filter((a) => a?.type === "hook_success" && a.hookEvent === "UserPromptSubmit")
      .map((a) => String(a?.content ?? ""));
    return outs.join("\n");
  }

  close(): Promise<void> {
    return this.t.close();
  }
}

/** Prompts stored in the chain holding `sid`, oldest first. */
function storedPrompts(h: E2EHome, sid: string): string[] {
  return (
    queryDb(h, (db) =>
      (
        db
          .query(
            `SELECT b.text FROM turns t JOIN bodies b ON b.turn_id = t.id AND b.role = 'user'
             WHERE t.session_id = ${chainKeyOf("$s")}
             ORDER BY t.started_at`,
          )
          .all({ s: sid }) as { text: string }[]
      ).map((r) => r.text),
    ) ?? []
  );
}

function handoffOf(h: E2EHome, sid: string) {
  return queryDb(h, (db) =>
    db.query("SELECT path, predecessor, chosen_by, evidence FROM handoffs WHERE session_id = ?").get(sid),
  ) as { path: string; predecessor: string | null; chosen_by: string | null; evidence: string | null } | null;
}

/** The session's push is there, holds each of `own` and none of `foreign`. */
async function expectPush(w: Window, own: string[], foreign: string[]): Promise<void> {
  await waitUntil(() => w.push() !== "", `the push of ${w.sid}`);
  const push = w.push();
  for (const p of own) expect(push).toContain(p);
  for (const p of foreign) expect(push).not.toContain(p);
}

describe.skipIf(SKIP !== null)("parallel windows and repeated clears (real TUI)", () => {
  test(
    "two windows, interleaved: /clear in the less recent one, then in the other; each continues its own",
    async () => {
      const h = await newHome();
      const k = tag();
      const a = await Window.open(h);
      const b = await Window.open(h);
      try {
        const pa = [1, 2, 3].map((i) => `alpha ${i} ${k}`);
        const pb = [1, 2].map((i) => `beta ${i} ${k}`);
        await a.prompt(pa[0]!);
        await b.prompt(pb[0]!);
        await a.prompt(pa[1]!);
        await a.prompt(pa[2]!);
        await b.prompt(pb[1]!); // B is the most recently active window
        const a1 = a.sid;
        const b1 = b.sid;

        await a.clear();
        await a.prompt(`ok continue alpha ${k}`);
        await expectPush(a, pa, pb);
        expect(handoffOf(h, a.sid)).toMatchObject({ path: "auto", predecessor: a1, chosen_by: "link" });

        await b.clear();
        await b.prompt(`ok continue beta ${k}`);
        await expectPush(b, pb, pa);
        expect(handoffOf(h, b.sid)).toMatchObject({ path: "auto", predecessor: b1, chosen_by: "link" });
      } finally {
        await a.close();
        await b.close();
      }
    },
    LONG,
  );

  test(
    "three windows, clears in every order (one window clearing twice before a prompt): each keeps its own chain",
    async () => {
      const h = await newHome();
      const k = tag();
      const ws = [await Window.open(h), await Window.open(h), await Window.open(h)];
      try {
        const first = ws.map((_, i) => `window ${i} first ${k}`);
        for (const [i, w] of ws.entries()) await w.prompt(first[i]!);
        const old = ws.map((w) => w.sid);
        // Clears interleaved: 2, 0, 2 again, 1, before any of them prompts again.
        await ws[2]!.clear();
        await ws[0]!.clear();
        await ws[2]!.clear();
        await ws[1]!.clear();
        for (const i of [1, 2, 0]) {
          const w = ws[i]!;
          await w.prompt(`window ${i} again ${k}`);
          await expectPush(
            w,
            [first[i]!],
            first.filter((_, j) => j !== i),
          );
        }
        for (const i of [0, 1])
          expect(handoffOf(h, ws[i]!.sid)).toMatchObject({ predecessor: old[i], chosen_by: "link" });
        // Window 2 cleared twice: its handoff names the empty middle session, which passed on.
        expect(handoffOf(h, ws[2]!.sid)).toMatchObject({ path: "auto", chosen_by: "link" });
        expect(handoffOf(h, ws[2]!.sid)!.evidence).toContain("cleared before its first prompt");
      } finally {
        for (const w of ws) await w.close();
      }
    },
    LONG,
  );

  test(
    "clear, clear, prompt and then clear, prompt: the last push reaches the first session's turns",
    async () => {
      const h = await newHome();
      const k = tag();
      const w = await Window.open(h);
      try {
        const one = `first words ${k}`;
        await w.prompt(one);
        await w.clear();
        await w.clear();
        const two = `after two clears ${k}`;
        await w.prompt(two);
        await expectPush(w, [one], []);
        expect(w.push()).not.toMatch(/^\s*$/);
        await w.clear();
        const three = `after one more clear ${k}`;
        await w.prompt(three);
        await expectPush(w, [one, two], []);
        expect(storedPrompts(h, w.sid).filter((p) => p !== "/clear")).toEqual([one, two, three]);
      } finally {
        await w.close();
      }
    },
    LONG,
  );
});
