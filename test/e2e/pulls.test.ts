/**
 * The pull half of push/pull, proven where it lives: the stand-in model answers the first prompt
 * after a handoff by calling Claude Code's own Bash tool with the exact command strings it
 * found in the push it received (parsed from the request, never rebuilt). Claude Code runs with
 * a user's PATH (no throughline, no node_modules/.bin) in its default permission mode, with no
 * `--allowedTools`; the tool results that come back must hold the turns, not an error or an
 * approval request. See docs/testing.md and docs/hooks.md ("Commands the model runs").
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CLI_ENTRY,
  createHome,
  type E2EHome,
  e2eSkipReason,
  findTranscript,
  installHooks,
  REPO_ROOT,
  readTranscript,
  runPrint,
  runShell,
  TmuxClaude,
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
  turnStored,
  typeTurns,
} from "../../harness/e2e/scenario.ts";
import {
  type ContentBlock,
  lastPrompt,
  type RecordedRequest,
  requestText,
  stepInTurn,
  toolResults,
  toolResultText,
} from "../../harness/e2e/stand-in.ts";
import { selfInvocation, shellQuote } from "../../src/core/invocation.ts";

const SKIP = e2eSkipReason();
const LONG = 240_000;

/** The tool_result blocks each request of `requests` carried back to the model, in order. */
function resultsOf(requests: RecordedRequest[]): ContentBlock[] {
  return requests.flatMap((r) => (r.body ? toolResults(r.body) : []));
}

/** What Claude Code shows on screen when it wants a person's approval. */
const APPROVAL = /requires approval|Do you want to proceed/i;
/**
 * How Claude Code answers a refused Bash call in place of its output: "This command requires
 * approval", or for a command that changes files "rm in '<path>' needs approval. …" (2.1.332)
 * and "rm in '<path>' was blocked. …" (2.1.197).
 */
const REFUSED = /^\s*(This command requires approval|\S+ in '[^']*' (needs approval|was blocked))/;

/** `binary in a spaced directory`: the same binary under a directory whose name has a space, so every baked command and allow rule carries a quoted path. */
type InstallPath = "checkout" | "binary" | "binary in a spaced directory";

/** The binary a user downloads, built once per run from this checkout with the project's own build line. */
let built: string | undefined;
afterAll(() => {
  if (built) rmSync(join(built, ".."), { recursive: true, force: true });
});
function compiledBinary(): string {
  if (built) return built;
  const out = join(mkdtempSync(join(tmpdir(), "throughline-bin-")), "throughline");
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  const argv = String(pkg.scripts.build)
    .replace(/^bun /, "")
    .replace(/--outfile \S+/, `--outfile ${out}`)
    .split(" ");
  const r = Bun.spawnSync([process.execPath, ...argv], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`build failed: ${r.stderr}`);
  built = out;
  return out;
}

/**
 * Install the way a user of that path does, and return the invocation the push must bake:
 * `bun <checkout>/src/cli.ts install`, or the binary copied into a directory not on PATH.
 */
function installAs(h: E2EHome, path: InstallPath): string {
  if (path === "checkout") {
    expect(installHooks(h, "install", { record: false })).toBe("install");
    return selfInvocation(CLI_ENTRY, process.execPath);
  }
  const dir = join(h.root, path === "binary" ? "opt" : "My Tools");
  const bin = join(dir, "throughline");
  mkdirSync(dir, { recursive: true });
  copyFileSync(compiledBinary(), bin);
  chmodSync(bin, 0o755);
  expect(runShell(h, "command -v throughline").exitCode).not.toBe(0);
  const invocation = shellQuote(bin);
  const installed = runShell(h, `${invocation} install`);
  expect(installed.stderr).toBe("");
  expect(installed.exitCode).toBe(0);
  return invocation;
}

describe.skipIf(SKIP !== null)(
  "the model runs the printed pulls (real Claude Code, default permissions)",
  () => {
    test.each(["checkout", "binary"] as const)(
      "%s install, interactive TUI: after /clear the model runs the baked --l2, --l1 and a detail pointer; /recall runs before the prompt",
      async (installPath) => {
        const tag = nonce();
        const TURNS = 22;
        const prompts = Array.from({ length: TURNS }, (_, i) => `p${i + 1} ${tag} step`);
        const go = `continue ${tag}`;
        await using h = await createHome({
          script: (_r, body) => {
            const prompt = lastPrompt(body);
            const m = /^p(\d+) /.exec(prompt);
            if (m) return filler(Number(m[1]), tag);
            if (prompt.includes(go)) {
              const push = pushIn(body);
              const step = stepInTurn(body);
              if (step === 0) return bash(printed(push, "recall --l2 ") ?? "echo no-l2-in-push");
              if (step === 1) return bash(printed(push, "recall --l1 ") ?? "echo no-l1-in-push");
              if (step === 2) {
                const l1 = toolResults(body).map(toolResultText).join("\n");
                const pointer = /\(not summarized\) full text: (.+)$/m.exec(l1)?.[1];
                return bash(pointer ?? "echo no-detail-pointer");
              }
              return `Pulled everything ${tag}.`;
            }
            if (requestText(body).includes("Above is throughline's answer")) return `Shown ${tag}.`;
            return `Reply to: ${prompt}`;
          },
        });
        // Older turns stay unsummarised, so --l1 prints detail pointers to follow.
        h.env.THROUGHLINE_SUMMARIZER = "command";
        h.env.THROUGHLINE_SUMMARIZER_CMD = "false";
        const invocation = installAs(h, installPath);
        await using tmux = await TmuxClaude.start(h);
        await tmux.waitReady();
        await typeTurns(h, tmux, prompts, (i) => `Reply ${i + 1} ${tag}`);
        await tmux.clear(`Reply ${TURNS} ${tag}`);
        await tmux.submit(go);
        // No recorder hook is registered (settings.json is what install wrote): the new
        // session's id comes from its first request.
        await h.standIn.waitFor(
          (reqs) =>
            reqs.some(
              (r) =>
                r.kind === "main" && r.body && lastPrompt(r.body).includes(go) && stepInTurn(r.body) === 3,
            ),
          90_000,
          "the model's three pulls and its answer",
        );
        const newId = sessionPrompted(h, go);
        const requests = sessionRequests(h, newId);
        const push = pushIn(requests[0]!.body!);
        expect(push.length).toBeGreaterThan(0);
        // What the model ran is what the push printed, and it is not a bare `throughline …`.
        const l2 = printed(push, "recall --l2 ")!;
        const l1 = printed(push, "recall --l1 ")!;
        expect(l2).toStartWith(`${invocation} recall --l2 `);
        // The newest request carries the whole turn as history: every call the model made.
        const calls = (requests.at(-1)!.body!.messages ?? [])
          .filter((m) => m.role === "assistant")
          .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
          .filter((b) => b.type === "tool_use")
          .map((b) => (b.input as { command: string }).command);
        expect(calls.slice(0, 2)).toEqual([l2, l1]);

        const results = resultsOf(requests);
        expect(results).toHaveLength(3);
        for (const r of results) {
          expect(r.is_error ?? false).toBe(false);
          expect(toolResultText(r)).not.toMatch(REFUSED);
        }
        const [l2Out, l1Out, detailOut] = results.map(toolResultText) as [string, string, string];
        // The window turns are in the push or in what --l2 returned; the two older ones are
        // --l1 lines, each pointing at its turn in full.
        for (const prompt of prompts.slice(2)) expect(`${push}\n${l2Out}`).toContain(prompt);
        expect(l1Out).toContain("2 turns, 0 summarized");
        expect(l1Out.match(/\(not summarized\) full text: /g)).toHaveLength(2);
        // The detail pointer of --l1 opened turn 1 in full.
        expect(detailOut).toContain(prompts[0]!);
        expect(detailOut).toContain(`Reply 1 ${tag}`);
        expect(tmux.capture()).not.toMatch(APPROVAL);

        // /recall runs its command before the prompt reaches the model: the answer is in the
        // very first request of that turn, and the model needs no tool call.
        // The turn is over (its last reply on screen) before the next input, so nothing is queued.
        await tmux.waitForScreen(
          (sc) => sc.includes(`Pulled everything ${tag}.`),
          "the answer after the pulls",
        );
        const before = sessionRequests(h, newId).length;
        await tmux.submit("/recall edits");
        await h.standIn.waitFor(
          () => sessionRequests(h, newId).length > before,
          30_000,
          "the request carrying /recall's output",
        );
        const recallReq = sessionRequests(h, newId)[before]!.body!;
        // Claude Code sources the CLAUDE_ENV_FILE our SessionStart wrote before each command of
        // the session, so /recall answers for this session's chain (docs/hooks.md).
        const expected = runShell(
          h,
          `THROUGHLINE_SESSION=${shellQuote(newId)} ${invocation} recall edits`,
        ).stdout.trim();
        expect(expected).toContain("## Recall");
        expect(expected).toContain(`session ${newId}`);
        expect(expected).not.toContain("(latest in");
        expect(requestText(recallReq)).toContain(expected);
        expect(tmux.capture()).not.toMatch(APPROVAL);
      },
      LONG,
    );

    test.each(["checkout", "binary", "binary in a spaced directory"] as const)(
      "%s install, claude -p without --allowedTools: the baked --l2 runs; a chained or writing command still asks",
      async (installPath) => {
        const tag = nonce();
        const prompts = [1, 2, 3, 4].map((i) => `p${i} ${tag} step`);
        const go = `continue ${tag}`;
        await using h = await createHome({
          script: (_r, body) => {
            const prompt = lastPrompt(body);
            const m = /^p(\d+) /.exec(prompt);
            if (m) return filler(Number(m[1]), tag, 500);
            if (prompt.includes(go)) {
              const push = pushIn(body);
              const l2 = printed(push, "recall --l2 ") ?? "echo no-l2-in-push";
              const step = stepInTurn(body);
              if (step === 0) return bash(l2);
              if (step === 1) return bash(`${l2} && rm -f ${join(h.project, "keep.txt")}`);
              if (step === 2)
                return bash(
                  `${l2.slice(0, l2.indexOf(" recall --l2 "))} note --decision 'not allowed ${tag}'`,
                );
              return `Done ${tag}.`;
            }
            return `Reply to: ${prompt}`;
          },
        });
        const invocation = installAs(h, installPath);
        writeFileSync(join(h.project, "keep.txt"), "still here\n");

        let sid = "";
        for (const [i, prompt] of prompts.entries()) {
          const r = await runPrint(h, prompt, {
            resume: i === 0 ? undefined : sid,
            // No recorder here: settings.json is exactly what install wrote.
            holdUntil: (id) => turnStored(h, id, prompt, `Reply ${i + 1} ${tag}`),
          });
          sid = r.sessionId;
        }
        await runPrint(h, "/tl", { resume: sid });
        // A brand-new claude process in the project inherits the baton: its first prompt gets the push.
        const r = await runPrint(h, go);
        expect(r.exitCode).toBe(0);
        const requests = sessionRequests(h, r.sessionId);
        const push = pushIn(requests[0]!.body!);
        const l2 = printed(push, "recall --l2 ")!;
        expect(l2).toStartWith(`${invocation} recall --l2 `);
        const results = resultsOf(requests);
        expect(results).toHaveLength(3);
        const [pulled, chained, writing] = results;
        expect(pulled!.is_error ?? false).toBe(false);
        const seen = `${push}\n${toolResultText(pulled!)}`;
        for (const prompt of prompts) expect(seen).toContain(prompt);
        // Nothing else was loosened: the chain and the writer were refused, and did nothing.
        expect(chained!.is_error).toBe(true);
        expect(toolResultText(chained!)).toMatch(REFUSED);
        expect(existsSync(join(h.project, "keep.txt"))).toBe(true);
        expect(writing!.is_error).toBe(true);
        expect(toolResultText(writing!)).toMatch(REFUSED);
        expect(runShell(h, `${invocation} recall decisions --all`).stdout).not.toContain(
          `not allowed ${tag}`,
        );
        // The push reached the model once, as the transcript records it.
        expect(promptHookOutputs(readTranscript(findTranscript(h, r.sessionId)!))).toHaveLength(1);
      },
      LONG,
    );
  },
);
