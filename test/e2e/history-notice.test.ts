/**
 * The first SessionStart's history line (docs/hooks.md, "The first start tells the history") with
 * the real client: an interactive `claude` shows it on screen, and no request to the model carries
 * it. As a plugin install would: no `install` has said it (its marker is removed).
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SAMPLE } from "../../harness/db.ts";
import { createHome, e2eSkipReason, installHooks, TmuxClaude, waitUntil } from "../../harness/e2e/driver.ts";
import { lastPrompt } from "../../harness/e2e/stand-in.ts";
import { projectFolder } from "../../src/commands/import.ts";

const SKIP = e2eSkipReason();

describe.skipIf(SKIP !== null)("the history line of the first SessionStart (real Claude Code)", () => {
  test("shown to the user, never sent to the model", async () => {
    await using h = await createHome({ script: (_r, body) => `Answer to: ${lastPrompt(body)}` });
    const old = join(h.configDir, "projects", projectFolder("/home/dev/todo-api"));
    mkdirSync(old, { recursive: true });
    copyFileSync(SAMPLE, join(old, "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13.jsonl"));
    installHooks(h);
    rmSync(join(h.throughlineHome, "history-notice"));
    await using t = await TmuxClaude.start(h, { width: 220 });
    await t.waitReady(60_000);
    await t.waitForScreen(/not in memory yet/, "the history line on screen");
    await t.submit("hello there");
    await waitUntil(
      () => h.standIn.requests.some((r) => JSON.stringify(r.body ?? {}).includes("hello there")),
      "the prompt's request",
    );
    const sent = h.standIn.requests.map((r) => JSON.stringify(r.body ?? {}));
    expect(sent.filter((b) => b.includes("not in memory yet"))).toEqual([]);
  }, 120_000);
});
