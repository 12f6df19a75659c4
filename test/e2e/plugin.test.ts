/**
 * The plugin, installed the way a user installs it: `claude plugin marketplace add <this
 * checkout>` then `claude plugin install throughline@throughline`, with no registry and no
 * build step (docs/plugin.md). The hooks it registers capture and hand over; the model runs
 * the baked pulls (answered by the plugin's PreToolUse hook, since a plugin writes no allow
 * rules); uninstalling the plugin stops capture; a second, settings install is named by doctor.
 */
import { describe, expect, test } from "bun:test";
import {
  claudeBinary,
  createHome,
  e2eSkipReason,
  findTranscript,
  REPO_ROOT,
  readSettings,
  readTranscript,
  runThroughline,
  TmuxClaude,
  turnCount,
} from "../../harness/e2e/driver.ts";
import {
  bash,
  filler,
  nonce,
  printed,
  promptHookOutputs,
  pushIn,
  sessionPrompted,
  sessionRequests,
  typeTurns,
} from "../../harness/e2e/scenario.ts";
import {
  lastPrompt,
  requestText,
  stepInTurn,
  toolResults,
  toolResultText,
} from "../../harness/e2e/stand-in.ts";

const SKIP = e2eSkipReason();
const LONG = 240_000;

describe.skipIf(SKIP !== null)("the plugin from this repository (real Claude Code)", () => {
  test(
    "marketplace add + install: turns captured, one push after /clear, the model's baked pull runs without a prompt; doctor names a second install; uninstall stops capture",
    async () => {
      const tag = nonce();
      const go = `continue ${tag}`;
      await using h = await createHome({
        script: (_r, body) => {
          const prompt = lastPrompt(body);
          const m = /^p(\d+) /.exec(prompt);
          if (m) return filler(Number(m[1]), tag, 500);
          if (prompt.includes(go)) {
            const l2 = printed(pushIn(body), "recall --l2 ") ?? "echo no-l2";
            return stepInTurn(body) === 0 ? bash(l2) : `Pulled ${tag}.`;
          }
          return `Reply to: ${prompt}`;
        },
      });
      const claude = (...args: string[]) => {
        const r = Bun.spawnSync([claudeBinary(), ...args], {
          env: h.env,
          cwd: h.project,
          stdout: "pipe",
          stderr: "pipe",
        });
        return { exitCode: r.exitCode, out: `${r.stdout}${r.stderr}` };
      };
      const validated = claude("plugin", "validate", REPO_ROOT);
      expect(validated.out).toContain("Validation passed");
      expect(claude("plugin", "marketplace", "add", REPO_ROOT).exitCode).toBe(0);
      const installed = claude("plugin", "install", "throughline@throughline");
      expect(installed.out).toContain("Successfully installed");
      expect(runThroughline(h, ["doctor", "--json"]).stdout).toContain('"plugin"');
      // No allow rule anywhere: what lets the pull run is the plugin's own PreToolUse answer.
      expect(readSettings(h).permissions).toBeUndefined();

      await using tmux = await TmuxClaude.start(h);
      await tmux.waitReady();
      const prompts = [1, 2, 3, 4].map((i) => `p${i} ${tag} step`);
      await typeTurns(h, tmux, prompts, (i) => `Reply ${i + 1} ${tag}`);
      // No recorder hook here (the plugin is the only thing registered): the new session's id
      // comes from its first request.
      await tmux.clear(`Reply 4 ${tag}`);
      await tmux.submit(go);
      await h.standIn.waitFor(
        (reqs) =>
          reqs.some(
            (r) => r.kind === "main" && r.body && stepInTurn(r.body) === 1 && lastPrompt(r.body).includes(go),
          ),
        60_000,
        "the model's pull and its answer",
      );
      const newId = sessionPrompted(h, go);
      const requests = sessionRequests(h, newId);
      const push = pushIn(requests[0]!.body!);
      expect(push).toContain(prompts[3]!);
      expect(promptHookOutputs(readTranscript(findTranscript(h, newId)!))).toHaveLength(1);
      const results = requests.flatMap((r) => (r.body ? toolResults(r.body) : []));
      expect(results).toHaveLength(1);
      expect(results[0]!.is_error ?? false).toBe(false);
      const pulled = toolResultText(results[0]!);
      expect(pulled).toContain("## recall --l2");
      for (const prompt of prompts) expect(`${push}\n${pulled}`).toContain(prompt);
      expect(tmux.capture()).not.toMatch(/requires approval|Do you want to proceed/);

      // The plugin's slash commands are namespaced and run before the prompt reaches the model.
      const before = sessionRequests(h, newId).length;
      // The turn is over (its last reply on screen) before the next input, so nothing is queued.
      await tmux.waitForScreen((sc) => sc.includes(`Pulled ${tag}.`), "the answer after the pull");
      await tmux.submit("/throughline:recall edits");
      await h.standIn
        .waitFor(() => sessionRequests(h, newId).length > before, 30_000, "/throughline:recall")
        .catch((err) => {
          throw new Error(`${(err as Error).message}\n--- screen ---\n${tmux.capture()}`);
        });
      expect(requestText(sessionRequests(h, newId)[before]!.body!)).toContain("## Recall");
      await tmux.close();

      // A settings install on top: doctor names the duplicate and how to remove one.
      expect(runThroughline(h, ["install"]).exitCode).toBe(0);
      const doctor = runThroughline(h, ["doctor"]);
      expect(doctor.exitCode).toBe(1);
      expect(doctor.stdout).toContain("FAIL plugin and settings install");
      expect(doctor.stdout).toContain("claude plugin uninstall throughline@throughline");
      expect(runThroughline(h, ["uninstall"]).exitCode).toBe(0);

      // Uninstalling the plugin stops capture.
      expect(claude("plugin", "uninstall", "throughline@throughline").exitCode).toBe(0);
      await using again = await TmuxClaude.start(h);
      await again.waitReady();
      const after = `after uninstall ${tag}`;
      await again.submit(after);
      await again.waitForScreen((s) => s.includes(`Reply to: ${after}`), "the reply after uninstall");
      await again.close();
      const sid = h.standIn.mainRequests().at(-1)!.sessionId!;
      expect(turnCount(h, sid)).toBe(0);
    },
    LONG,
  );
});
