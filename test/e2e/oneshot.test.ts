/**
 * A one-shot `claude -p` cancels its async hooks as it exits (SIGTERM a few ms after starting
 * them): throughline's Stop must still store the turn by itself, every time. Each run is a new
 * session, so no later hook of that session could store the turn instead. See docs/hooks.md
 * ("Detached Stop and SubagentStop").
 */
import { describe, expect, test } from "bun:test";
import { createHome, e2eSkipReason, runPrint, runThroughline, waitUntil } from "../../harness/e2e/driver.ts";
import { diagnose, nonce, turnStored } from "../../harness/e2e/scenario.ts";
import { lastPrompt } from "../../harness/e2e/stand-in.ts";

const SKIP = e2eSkipReason();
const RUNS = 10;
/**
 * How long the detached worker may take after the client exits: it needs ~50 ms, but waits up to
 * DETACHED_FLUSH_WAIT_MS (10 s) for a reply the client writes late, so the test waits longer.
 */
const WORKER_WAIT_MS = 15_000;

describe.skipIf(SKIP !== null)("one-shot claude -p (real Claude Code)", () => {
  test(
    `${RUNS} one-shot runs in a row: each turn is stored by its own Stop`,
    async () => {
      await using h = await createHome({ script: (_r, body) => `Answer to: ${lastPrompt(body)}` });
      const installed = runThroughline(h, ["install"]);
      expect(installed.exitCode).toBe(0);
      const tag = nonce();
      const missed: string[] = [];
      for (let i = 1; i <= RUNS; i++) {
        const prompt = `one-shot ${i} ${tag}`;
        const r = await runPrint(h, prompt);
        expect(r.exitCode).toBe(0);
        try {
          await waitUntil(
            () => turnStored(h, r.sessionId, prompt, `Answer to: ${prompt}`),
            `run ${i} stored`,
            WORKER_WAIT_MS,
          );
        } catch {
          // What the database and the hooks saw, so a miss says where the turn went.
          missed.push(`${prompt}\n${diagnose(h, r.sessionId)}`);
        }
      }
      expect(missed).toEqual([]);
    },
    RUNS * 20_000,
  );
});
