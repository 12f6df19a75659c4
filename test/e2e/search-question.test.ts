/**
 * A whole question, as one quoted argument to the `search` the push's guide prints, finds a fact
 * that only a tool output holds (docs/search.md), proven with the real client on a user's path:
 * a `claude -p` turn whose stand-in model runs the project's migration script with Claude Code's
 * Bash tool (its output names the failing migration and why; no prompt, reply or tool call does),
 * two more turns, `/tl`, then a new `claude -p` whose first prompt gets the push. The stand-in
 * model takes the guide's command up to `search` and asks, in one quoted argument, a question
 * that holds neither the migration's name nor the error's words; Claude Code's own Bash tool runs
 * it in the default permission mode. The result that reaches the model holds the failing line and
 * the command that opens its turn. Then the migration's name asked for with a letter dropped: the
 * output names the word no row holds, the name the memory holds, and an `also try` command, which
 * the stand-in runs as printed; its result, first, holds the failing line.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_ENTRY, createHome, e2eSkipReason, installHooks, runPrint } from "../../harness/e2e/driver.ts";
import {
  arrivedBashResults,
  bash,
  nonce,
  printed,
  pushIn,
  sessionRequests,
  turnStored,
} from "../../harness/e2e/scenario.ts";
import {
  lastPrompt,
  type ScriptFn,
  stepInTurn,
  toolResults,
  toolResultText,
} from "../../harness/e2e/stand-in.ts";
import { selfInvocation } from "../../src/core/invocation.ts";

const SKIP = e2eSkipReason();

/** What the model asks: about the fact, without its name (the nonce) or the error's words. */
const QUESTION = "why did the users migration fail";

/** `s` as a literal inside a RegExp. */
function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The guide's search command up to and including `search`, whatever it shows after it
 * (`<words>` or a quoted example question): the part a model keeps, adding its own words.
 */
function searchPrefix(command: string): string | null {
  const m = /^(.*? search)(?= |$)/.exec(command);
  return m ? m[1]! : null;
}

/** The numbered results of a search output, each from its heading line to the line before the next. */
function resultBlocks(output: string): string[] {
  return output.split(/\n(?=\d+\. \[)/).filter((b) => /^\d+\. \[/.test(b));
}

describe.skipIf(SKIP !== null)("a question as one search argument (real Claude Code)", () => {
  test("the printed search, given a whole quoted question, returns the tool output that answers it", async () => {
    const tag = nonce();
    const migration = `users_${tag}`;
    const failure = `column "tenant_id" of relation "accounts" does not exist`;
    const factLine = `migrate: ${migration} failed: ${failure}`;
    const s = {
      run: `p1 ${tag} apply the pending schema changes`,
      go: `continue ${tag}`,
      ran: `Ran it ${tag}.`,
    };
    const typo = migration.replace("users_", "usrs_");
    let searched = "";
    let prefix: string | null = null;
    let typoSearched = "";
    let alsoTry = "";
    const script: ScriptFn = (_r, body) => {
      const prompt = lastPrompt(body);
      const step = stepInTurn(body);
      if (prompt === s.run) return step === 0 ? bash("./migrate.sh") : s.ran;
      if (prompt.includes(s.go)) {
        if (step === 0) {
          // The guide's command as printed, up to `search`, with the question as one argument.
          const guide = printed(pushIn(body), "search ");
          prefix = guide === null ? null : searchPrefix(guide);
          searched = prefix === null ? "echo no-search-in-push" : `${prefix} "${QUESTION}"`;
          return bash(searched);
        }
        if (step === 1) {
          // The migration's name asked for with a letter dropped, as a hurried user types it.
          typoSearched = `${prefix ?? "echo"} "what happened with ${typo}"`;
          return bash(typoSearched);
        }
        if (step === 2) {
          // The `also try` line of what the model was just shown, run as printed.
          const shown = toolResults(body).map(toolResultText).join("\n");
          alsoTry = / {3}→ also try: (.+)$/m.exec(shown)?.[1] ?? "echo no-also-try";
          return bash(alsoTry);
        }
        return `Found it ${tag}.`;
      }
      return `Reply to: ${prompt.slice(0, 40)}`;
    };
    await using h = await createHome({ script });
    expect(installHooks(h, "install", { record: false })).toBe("install");
    const invocation = selfInvocation(CLI_ENTRY, process.execPath);
    // The project's migration script: only what it prints holds the fact (no tool reads the file).
    const migrate = join(h.project, "migrate.sh");
    writeFileSync(
      migrate,
      [
        "#!/bin/sh",
        "echo 'migrate: 3 pending'",
        "echo 'migrate: orders_0041 ok (12 ms)'",
        `echo '${factLine}'`,
        "echo 'migrate: rolled back, 2 pending'",
        "",
      ].join("\n"),
    );
    chmodSync(migrate, 0o755);

    // The user lets this session run the script; the search session below gets no --allowedTools.
    const first = await runPrint(h, s.run, {
      allowedTools: ["Bash(./migrate.sh)"],
      holdUntil: (id) => turnStored(h, id, s.run, s.ran),
    });
    const ran = arrivedBashResults(sessionRequests(h, first.sessionId));
    expect(ran.map((b) => b.command)).toEqual(["./migrate.sh"]);
    expect(ran[0]!.output).toContain(factLine);
    for (const p of [`p2 ${tag} step`, `p3 ${tag} step`])
      await runPrint(h, p, {
        resume: first.sessionId,
        holdUntil: (id) => turnStored(h, id, p, `Reply to: ${p}`),
      });
    await runPrint(h, "/tl", { resume: first.sessionId });
    const r = await runPrint(h, s.go);
    expect(r.exitCode).toBe(0);

    const requests = sessionRequests(h, r.sessionId);
    const push = pushIn(requests[0]!.body!);
    expect(push).toContain(s.run);
    // The push does not hold the fact: the model has to search for it.
    expect(push).not.toContain(migration);
    expect(push).not.toContain("tenant_id");
    expect(searched).toBe(`${invocation} search "${QUESTION}"`);
    for (const said of [migration, "tenant_id", "accounts", "does not exist"])
      expect(QUESTION).not.toContain(said);

    // The searches' results, as they arrived in the requests Claude Code sent right after each call.
    const results = arrivedBashResults(requests);
    expect(results.map((b) => b.command)).toEqual([searched, typoSearched, alsoTry]);
    expect(requests.flatMap((q) => (q.body ? toolResults(q.body) : [])).map(toolResultText)).toEqual(
      results.map((b) => b.output),
    );
    const found = results[0]!;
    expect(found.isError).toBe(false);
    // Scoped to the new session's chain (its Bash has THROUGHLINE_SESSION), which holds the old turns.
    expect(found.output).toMatch(new RegExp(`^\\*\\*Scope:\\*\\* session ${r.sessionId} `, "m"));
    // The best match is the migration's turn, and it shows the failing line.
    expect(found.output).toMatch(/^1\. \[.*\] .* · turn 1$/m);
    expect(found.output).toContain(factLine);
    const block = resultBlocks(found.output).find((b) => b.includes(factLine));
    expect(block).toBeDefined();
    // The command that opens the turn (or the tool call whole), on its own `   → ` line.
    expect(block!).toMatch(new RegExp(`^ {3}→ ${literal(invocation)} \\S`, "m"));

    // A mistyped name: the output names it, with the name this memory holds, and the query again.
    const typoOut = results[1]!.output;
    expect(typoOut).toContain(`**No row holds:** ${typo} (nearest here: ${migration} ×`);
    expect(alsoTry.startsWith(`${invocation} search `)).toBe(true);
    expect(alsoTry).toContain(`what happened with ${migration}`);
    // Run as printed by Claude Code's Bash, it brings the failing line to the model, first.
    const again = results[2]!;
    expect(again.isError).toBe(false);
    expect(again.output).not.toContain("No row holds");
    expect(again.output).toMatch(/^1\. \[.*\] .* · turn 1$/m);
    expect(resultBlocks(again.output)[0]).toContain(factLine);
  }, 240_000);
});
