/**
 * Codex's interactive TUI, end to end (docs/hosts.md): the real `codex --no-daemon` (`@openai/codex`,
 * pinned in devDependencies) in a private tmux server, offline against the loopback stand-in of the
 * Responses API (codex-stand-in.ts), its config pre-seeded so that no trust prompt or one-time notice
 * stands in the way, throughline's hooks installed with `throughline install codex` as a user would,
 * and a user's PATH. Every wait polls the screen, the stand-in's requests or the database.
 * Skipped only when codex or tmux is absent.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitUntil } from "../../harness/e2e/driver.ts";
import type { CodexRequest } from "./codex-stand-in.ts";
import {
  CODEX_READY,
  type CodexWorld,
  codexTuiSkipReason,
  codexWorld,
  query,
  TmuxCodex,
  throughline,
  turnTexts,
} from "./codex-world.ts";

const SKIP = codexTuiSkipReason();
if (SKIP !== null) console.warn(`codex TUI e2e skipped: ${SKIP}`);

/** The stand-in's requests for this prompt (Codex's own title request excluded), oldest first. */
const requestsFor = (w: CodexWorld, prompt: string, from = 0): CodexRequest[] =>
  w.model.requests.slice(from).filter((r) => r.prompt === prompt);

/** Submit a prompt and wait until the stand-in model's reply shows and Stop has stored the turn. */
async function turn(t: TmuxCodex, w: CodexWorld, prompt: string, reply: string): Promise<void> {
  await t.submit(prompt, () => requestsFor(w, prompt).length > 0);
  await t.waitForScreen((s) => s.includes(reply) && CODEX_READY.test(s), `"${reply}" on screen`);
  await waitUntil(() => turnTexts(w).some((x) => x.text === prompt), `the turn "${prompt}" stored`, 60_000);
}

const injections = (w: CodexWorld, session: string, moment: string) =>
  (
    query(w, (db) =>
      db
        .query("SELECT count(*) AS n FROM injections WHERE session_id = $s AND moment = $m")
        .get({ s: session, m: moment }),
    ) as { n: number } | null
  )?.n ?? 0;

describe.skipIf(SKIP !== null)("codex TUI under tmux (real Codex CLI, offline)", () => {
  test("three turns with a shell call, /clear, a prompt: its first request carries the push naming a pre-clear turn, the pull it prints returns that turn; /compact re-injects the push; uninstall restores the files", async () => {
    await using w = await codexWorld({ tui: true });
    const configBefore = readFileSync(join(w.codexHome, "config.toml"), "utf8");
    const installed = throughline(w, ["install", "codex"]);
    expect(installed.exitCode).toBe(0);
    expect(installed.stdout).toContain("Trusted exactly these 5 hooks for Codex");

    const marker = `tui-${Date.now().toString(36)}`;
    const a3 = `third turn TAG:a3 RUN:echo ${marker}`;
    {
      await using t = TmuxCodex.start(w);
      await t.waitReady();
      await turn(t, w, "first turn TAG:a1", "[a1] done");
      await turn(t, w, "second turn TAG:a2", "[a2] done");
      await turn(t, w, a3, "[a3] done (tool output seen)");
      const before = turnTexts(w);
      expect(before.map((x) => x.text)).toEqual(["first turn TAG:a1", "second turn TAG:a2", a3]);
      expect(before.map((x) => x.host)).toEqual(["codex", "codex", "codex"]);
      const oldSession = before[0]!.session;
      expect(new Set(before.map((x) => x.session)).size).toBe(1);
      // Within one session nothing is pushed.
      const pushed = (r: CodexRequest) => r.developer.some((d) => d.includes("first turn TAG:a1"));
      expect(w.model.requests.some(pushed)).toBe(false);

      // /clear: a new conversation (SessionStart `clear` with its first prompt).
      await t.submit("/clear", () => !t.capture().includes("[a3] done"));
      await t.waitForScreen((s) => !s.includes("[a3] done") && CODEX_READY.test(s), "the cleared screen");
      const cleared = w.model.requests.length;
      const b1 = "continue PULL TAG:b1";
      await turn(t, w, b1, "[b1] done (tool output seen)");
      const [first, followUp] = requestsFor(w, b1, cleared);
      const after = turnTexts(w).find((x) => x.text === b1)!;
      expect(after.host).toBe("codex");
      expect(after.session).not.toBe(oldSession);
      const newSession = after.session;
      // The first request after /clear carries the push (UserPromptSubmit's additionalContext, a
      // developer message), whole: the pre-clear turns, and the pull of the newest of them by its
      // start time on the new session's chain (which continues the cleared one).
      const push = first!.developer.find((d) => d.includes("# Resume context (throughline)"));
      expect(push).toBeDefined();
      expect(push).toContain("first turn TAG:a1");
      expect(push).toContain(a3);
      const a3At = query(w, (db) =>
        db
          .query(
            "SELECT t.started_at AS at FROM turns t JOIN bodies b ON b.turn_id = t.id AND b.role = 'user' WHERE b.text = $p",
          )
          .get({ p: a3 }),
      ) as { at: number };
      const pull = ` detail ${new Date(a3At.at).toISOString()} --session ${newSession}\``;
      expect(push).toContain(pull);
      expect(push!.length).toBeLessThanOrEqual(9_500);
      expect(push).not.toContain("tokens truncated");
      expect(first!.toolOutputs).toHaveLength(0);
      // The stand-in model ran the push's `detail` pull, exactly as printed, with Codex's shell tool
      // (a user's PATH): the next request holds the pre-clear turn with its shell call.
      expect(followUp!.toolOutputs).toHaveLength(1);
      expect(followUp!.toolOutputs[0]).toContain("Process exited with code 0");
      expect(followUp!.toolOutputs[0]).toContain(a3);
      expect(followUp!.toolOutputs[0]).toContain(`echo ${marker}`);
      expect(injections(w, newSession, "handoff")).toBe(1);

      // /compact: Codex summarizes at once; the next prompt's SessionStart(compact) hands the
      // compacted turn back, word for word.
      const compactFrom = w.model.requests.length;
      await t.submit("/compact", () => w.model.requests.slice(compactFrom).some((r) => r.compaction));
      await t.waitForScreen(CODEX_READY, "the composer after /compact");
      const c1 = "after compaction TAG:c1";
      await turn(t, w, c1, "[c1] done");
      const afterCompaction = requestsFor(w, c1, compactFrom)[0]!;
      const repush = afterCompaction.developer.find((d) => d.includes(b1));
      expect(repush).toBeDefined();
      expect(repush!.length).toBeLessThanOrEqual(9_500);
      expect(repush).not.toContain("tokens truncated");
      expect(injections(w, newSession, "compaction")).toBe(1);
      // Only the first prompt after /clear and the one after /compact were pushed to.
      const pushedTo = w.model.requests.filter(
        (r) => !r.compaction && r.developer.some((d) => d.includes("How to pull the rest")),
      );
      expect(new Set(pushedTo.map((r) => r.prompt))).toEqual(new Set([b1, c1]));
    }

    // Nothing throughline injected is stored as a turn.
    const stored = query(w, (db) =>
      db.query("SELECT count(*) AS n FROM bodies WHERE text LIKE '%How to pull the rest%'").get(),
    ) as { n: number };
    expect(stored.n).toBe(0);

    // The TUI has exited (/exit): uninstall leaves both files as they were before install.
    const un = throughline(w, ["uninstall", "codex"]);
    expect(un.exitCode).toBe(0);
    expect(existsSync(join(w.codexHome, "hooks.json"))).toBe(false);
    expect(readFileSync(join(w.codexHome, "config.toml"), "utf8")).toBe(configBefore);
  }, 300_000);
});
