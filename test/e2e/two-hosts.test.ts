/**
 * One memory, two hosts (docs/hosts.md): in one project, a Claude Code session (the real
 * `claude -p` against its stand-in) and a Codex session (the real `codex exec` against its own).
 * A `/tl` in Claude Code gives the next Codex session the push, and a `/tl` in Codex gives the
 * next Claude Code session the push; in each, the stand-in model runs the `search` the push's
 * guide printed, with a word only the other host's turn holds, through its client's own shell
 * tool (Codex's exec_command, Claude Code's Bash in the default permission mode), as a user's
 * model would: the result holds the other host's turn, a Codex turn marked `[codex]`.
 * Skipped only when a client binary (or tmux, git for Claude Code's driver) is absent.
 */
import { describe, expect, test } from "bun:test";
import {
  CLI_ENTRY,
  createHome,
  e2eSkipReason,
  installHooks,
  runPrint,
  waitUntil,
} from "../../harness/e2e/driver.ts";
import {
  arrivedBashResults,
  bash,
  nonce,
  printed,
  pushIn,
  sessionRequests,
  turnStored,
} from "../../harness/e2e/scenario.ts";
import { lastPrompt, type ScriptFn, stepInTurn } from "../../harness/e2e/stand-in.ts";
import { selfInvocation } from "../../src/core/invocation.ts";
import { codexExec, codexSkipReason, codexWorld, query, throughline, turnTexts } from "./codex-world.ts";

const SKIP = e2eSkipReason() ?? codexSkipReason();
if (SKIP !== null) console.warn(`two-host e2e skipped: ${SKIP}`);

/** The guide's search command up to and including `search` (a model adds its own words). */
function searchPrefix(command: string | null): string | null {
  return command === null ? null : (/^(.*? search)(?= |$)/.exec(command)?.[1] ?? null);
}

const batonStored = (w: Parameters<typeof query>[0]) =>
  query(w, (db) => db.query("SELECT 1 AS n FROM handoff_batons").get());

describe.skipIf(SKIP !== null)("one project, Claude Code and Codex (real clients, offline)", () => {
  test("a /tl in either host gives the other's next session the push, and the search it prints finds the other host's turns", async () => {
    const tag = nonce();
    const claudeWord = `claudeword${tag}`;
    const codexWord = `codexword${tag}`;
    const s = {
      claude: `claude work on the parser ${claudeWord}`,
      claudeReply: `Done in Claude Code ${tag}.`,
      back: `back in Claude Code ${tag}`,
    };
    let claudeSearched = "";
    const script: ScriptFn = (_r, body) => {
      const prompt = lastPrompt(body);
      if (prompt === s.claude) return s.claudeReply;
      if (prompt.includes(s.back)) {
        if (stepInTurn(body) > 0) return `Found it ${tag}.`;
        const prefix = searchPrefix(printed(pushIn(body), "search "));
        claudeSearched = prefix === null ? "echo no-search-in-push" : `${prefix} ${codexWord}`;
        return bash(claudeSearched);
      }
      return `Reply to: ${prompt.slice(0, 40)}`;
    };
    await using h = await createHome({ script });
    expect(installHooks(h, "install", { record: false })).toBe("install");
    await using cw = await codexWorld({ beside: { root: h.root, project: h.project, env: h.env } });
    expect(throughline(cw, ["install", "codex"]).exitCode).toBe(0);
    const invocation = selfInvocation(CLI_ENTRY, process.execPath);

    // Claude Code: one turn, then /tl.
    const first = await runPrint(h, s.claude, {
      holdUntil: (id) => turnStored(h, id, s.claude, s.claudeReply),
    });
    await runPrint(h, "/tl", { resume: first.sessionId });
    await waitUntil(() => batonStored(cw), "Claude Code's baton", 10_000);

    // Codex: its first request carries the push; the model searches for Claude Code's word.
    const before = cw.model.requests.length;
    const codex = await codexExec(cw, [`continue SEARCH:${claudeWord} TAG:x1`]);
    expect(codex.exitCode).toBe(0);
    expect(codex.stdout).toContain("[x1] done (tool output seen)");
    const firstCodexRequest = cw.model.requests[before]!;
    expect(firstCodexRequest.developer.some((d) => d.includes(s.claude))).toBe(true);
    const found = cw.model.requests[before + 1]!.toolOutputs;
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`## Search: ${claudeWord}`);
    expect(found[0]).toContain(s.claude);
    expect(found[0]).toContain("Process exited with code 0");
    // Claude Code's turn carries no marker.
    expect(found[0]).toMatch(/^1\. \[L2 user\] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · session \S+ · turn 1$/m);

    // Codex: a turn of its own, then /tl.
    const codexTurn = `codex work on the loader ${codexWord} TAG:x2`;
    await codexExec(cw, ["resume", "--last", codexTurn]);
    await waitUntil(
      () => turnTexts(cw).some((t) => t.text === codexTurn && t.host === "codex"),
      "Codex's turn",
      20_000,
    );
    await codexExec(cw, ["resume", "--last", "/tl"]);
    await waitUntil(() => batonStored(cw), "Codex's baton", 10_000);

    // Claude Code: a new session gets the push with Codex's turn, marked; its search finds it.
    const back = await runPrint(h, s.back);
    expect(back.exitCode).toBe(0);
    const requests = sessionRequests(h, back.sessionId);
    const push = pushIn(requests[0]!.body!);
    expect(push).toContain(codexTurn);
    expect(push).toMatch(/\] \[codex\] \[user\]: codex work on the loader/);
    expect(claudeSearched).toBe(`${invocation} search ${codexWord}`);
    const results = arrivedBashResults(requests);
    expect(results.map((b) => b.command)).toEqual([claudeSearched]);
    expect(results[0]!.isError).toBe(false);
    expect(results[0]!.output).toContain(codexTurn);
    expect(results[0]!.output).toMatch(/^1\. \[L2 user\] \[codex\] .* · turn 2$/m);
  }, 240_000);
});
