/**
 * Codex as a second host, end to end (docs/hosts.md): the real Codex CLI (`@openai/codex`,
 * pinned in devDependencies) run offline with `codex exec` against the project's own loopback
 * stand-in of the Responses API (codex-stand-in.ts). Skipped only when the binary is absent.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitUntil } from "../../harness/e2e/driver.ts";
import { codexExec, codexSkipReason, codexWorld, query, throughline, turnTexts } from "./codex-world.ts";

const SKIP = codexSkipReason();
if (SKIP !== null) console.warn(`codex exec e2e skipped: ${SKIP}`);

describe.skipIf(SKIP !== null)("codex exec (real Codex CLI, offline)", () => {
  test("install, three turns with a shell call, /tl, a new session: its first request carries the push, the pull it prints returns a pre-clear turn, uninstall restores the files", async () => {
    await using w = await codexWorld();
    const configBefore = readFileSync(join(w.codexHome, "config.toml"), "utf8");
    const installed = throughline(w, ["install", "codex"]);
    expect(installed.exitCode).toBe(0);
    expect(installed.stdout).toContain("Trusted exactly these 5 hooks for Codex");

    const marker = `marker-${Date.now().toString(36)}`;
    const first = await codexExec(w, ["first turn TAG:a1"]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("[a1] done");
    await codexExec(w, ["resume", "--last", "second turn TAG:a2"]);
    const third = await codexExec(w, ["resume", "--last", `third turn TAG:a3 RUN:echo ${marker}`]);
    expect(third.stdout).toContain("[a3] done (tool output seen)");
    // Every turn captured by its own Stop (a detached worker), marked with its host.
    const captured = await waitUntil(
      () => turnTexts(w).length === 3 && turnTexts(w),
      "three codex turns",
      20_000,
    );
    expect(captured.map((t) => t.host)).toEqual(["codex", "codex", "codex"]);
    const oldSession = captured[0]!.session;
    const shell = query(w, (db) =>
      db
        .query(
          "SELECT input, output FROM details WHERE kind IN ('tool_input','tool_output') AND tool_name = 'Bash' ORDER BY id",
        )
        .all(),
    ) as { input: string | null; output: string | null }[];
    expect(shell[0]!.input).toContain(`echo ${marker}`);
    expect(shell[1]!.output).toContain(marker);

    // /tl leaves a baton; the next new session in the project takes it and gets the push.
    await codexExec(w, ["resume", "--last", "/tl"]);
    await waitUntil(
      () => query(w, (db) => db.query("SELECT 1 FROM handoff_batons").get()),
      "the baton",
      10_000,
    );
    const before = w.model.requests.length;
    const next = await codexExec(w, ["continue PULL TAG:b1"]);
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toContain("[b1] done (tool output seen)");
    const firstRequest = w.model.requests[before]!;
    const push = firstRequest.developer.find(
      (d) => d.includes(`--session ${oldSession}`) || d.includes("recall --l2"),
    );
    expect(push).toBeDefined();
    // Whole: under Codex's ~10,000-character cut, nothing elided in the middle.
    expect(push!.length).toBeLessThanOrEqual(9_500);
    expect(push).not.toContain("tokens truncated");
    expect(push).toContain("third turn TAG:a3");
    // The stand-in model ran the push's `detail` pull with Codex's shell tool; its output, in
    // the next request, is the pre-clear turn with its shell call.
    const followUp = w.model.requests[before + 1]!;
    expect(followUp.toolOutputs).toHaveLength(1);
    expect(followUp.toolOutputs[0]).toContain("third turn TAG:a3");
    expect(followUp.toolOutputs[0]).toContain(`echo ${marker}`);
    expect(followUp.toolOutputs[0]).toContain("Process exited with code 0");
    // What throughline injected is not captured as the new session's turn.
    await waitUntil(
      () => turnTexts(w).some((t) => t.text === "continue PULL TAG:b1"),
      "the new turn",
      20_000,
    );
    const stored = query(w, (db) =>
      db.query("SELECT count(*) AS n FROM bodies WHERE text LIKE '%recall --l2%'").get(),
    ) as { n: number };
    expect(stored.n).toBe(0);

    const un = throughline(w, ["uninstall", "codex"]);
    expect(un.exitCode).toBe(0);
    expect(existsSync(join(w.codexHome, "hooks.json"))).toBe(false);
    expect(readFileSync(join(w.codexHome, "config.toml"), "utf8")).toBe(configBefore);
  }, 120_000);

  test("an auto-compaction fires SessionStart(compact) and the next request carries the push with the turns Codex dropped", async () => {
    // Codex compacts before a turn when the previous one reported more tokens than this limit.
    await using w = await codexWorld({ config: ["model_auto_compact_token_limit = 1000"] });
    expect(throughline(w, ["install", "codex"]).exitCode).toBe(0);
    const marker = `kept-${Date.now().toString(36)}`;
    await codexExec(w, [`first turn TAG:k1 RUN:echo ${marker}`]);
    await codexExec(w, ["resume", "--last", "big turn TAG:k2 TOKENS:5000"]);
    const [first] = await waitUntil(
      () => turnTexts(w).length === 2 && turnTexts(w),
      "two codex turns",
      20_000,
    );
    const session = first!.session;
    // A resume without compaction hands nothing over: no push before the compaction.
    const plain = w.model.requests.filter((r) => !r.compaction);
    expect(plain.some((r) => r.developer.some((d) => d.includes("first turn TAG:k1")))).toBe(false);

    const before = w.model.requests.length;
    const after = await codexExec(w, ["resume", "--last", "after compaction TAG:k3"]);
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toContain("[k3] done");
    const requests = w.model.requests.slice(before);
    const compactAt = requests.findIndex((r) => r.compaction);
    expect(compactAt).toBeGreaterThanOrEqual(0);
    const next = requests.slice(compactAt + 1).find((r) => !r.compaction);
    expect(next?.prompt).toBe("after compaction TAG:k3");
    // The push, as SessionStart(compact)'s additionalContext: both turns, whole, under Codex's cut.
    const push = next!.developer.find((d) => d.includes("first turn TAG:k1"));
    expect(push).toBeDefined();
    expect(push).toContain("big turn TAG:k2");
    expect(push).toContain(`echo ${marker}`);
    expect(push!.length).toBeLessThanOrEqual(9_500);
    expect(push).not.toContain("tokens truncated");
    // Recorded as a push after a compaction of this session.
    const pushes = await waitUntil(
      () =>
        query(w, (db) =>
          db
            .query("SELECT count(*) AS n FROM injections WHERE session_id = $s AND moment = 'compaction'")
            .get({ s: session }),
        ) as { n: number } | null,
      "the compaction push's row",
      10_000,
    );
    expect(pushes.n).toBe(1);
    // Codex's own summary is kept as the compaction; the pushed text is not stored as a turn.
    await waitUntil(
      () => turnTexts(w).some((t) => t.text === "after compaction TAG:k3"),
      "the turn after compaction",
      20_000,
    );
    const stored = query(w, (db) =>
      db.query("SELECT count(*) AS n FROM bodies WHERE text LIKE '%recall --l2%'").get(),
    ) as { n: number };
    expect(stored.n).toBe(0);
  }, 120_000);
});
