/**
 * End-to-end: the real Claude Code CLI, offline against the stand-in model, firing
 * throughline's real hooks. See docs/testing.md for what each scenario proves.
 *
 * Gated: skipped (not failed) without the CLI, tmux or git, and with THROUGHLINE_SKIP_E2E=1.
 * Every scenario runs whenever the suite runs: a broken command fails it, never skips it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CLI_ENTRY,
  createHome,
  type E2EHome,
  e2eSkipReason,
  findTranscript,
  hookEvents,
  installHooks,
  queryDb,
  readSettings,
  readTranscript,
  runPrint,
  runShell,
  runThroughline,
  TmuxClaude,
  turnCount,
  uninstallHooks,
  waitUntil,
} from "../../harness/e2e/driver.ts";
import { hookLatencies, listTranscripts, parseHookLatencies } from "../../harness/e2e/hook-latency.ts";
import {
  chainKeyIn,
  clearSession,
  diagnose,
  held,
  nonce,
  promptHookOutputs,
  sessionRequests,
  storedTurns,
  turnStored,
  waitStored,
} from "../../harness/e2e/scenario.ts";
import {
  countOccurrences,
  lastPrompt,
  requestText,
  scriptedTurns,
  toolResults,
  toolResultText,
} from "../../harness/e2e/stand-in.ts";

const SKIP = e2eSkipReason();
if (SKIP) console.warn(`e2e: skipped (${SKIP})`);

const TOOLS = ["Write", "Edit", "Bash"];
const LONG = 120_000;

/** Run a command the push baked in (`throughline recall …`), as the model would. */
function git(cwd: string, ...args: string[]): string {
  return Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" }).stdout.toString();
}

/** Every scenario's world, removed after the file (the -p scenario is shared by two tests). */
const homes: E2EHome[] = [];
afterAll(async () => {
  for (const h of homes) await h[Symbol.asyncDispose]();
});

async function newHome(opts: Parameters<typeof createHome>[0] = {}): Promise<E2EHome> {
  const h = await createHome(opts);
  homes.push(h);
  return h;
}

describe.skipIf(SKIP !== null)("Claude Code end to end", () => {
  // -------------------------------------------------------------------------------------------
  // (a) A headless session over three `claude -p` runs with real tool calls.

  interface PrintScenario {
    h: E2EHome;
    sessionId: string;
    prompts: string[];
    notes: string;
    tag: string;
  }
  let printScenario: Promise<PrintScenario> | undefined;
  function runPrintScenario(): Promise<PrintScenario> {
    printScenario ??= (async () => {
      const h = await newHome();
      installHooks(h, "auto");
      const tag = nonce();
      const notes = join(h.project, "notes.md");
      const prompts = [
        `Create the notes file ${tag}`,
        `Commit the notes ${tag}`,
        `Run the release script ${tag}`,
      ];
      const finals = [
        `Created and edited notes.md (${tag}).`,
        `Committed (${tag}).`,
        `The script is missing (${tag}).`,
      ];
      h.standIn.setScript(
        scriptedTurns({
          [prompts[0]!]: [
            {
              text: "I will create the file.",
              tools: [{ name: "Write", input: { file_path: notes, content: "# Notes\nfirst line\n" } }],
            },
            {
              text: "Now an edit.",
              tools: [
                {
                  name: "Edit",
                  input: { file_path: notes, old_string: "first line", new_string: "first line, edited" },
                },
              ],
            },
            finals[0]!,
          ],
          [prompts[1]!]: [
            {
              tools: [
                {
                  name: "Bash",
                  input: {
                    command: `git init -q && git add notes.md && git commit -qm "Add notes ${tag}"`,
                    description: "Commit the notes",
                  },
                },
              ],
            },
            finals[1]!,
          ],
          [prompts[2]!]: [
            {
              tools: [
                { name: "Bash", input: { command: "./release.sh", description: "Run the release script" } },
              ],
            },
            finals[2]!,
          ],
        }),
      );
      let sessionId = "";
      for (const [i, prompt] of prompts.entries()) {
        const r = await runPrint(h, prompt, {
          resume: i === 0 ? undefined : sessionId,
          allowedTools: TOOLS,
          ...held(h, prompt, finals[i]!),
        });
        expect(r.exitCode).toBe(0);
        expect(r.result).toBe(finals[i]!);
        if (i === 0) sessionId = r.sessionId;
        // --resume continues the same session (and the same transcript file).
        expect(r.sessionId).toBe(sessionId);
      }
      return { h, sessionId, prompts, notes, tag };
    })();
    return printScenario;
  }

  test(
    "claude -p with --resume: real Write/Edit/Bash calls, every prompt is one stored turn with its tool detail",
    async () => {
      const { h, sessionId, prompts, notes, tag } = await runPrintScenario();

      // The tools really ran.
      expect(readFileSync(notes, "utf8")).toBe("# Notes\nfirst line, edited\n");
      expect(git(h.project, "log", "--format=%s").trim()).toBe(`Add notes ${tag}`);

      // Turns == prompts, in order, with the final assistant text.
      const turns = storedTurns(h, sessionId);
      expect(turns.map((t) => t.turn_number)).toEqual([1, 2, 3]);
      expect(turns.map((t) => t.user)).toEqual(prompts);
      expect(turnCount(h, sessionId)).toBe(prompts.length);

      // L3: one tool_input per call, one tool_output per result, the failed command flagged.
      const details = queryDb(
        h,
        (db) =>
          db
            .query(
              `SELECT d.kind, d.tool_name, d.tool_use_id, d.input, d.output, d.is_error, t.turn_number
               FROM details d JOIN turns t ON t.id = d.turn_id
              WHERE d.origin_session_id = ? AND d.kind IN ('tool_input', 'tool_output') ORDER BY d.id`,
            )
            .all(sessionId) as {
            kind: string;
            tool_name: string | null;
            tool_use_id: string;
            input: string | null;
            output: string | null;
            is_error: number;
            turn_number: number;
          }[],
      )!;
      const inputs = details.filter((d) => d.kind === "tool_input");
      expect(inputs.map((d) => [d.turn_number, d.tool_name])).toEqual([
        [1, "Write"],
        [1, "Edit"],
        [2, "Bash"],
        [3, "Bash"],
      ]);
      expect(JSON.parse(inputs[2]!.input!).command).toContain(`git commit -qm "Add notes ${tag}"`);
      const outputs = details.filter((d) => d.kind === "tool_output");
      expect(outputs.map((d) => d.tool_use_id).sort()).toEqual(inputs.map((d) => d.tool_use_id).sort());
      const failed = outputs.filter((d) => d.is_error === 1);
      expect(failed.map((d) => d.tool_use_id)).toEqual([inputs[3]!.tool_use_id]);
      expect(failed[0]!.output).toContain("release.sh");

      // The transcript holds every tool result, and the model received each one.
      const transcript = readTranscript(findTranscript(h, sessionId)!);
      const resultIds = transcript
        .filter((e) => e.type === "user" && e.toolUseResult !== undefined)
        .flatMap((e) =>
          (e.message as { content: { tool_use_id?: string }[] }).content.map((b) => b.tool_use_id),
        );
      expect(resultIds.sort()).toEqual(inputs.map((d) => d.tool_use_id).sort());
      const received = h.standIn.mainRequests(sessionId).flatMap((r) => toolResults(r.body!));
      const failedResult = received.find((b) => b.tool_use_id === inputs[3]!.tool_use_id);
      expect(failedResult?.is_error).toBe(true);
      expect(toolResultText(failedResult!)).toMatch(/release\.sh.*(not found|No such file)/);

      // What Claude Code fired: startup then resume, one prompt hook each, and a failed tool
      // goes to PostToolUseFailure rather than PostToolUse.
      expect(hookEvents(h, "SessionStart", sessionId).map((r) => r.payload.source)).toEqual([
        "startup",
        "resume",
        "resume",
      ]);
      expect(hookEvents(h, "UserPromptSubmit", sessionId).map((r) => r.payload.prompt)).toEqual(prompts);
      expect(hookEvents(h, "PostToolUse", sessionId).map((r) => r.payload.tool_name)).toEqual([
        "Write",
        "Edit",
        "Bash",
      ]);
      expect(hookEvents(h, "PostToolUseFailure", sessionId).map((r) => r.payload.tool_name)).toEqual([
        "Bash",
      ]);
      expect(hookEvents(h, "Stop", sessionId)).toHaveLength(3);
    },
    LONG,
  );

  test(
    "activity index from the same session: recall edits, commits and errors",
    async () => {
      const { h, sessionId, tag } = await runPrintScenario();
      const recall = (what: string) => {
        const r = runThroughline(h, ["recall", what, "--session", sessionId, "--json"]);
        expect(r.exitCode).toBe(0);
        return JSON.parse(r.stdout) as { events: { type: string; summary: string }[] };
      };
      const edits = recall("edits").events;
      expect(edits.map((e) => e.type).sort()).toEqual(["file_create", "file_edit"]);
      expect(edits.every((e) => e.summary.includes("notes.md"))).toBe(true);
      const commits = recall("commits").events;
      expect(commits).toHaveLength(1);
      expect(commits[0]!.summary).toContain(`Add notes ${tag}`);
      const errors = recall("errors").events;
      expect(errors.length).toBe(1);
      expect(errors[0]!.summary).toContain("release.sh");
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // (b) /clear in the interactive UI.

  test(
    "interactive /clear: SessionEnd(clear) for the old id, SessionStart(clear) for a new one, both sessions captured",
    async () => {
      const h = await newHome({ script: (_r, body) => `Reply to: ${lastPrompt(body)}` });
      installHooks(h, "auto");
      const tag = nonce();
      await using tmux = await TmuxClaude.start(h);
      await tmux.waitReady();

      const first = `first prompt ${tag}`;
      await tmux.submit(first);
      const oldId = String(
        (
          await waitUntil(
            () => hookEvents(h, "UserPromptSubmit").find((r) => r.payload.prompt === first),
            "UserPromptSubmit of the first prompt",
          )
        ).payload.session_id,
      );
      await waitStored(h, oldId, first, `Reply to: ${first}`);

      const newId = await clearSession(h, tmux, `Reply to: ${first}`);
      expect(newId).not.toBe(oldId);
      await waitUntil(
        () => hookEvents(h, "SessionEnd", oldId).find((r) => r.payload.reason === "clear"),
        "SessionEnd(clear) of the old session",
      );

      const second = `second prompt ${tag}`;
      await tmux.submit(second);
      await waitStored(h, newId, second, `Reply to: ${second}`);

      // The old session's transcript ends where /clear cut it; the new one is its own file.
      expect(findTranscript(h, oldId)).not.toBe(findTranscript(h, newId));
      expect(storedTurns(h, oldId).map((t) => t.user)).toEqual([first]);
      // /clear itself is written at the top of the new transcript, as a typed slash command:
      // docs/contract.md#words makes that a human prompt of the new session.
      expect(storedTurns(h, newId).map((t) => t.user)).toEqual(["/clear", second]);
      // Claude Code itself forgets on /clear: the new session's request carries no earlier reply.
      const req = sessionRequests(h, newId)[0]!;
      expect(req.body!.messages!.some((m) => m.role === "assistant")).toBe(false);
      expect(lastPrompt(req.body!)).toBe(second);
      // The hook payloads carry what docs/testing.md says they do.
      const start = hookEvents(h, "SessionStart", newId)[0]!.payload;
      expect(start.transcript_path).toBe(findTranscript(h, newId)!);
      expect(start.cwd).toBe(h.project);
      const stop = hookEvents(h, "Stop", oldId)[0]!.payload;
      expect(stop.last_assistant_message).toBe(`Reply to: ${first}`);
      expect(stop.stop_hook_active).toBe(false);
      // Helper requests (session titles) never reached the conversation script.
      expect(h.standIn.requests.filter((r) => r.kind === "main")).toHaveLength(2);

      // Hook latency as the client recorded it: throughline's prompt-path hooks left durations.
      const latencies = listTranscripts(h.configDir).flatMap((p) => parseHookLatencies(readTranscript(p)));
      expect(latencies.some((l) => l.throughline && l.durationMs > 0)).toBe(true);
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // (c) Compaction, triggered offline with `/compact` in a resumed -p session.

  test(
    "/compact: PreCompact fires, no turn before or after the boundary is lost, the summary is kept as L3",
    async () => {
      const h = await newHome({ script: (_r, body) => `Reply to: ${lastPrompt(body)}` });
      installHooks(h, "auto");
      const tag = nonce();
      const one = `compact one ${tag}`;
      const two = `compact two ${tag}`;
      const three = `compact three ${tag}`;
      const r1 = await runPrint(h, one, { ...held(h, one, `Reply to: ${one}`) });
      const sid = r1.sessionId;
      await runPrint(h, two, { resume: sid, ...held(h, two, `Reply to: ${two}`) });
      const compacted = await runPrint(h, "/compact", {
        resume: sid,
        holdUntil: () => hookEvents(h, "SessionStart", sid).some((r) => r.payload.source === "compact"),
      });
      expect(compacted.exitCode).toBe(0);
      expect(h.standIn.requests.filter((r) => r.kind === "compact")).toHaveLength(1);
      expect(hookEvents(h, "PreCompact", sid).map((r) => r.payload.trigger)).toEqual(["manual"]);
      await runPrint(h, three, { resume: sid, ...held(h, three, `Reply to: ${three}`) });

      const transcript = readTranscript(findTranscript(h, sid)!);
      expect(transcript.some((e) => e.type === "system" && e.subtype === "compact_boundary")).toBe(true);
      // docs/contract.md#words: the typed /compact is a human prompt; the summary Claude Code wrote is not.
      expect(storedTurns(h, sid).map((t) => t.user)).toEqual([one, two, "/compact", three]);
      const summaries = queryDb(
        h,
        (db) =>
          db
            .query("SELECT output, input FROM details WHERE origin_session_id = ? AND kind = 'compaction'")
            .all(sid) as { output: string | null; input: string | null }[],
      )!;
      expect(
        summaries.some((s) => `${s.input ?? ""}${s.output ?? ""}`.includes("Stand-in compaction summary")),
      ).toBe(true);
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // (d) The push: after /clear, the next prompt carries the resume context, exactly once.

  test(
    "push after /clear: first request carries the resume context once, the baked pulls return the rest, the next prompt carries nothing",
    async () => {
      const tag = nonce();
      // ~3,000-character replies: five turns cannot all fit the 9,500-character push.
      const filler = (i: number) =>
        `Reply ${i} ${tag}: ${Array.from({ length: 400 }, (_, k) => `word${(k * 7 + i) % 97}`).join(" ")}.`;
      const h = await newHome({
        script: (_r, body) => {
          const m = /^prompt (\d+) /.exec(lastPrompt(body));
          return m ? filler(Number(m[1])) : `Reply to: ${lastPrompt(body)}`;
        },
      });
      installHooks(h, "auto");
      await using tmux = await TmuxClaude.start(h);
      await tmux.waitReady();
      const prompts = [1, 2, 3, 4, 5].map((i) => `prompt ${i} ${tag}`);
      let oldId = "";
      for (const [i, prompt] of prompts.entries()) {
        await tmux.submit(prompt);
        if (!oldId)
          oldId = String(
            (
              await waitUntil(
                () => hookEvents(h, "UserPromptSubmit").find((r) => r.payload.prompt === prompt),
                "the first prompt hook",
              )
            ).payload.session_id,
          );
        await waitStored(h, oldId, prompt, `Reply ${i + 1} ${tag}`);
      }
      // The Stop worker prepares the push after storing the turn (docs/contract.md, "The prepared
      // push"); a user's /clear comes seconds later.
      await waitUntil(
        () =>
          queryDb(h, (db) => db.query("SELECT 1 AS x FROM prepared_pushes WHERE session_id = ?").get(oldId)),
        "the prepared push of the old session",
      );
      const newId = await clearSession(h, tmux, `Reply 5 ${tag}`);
      // SessionStart(clear)'s follow-up rehearses the first prompt's handoff behind the client
      // (docs/hooks.md, "The push printed ahead"); a user's first prompt comes seconds later.
      await waitUntil(
        () => existsSync(join(`${h.dbPath}-pending`, "ahead", newId)) || undefined,
        "the rehearsed push of the new session",
      );
      const next = `go on ${tag}`;
      await tmux.submit(next);
      await waitUntil(() => sessionRequests(h, newId).length >= 1, "the first request of the new session");
      await waitStored(h, newId, next, `Reply to: ${next}`);

      const pushes = promptHookOutputs(readTranscript(findTranscript(h, newId)!));
      expect(pushes).toHaveLength(1);
      const push = pushes[0]!;
      expect(push.length).toBeLessThanOrEqual(9_500);
      const first = requestText(sessionRequests(h, newId)[0]!.body!);
      expect(countOccurrences(first, push)).toBe(1);
      // Current position: the newest prompt of the chain, and its reply.
      expect(push).toContain(prompts[4]!);
      expect(push).toContain(`Reply 5 ${tag}`);

      // The guide's commands, run literally through a shell with a user's PATH, return every turn
      // the push left out (test/e2e/pulls.test.ts has the model itself run them).
      const baked = [...push.matchAll(/`([^`\n]* recall --l[12] [^`\n]*)`/g)].map((m) => m[1]!);
      const pulled = baked.map((c) => runShell(h, c));
      for (const p of pulled) expect(p.exitCode).toBe(0);
      const seen = push + pulled.map((p) => p.stdout).join("\n");
      for (const prompt of prompts) expect(seen).toContain(prompt);
      expect(baked.some((c) => c.includes("--l2"))).toBe(true);

      // The chain moved: the old session is merged into the new one, and one push was recorded.
      const merged = queryDb(h, (db) =>
        db.query("SELECT merged_into FROM sessions WHERE id = ?").get(oldId),
      ) as { merged_into: string | null };
      expect(merged.merged_into).toBe(newId);
      // What reached the model was printed ahead, from the rehearsal, and the handoff ran after it
      // in the prompt's follow-up: nothing the client wrote between SessionStart(clear) and the
      // first prompt changed what the handoff reads, and the follow-up found the same text.
      const how = queryDb(h, (db) =>
        db.query("SELECT prepared FROM injections WHERE session_id = ?").all(newId),
      );
      expect(how).toEqual([{ prepared: 2 }]);
      expect(queryDb(h, (db) => db.query("SELECT message FROM hook_errors").all())).toEqual([]);

      // A second prompt carries nothing new: the push is in its request once (as history).
      const again = `and again ${tag}`;
      await tmux.submit(again);
      await waitStored(h, newId, again, `Reply to: ${again}`);
      expect(promptHookOutputs(readTranscript(findTranscript(h, newId)!))).toHaveLength(1);
      const second = requestText(sessionRequests(h, newId).at(-1)!.body!);
      expect(countOccurrences(second, push)).toBe(1);
      expect(lastPrompt(sessionRequests(h, newId).at(-1)!.body!)).toBe(again);
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // (e) The /tl baton.

  test(
    "/tl then a brand-new claude process in the same project inherits; a window in another project does not",
    async () => {
      const h = await newHome({
        script: (_r, body) => `Reply to: ${lastPrompt(body).slice(0, 60)}`,
        extraProjects: ["elsewhere"],
      });
      installHooks(h, "auto");
      const elsewhere = join(h.root, "elsewhere");
      const tag = nonce();
      const work = `baton work ${tag}`;
      const a = await runPrint(h, work, { ...held(h, work, `Reply to: ${work}`) });
      const batonFor = (project: string) =>
        queryDb(h, (db) =>
          db.query("SELECT session_id FROM handoff_batons WHERE project = ?").get(project),
        ) as { session_id: string } | null | undefined;
      await runPrint(h, "/tl", {
        resume: a.sessionId,
        holdUntil: (sid) =>
          batonFor(h.project)?.session_id === a.sessionId && turnStored(h, sid, "/tl", "baton"),
        explainHold: (sid) => diagnose(h, sid),
      });

      const other = `other project ${tag}`;
      const c = await runPrint(h, other, {
        cwd: elsewhere,
        ...held(h, other, "Reply to:"),
      });
      expect(requestText(sessionRequests(h, c.sessionId)[0]!.body!)).not.toContain(work);
      expect(batonFor(h.project)?.session_id).toBe(a.sessionId);

      const cont = `continue ${tag}`;
      const b = await runPrint(h, cont, { ...held(h, cont, "Reply to:") });
      expect(b.sessionId).not.toBe(a.sessionId);
      const pushes = promptHookOutputs(readTranscript(findTranscript(h, b.sessionId)!));
      expect(pushes).toHaveLength(1);
      expect(pushes[0]).toContain(work);
      expect(countOccurrences(requestText(sessionRequests(h, b.sessionId)[0]!.body!), pushes[0]!)).toBe(1);
      expect(batonFor(h.project)).toBeNull();
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // (f) --resume of a session already merged by a /clear handoff.

  test(
    "--resume of a merged session keeps writing into the live end of its chain",
    async () => {
      const h = await newHome({ script: (_r, body) => `Reply to: ${lastPrompt(body)}` });
      installHooks(h, "auto");
      const tag = nonce();
      const one = `chain one ${tag}`;
      const two = `chain two ${tag}`;
      const late = `chain late ${tag}`;
      let oldId: string;
      let newId: string;
      {
        await using tmux = await TmuxClaude.start(h);
        await tmux.waitReady();
        await tmux.submit(one);
        oldId = String(
          (
            await waitUntil(
              () => hookEvents(h, "UserPromptSubmit").find((r) => r.payload.prompt === one),
              "the first prompt hook",
            )
          ).payload.session_id,
        );
        await waitStored(h, oldId, one, `Reply to: ${one}`);
        newId = await clearSession(h, tmux, `Reply to: ${one}`);
        await tmux.submit(two);
        await waitStored(h, newId, two, `Reply to: ${two}`);
      }
      const r = await runPrint(h, late, {
        resume: oldId,
        ...held(h, late, `Reply to: ${late}`),
      });
      expect(r.sessionId).toBe(oldId);
      // Both of the old session's turns keep their origin and live in the new session's chain.
      const turns = storedTurns(h, oldId);
      expect(turns.map((t) => t.user)).toEqual([one, late]);
      expect(turns.every((t) => t.session_id === chainKeyIn(h, newId))).toBe(true);
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // (g) Uninstall: with the hooks gone, the push no longer reaches the model.

  test(
    "uninstall: the push reaches the model with the hooks installed and no longer once they are removed",
    async () => {
      const h = await newHome({ script: (_r, body) => `Reply to: ${lastPrompt(body)}` });
      expect(installHooks(h, "install")).toBe("install");
      const tag = nonce();

      /** prompt, /clear, prompt in a fresh interactive process; returns both session ids. */
      const clearCycle = async (before: string, after: string) => {
        await using tmux = await TmuxClaude.start(h);
        await tmux.waitReady();
        await tmux.submit(before);
        const oldId = String(
          (
            await waitUntil(
              () => hookEvents(h, "UserPromptSubmit").find((r) => r.payload.prompt === before),
              "the first prompt hook",
            )
          ).payload.session_id,
        );
        await tmux.waitForScreen((s) => s.includes(`Reply to: ${before}`), "the first reply");
        await waitUntil(() => hookEvents(h, "Stop", oldId).length > 0, "Stop of the first session");
        const newId = await clearSession(h, tmux, `Reply to: ${before}`);
        await tmux.submit(after);
        await waitUntil(() => sessionRequests(h, newId).length > 0, "the new session's request");
        await tmux.waitForScreen((s) => s.includes(`Reply to: ${after}`), "the second reply");
        return { oldId, newId };
      };

      const on = await clearCycle(`installed one ${tag}`, `installed two ${tag}`);
      expect(requestText(sessionRequests(h, on.newId)[0]!.body!)).toContain(`installed one ${tag}`);
      expect(promptHookOutputs(readTranscript(findTranscript(h, on.newId)!))).toHaveLength(1);

      uninstallHooks(h);
      const left = JSON.stringify(readSettings(h));
      expect(left).not.toContain(CLI_ENTRY);
      expect(left).toContain("hook-recorder.ts"); // uninstall removes only what install added
      const commands = join(h.configDir, "commands");
      expect(existsSync(commands) ? readdirSync(commands).filter((f) => f.startsWith("tl")) : []).toEqual([]);

      const off = await clearCycle(`removed one ${tag}`, `removed two ${tag}`);
      const text = requestText(sessionRequests(h, off.newId)[0]!.body!);
      expect(text).not.toContain(`removed one ${tag}`);
      expect(text).not.toContain("UserPromptSubmit hook success");
      expect(turnCount(h, off.oldId)).toBe(0);
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // A one-shot `claude -p` that is not held open: the client cancels async hooks as it exits,
  // so this proves the detached Stop worker stores the turn anyway.

  test(
    "a plain claude -p (not held open) still stores its turn: the Stop worker outlives the client",
    async () => {
      const h = await newHome();
      expect(installHooks(h, "install")).toBe("install");
      const tag = nonce();
      const prompt = `One-shot question ${tag}`;
      const reply = `One-shot answer ${tag}.`;
      h.standIn.setScript(scriptedTurns({ [prompt]: [reply] }));
      const r = await runPrint(h, prompt, {});
      expect(r.exitCode).toBe(0);
      expect(r.result).toBe(reply);
      await waitStored(h, r.sessionId, prompt, reply);
      expect(turnCount(h, r.sessionId)).toBe(1);
    },
    LONG,
  );

  // -------------------------------------------------------------------------------------------
  // The bench helper keeps working.

  test(
    "hookLatencies() runs its own scenario and reports durations of throughline's hooks",
    async () => {
      const report = await hookLatencies({ rounds: 1 });
      expect(report.skipped).toBeUndefined();
      expect(report.entries.length).toBeGreaterThan(0);
      expect(report.summary.length).toBeGreaterThan(0);
      for (const s of report.summary) expect(s.medianMs).toBeGreaterThan(0);
    },
    LONG,
  );
});
