/**
 * Tool facts where the model looks first (docs/contract.md#the-push, `--newer-tools`), proven with
 * the real client: a turn reads a file, another runs a project slash command; after a handoff the
 * push names the command's text under its prompt, and the `recall --l2` the push printed, run by
 * the stand-in model through Claude Code's own Bash tool in the default permission mode, returns
 * what the read returned (a name the push does not hold) and the file's absolute path.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { selfInvocation } from "../../src/core/invocation.ts";
import { CLI_ENTRY, createHome, e2eSkipReason, installHooks, runPrint } from "./driver.ts";
import { bash, nonce, printed, pushIn, sessionRequests, turnStored } from "./scenario.ts";
import { lastPrompt, stepInTurn, toolResults, toolResultText } from "./stand-in.ts";

const SKIP = e2eSkipReason();

describe.skipIf(SKIP !== null)("tool facts after a handoff (real Claude Code)", () => {
  test("the printed --l2 pull returns a pushed turn's read; a slash command's text is in the push", async () => {
    const tag = nonce();
    const name = `parse_rows_${tag}`;
    const read = `p1 ${tag} read rows.py`;
    const go = `continue ${tag}`;
    let file = "";
    await using h = await createHome({
      script: (_r, body) => {
        const prompt = lastPrompt(body);
        const step = stepInTurn(body);
        if (prompt === read)
          return step === 0 ? { tools: [{ name: "Read", input: { file_path: file } }] } : `Read it ${tag}.`;
        if (prompt.includes(go)) {
          if (step === 0) return bash(printed(pushIn(body), "recall --l2 ") ?? "echo no-l2-in-push");
          return `Pulled ${tag}.`;
        }
        return `Reply to: ${prompt.slice(0, 40)}`;
      },
    });
    expect(installHooks(h, "install", { record: false })).toBe("install");
    const invocation = selfInvocation(CLI_ENTRY, process.execPath);
    file = join(h.project, "rows.py");
    writeFileSync(file, `def ${name}(text):\n    return text.split()\n`);
    mkdirSync(join(h.project, ".claude", "commands"), { recursive: true });
    writeFileSync(
      join(h.project, ".claude", "commands", "publish.md"),
      `Publish the release by running python3 /opt/release/publish_${tag}.py --channel beta\n`,
    );

    const first = await runPrint(h, read, { holdUntil: (id) => turnStored(h, id, read, `Read it ${tag}.`) });
    const sid = first.sessionId;
    await runPrint(h, "/publish", { resume: sid });
    await runPrint(h, "/tl", { resume: sid });
    const r = await runPrint(h, go);
    expect(r.exitCode).toBe(0);
    const requests = sessionRequests(h, r.sessionId);
    const push = pushIn(requests[0]!.body!);
    expect(push).toContain(read);
    // The read's result is not in the push; the slash command's text is, under its prompt.
    expect(push).not.toContain(name);
    expect(push).toMatch(
      new RegExp(
        `\\[user\\]: /publish\\n {2}\\(the command's text: Publish the release by running python3 /opt/release/publish_${tag}\\.py`,
      ),
    );
    const l2 = printed(push, "recall --l2 ")!;
    expect(l2).toStartWith(`${invocation} recall --l2 `);
    expect(l2).toMatch(/ --last 0 --newer-tools \d+$/);
    const results = requests.flatMap((q) => (q.body ? toolResults(q.body) : []));
    expect(results).toHaveLength(1);
    expect(results[0]!.is_error ?? false).toBe(false);
    const pulled = toolResultText(results[0]!);
    expect(pulled).toContain("## Tools of the");
    expect(pulled).toContain(`read ${file} (${name}`);
  }, 240_000);
});
