/**
 * Tool facts where the model looks first (docs/contract.md#the-push, `--newer-tools`), proven with
 * the real client: a turn reads a file, another runs a project slash command; after a handoff the
 * push names the command's text under its prompt, and the `recall --l2` the push printed, run by
 * the stand-in model through Claude Code's own Bash tool in the default permission mode, returns
 * what the read returned (a name the push does not hold) and the file's absolute path; and the
 * `search` the push's guide prints, run the same way with a word only a tool output holds, finds
 * that output, and the `detail` command its result prints opens the turn with the output whole.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_ENTRY, createHome, e2eSkipReason, installHooks, runPrint } from "../../harness/e2e/driver.ts";
import { bash, nonce, printed, pushIn, sessionRequests, turnStored } from "../../harness/e2e/scenario.ts";
import {
  lastPrompt,
  type MessagesBody,
  type RecordedRequest,
  type Reply,
  type ScriptFn,
  stepInTurn,
  toolResults,
  toolResultText,
} from "../../harness/e2e/stand-in.ts";
import { selfInvocation } from "../../src/core/invocation.ts";

const SKIP = e2eSkipReason();

/**
 * The stand-in model of these tests: `read` (the first prompt) reads `file` with Claude Code's Read
 * tool, `go` (the first prompt after the handoff) answers by `onGo` at each step of its turn,
 * anything else briefly. `file` is set once the home exists.
 */
function readThenGo(tag: string, name: string, onGo: (body: MessagesBody, step: number) => Reply | string) {
  const s = { read: `p1 ${tag} read ${name}`, go: `continue ${tag}`, file: "" };
  const script: ScriptFn = (_r, body) => {
    const prompt = lastPrompt(body);
    const step = stepInTurn(body);
    if (prompt === s.read)
      return step === 0 ? { tools: [{ name: "Read", input: { file_path: s.file } }] } : `Read it ${tag}.`;
    if (prompt.includes(s.go)) return onGo(body, step);
    return `Reply to: ${prompt.slice(0, 40)}`;
  };
  return Object.assign(s, { script });
}

describe.skipIf(SKIP !== null)("tool facts after a handoff (real Claude Code)", () => {
  test("the printed --l2 pull returns a pushed turn's read; a slash command's text is in the push", async () => {
    const tag = nonce();
    const name = `parse_rows_${tag}`;
    const sc = readThenGo(tag, "rows.py", (body, step) =>
      step === 0 ? bash(printed(pushIn(body), "recall --l2 ") ?? "echo no-l2-in-push") : `Pulled ${tag}.`,
    );
    const { read, go } = sc;
    await using h = await createHome({ script: sc.script });
    expect(installHooks(h, "install", { record: false })).toBe("install");
    const invocation = selfInvocation(CLI_ENTRY, process.execPath);
    const file = join(h.project, "rows.py");
    sc.file = file;
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

  test("the printed search finds a word only a tool output holds; the detail it prints opens that output", async () => {
    const tag = nonce();
    // Deep in the file: no tool line, brief or pushed text holds it, only the read's output (L3).
    const word = `staging_port_${tag}`;
    let searched = "";
    const sc = readThenGo(tag, "settings.py", (body, step) => {
      if (step === 0) {
        // The guide's command as printed, with the words the model is looking for.
        const printedSearch = printed(pushIn(body), "search ") ?? "echo no-search-in-push";
        searched = printedSearch.replace("<words>", word);
        return bash(searched);
      }
      if (step === 1) {
        const found = toolResults(body).map(toolResultText).join("\n");
        return bash(/^ {3}→ (.+ detail .+)$/m.exec(found)?.[1] ?? "echo no-detail-in-result");
      }
      return `Found it ${tag}.`;
    });
    const { read, go } = sc;
    await using h = await createHome({ script: sc.script });
    expect(installHooks(h, "install", { record: false })).toBe("install");
    const invocation = selfInvocation(CLI_ENTRY, process.execPath);
    const file = join(h.project, "settings.py");
    sc.file = file;
    const lines = Array.from({ length: 40 }, (_, i) => `OPTION_${i} = ${i}`);
    lines[23] = `${word.toUpperCase()} = 48213`;
    writeFileSync(file, `${lines.join("\n")}\n`);

    const first = await runPrint(h, read, { holdUntil: (id) => turnStored(h, id, read, `Read it ${tag}.`) });
    for (const p of [`p2 ${tag} step`, `p3 ${tag} step`])
      await runPrint(h, p, {
        resume: first.sessionId,
        holdUntil: (id) => turnStored(h, id, p, `Reply to: ${p}`),
      });
    await runPrint(h, "/tl", { resume: first.sessionId });
    const r = await runPrint(h, go);
    expect(r.exitCode).toBe(0);
    const requests = sessionRequests(h, r.sessionId);
    const push = pushIn(requests[0]!.body!);
    expect(push).toContain(read);
    expect(push.toLowerCase()).not.toContain(word);
    expect(searched).toBe(`${invocation} search ${word}`);

    const results = requests.flatMap((q: RecordedRequest) => (q.body ? toolResults(q.body) : []));
    expect(results).toHaveLength(2);
    for (const res of results) expect(res.is_error ?? false).toBe(false);
    const [found, opened] = results.map(toolResultText) as [string, string];
    // Scoped to the new session's chain (its Bash has THROUGHLINE_SESSION), which holds the old
    // session's turns under the live id; the hit is the read's output, with the line holding the word.
    expect(found).toContain(`## Search: ${word}\n**Scope:** session ${r.sessionId} `);
    expect(found).toMatch(/^1\. \[L3 tool_output Read · call 1 of 1\] .* · turn 1$/m);
    expect(found).toContain(`${word.toUpperCase()} = 48213`);
    expect(found).toMatch(
      new RegExp(`^ {3}→ ${invocation.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} detail `, "m"),
    );
    // detail prints the turn whole: the prompt and every line of what the read returned.
    expect(opened).toContain(read);
    expect(opened).toContain(`${word.toUpperCase()} = 48213`);
    expect(opened).toContain("OPTION_39 = 39");
  }, 240_000);
});
