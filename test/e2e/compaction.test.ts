/**
 * End-to-end: the push after compaction (docs/contract.md#after-compaction), with the real Claude
 * Code CLI against the stand-in model. `/compact` in a resumed `-p` session; the next question's
 * request must carry throughline's block once, and the model's own Bash tool must fetch a
 * compacted turn word for word with the command the block printed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  createHome,
  type E2EHome,
  e2eSkipReason,
  findTranscript,
  hookEvents,
  installHooks,
  queryDb,
  readTranscript,
  runPrint,
  TmuxClaude,
  type TranscriptEntry,
  waitUntil,
} from "../../harness/e2e/driver.ts";
import {
  bash,
  clearSession,
  filler,
  nonce,
  printed,
  promptHookOutputs,
  sessionRequests,
  turnStored,
  typeTurns,
  waitStored,
} from "../../harness/e2e/scenario.ts";
import {
  countOccurrences,
  lastPrompt,
  requestText,
  stepInTurn,
  toolResults,
  toolResultText,
} from "../../harness/e2e/stand-in.ts";

const SKIP = e2eSkipReason();
const LONG = 240_000;
const HEADER = "# Resume context after compaction (throughline)";

const homes: E2EHome[] = [];
afterAll(async () => {
  for (const h of homes) await h[Symbol.asyncDispose]();
});

/** What SessionStart printed after each compaction, as Claude Code recorded it in the transcript. */
function compactionPushes(transcript: TranscriptEntry[]): string[] {
  return transcript
    .map((e) => e.attachment as Record<string, unknown> | undefined)
    .filter((a) => a?.hookEvent === "SessionStart")
    .map((a) => String(a?.content ?? ""))
    .filter((c) => c.startsWith(HEADER));
}

/** The turns a push shows whole. */
function recent(push: string): string {
  return push.slice(push.indexOf("## Recent turns"));
}

/** One resumed `-p` session through `prompts`, each stored before the next: its id. */
async function runSteps(h: E2EHome, prompts: string[], tag: string): Promise<string> {
  let sid = "";
  for (const [i, prompt] of prompts.entries()) {
    const r = await runPrint(h, prompt, {
      resume: i === 0 ? undefined : sid,
      holdUntil: (id) => turnStored(h, id, prompt, `FOOBAR${i} Reply ${i} ${tag}`),
    });
    sid = r.sessionId;
  }
  return sid;
}

/**
 * The question's first request carries the block once beside the client's summary, and the model's
 * printed pull (its second request's one tool result) brought back the compacted first turn
 * verbatim. Returns the first request's text.
 */
function expectBlockAndPull(
  h: E2EHome,
  sid: string,
  question: string,
  prompts: string[],
  tag: string,
): string {
  const requests = sessionRequests(h, sid).filter((r) => lastPrompt(r.body!) === question);
  expect(requests.length).toBeGreaterThanOrEqual(2);
  const first = requestText(requests[0]!.body!);
  expect(countOccurrences(first, HEADER)).toBe(1);
  expect(first).toContain("Stand-in compaction summary");
  const results = toolResults(requests[1]!.body!);
  expect(results).toHaveLength(1);
  expect(results[0]!.is_error ?? false).toBe(false);
  const pulled = toolResultText(results[0]!);
  expect(pulled).toContain(`[user]: ${prompts[0]}`);
  expect(pulled).toContain(`FOOBAR1 ${filler(1, tag, 420)}`);
  return first;
}

describe.skipIf(SKIP !== null)("the push after compaction, end to end", () => {
  test(
    "/compact, then a question: the request carries the block once, the model's Bash gets a compacted turn verbatim; a second /compact repeats none of it",
    async () => {
      const tag = nonce();
      const prompts = [0, 1, 2, 3, 4, 5].map((i) => `step ${i} FOOBAR${i} ${tag}`);
      const question = `what was FOOBAR1 ${tag}`;
      const again = `and FOOBAR5 ${tag}`;
      const h = await createHome({
        // A real model takes seconds to summarize: the rehearsal PreCompact starts runs meanwhile.
        compactLatencyMs: 2000,
        script: (_r, body) => {
          const prompt = lastPrompt(body);
          const m = /^step (\d) FOOBAR/.exec(prompt);
          if (m) return `FOOBAR${m[1]} ${filler(Number(m[1]), tag, 420)}`;
          if (prompt === question || prompt === again) {
            const text = requestText(body);
            const push = text.slice(text.lastIndexOf(HEADER));
            const l2 = printed(push, "recall --l2 ");
            if (stepInTurn(body) === 0 && l2) return bash(l2);
            return `Answered: ${prompt}`;
          }
          return `Reply to: ${prompt}`;
        },
      });
      homes.push(h);
      installHooks(h, "auto");
      const sid = await runSteps(h, prompts, tag);
      const compactOnce = async (n: number) => {
        const r = await runPrint(h, "/compact", {
          resume: sid,
          holdUntil: () =>
            hookEvents(h, "SessionStart", sid).filter((e) => e.payload.source === "compact").length >= n,
        });
        expect(r.exitCode).toBe(0);
      };
      await compactOnce(1);
      // The push was printed ahead: rehearsed after PreCompact while the client compacted, and
      // recorded by SessionStart's follow-up (nothing the client wrote in between changed what
      // it read: the boundary comes after SessionStart).
      const pushRows = () =>
        queryDb(h, (db) =>
          db
            .query<{ prepared: number }, [string]>(
              "SELECT prepared FROM injections WHERE session_id = ? AND moment = 'compaction' ORDER BY id",
            )
            .all(sid),
        ) ?? [];
      await waitUntil(() => pushRows().length === 1, "the first compaction's push recorded");
      expect(pushRows()).toEqual([{ prepared: 2 }]);
      const asked = await runPrint(h, question, {
        resume: sid,
        holdUntil: (id) => turnStored(h, id, question, `Answered: ${question}`),
      });
      expect(asked.exitCode).toBe(0);

      // The block the client kept, once per compaction, within what it shows whole.
      const [push] = compactionPushes(readTranscript(findTranscript(h, sid)!));
      expect(push).toBeDefined();
      expect(push!.length).toBeLessThanOrEqual(9_500);
      expect(recent(push!)).not.toContain(prompts[0]!);
      // The question's first request carries it once, beside the client's own summary, and the
      // model ran the printed pull with its own Bash tool: a compacted turn came back verbatim.
      const first = expectBlockAndPull(h, sid, question, prompts, tag);
      // What the client kept of the conversation: its summary and, verbatim, the latest messages
      // (the boundary's preservedSegment; 2.1.197 and 2.1.332 alike), none of the earlier turns.
      // The boundary is written only after SessionStart returns, so the block cannot leave those out.
      const boundary = readTranscript(findTranscript(h, sid)!).find((e) => e.subtype === "compact_boundary")!;
      expect((boundary.compactMetadata as Record<string, unknown>).preservedSegment).toBeDefined();
      const clientPart = first.split(push!).join("");
      for (const p of prompts.slice(0, 4)) expect(clientPart).not.toContain(p);
      expect(clientPart).toContain(`FOOBAR5 ${filler(5, tag, 420)}`);
      expect(recent(push!)).toContain(prompts[5]!);

      // A second compaction: its block pushes only what came after the first block.
      await compactOnce(2);
      await runPrint(h, again, {
        resume: sid,
        holdUntil: (id) => turnStored(h, id, again, `Answered: ${again}`),
      });
      const pushes = compactionPushes(readTranscript(findTranscript(h, sid)!));
      expect(pushes).toHaveLength(2);
      expect(pushRows()).toEqual([{ prepared: 2 }, { prepared: 2 }]);
      // No hook complained: 2.1.332's compaction agent, which writes no transcript, included.
      expect(queryDb(h, (db) => db.query("SELECT event, message FROM hook_errors").all())).toEqual([]);
      const second = pushes[1]!;
      expect(recent(second)).toContain(question);
      for (const p of prompts) expect(second).not.toContain(`[user]: ${p}`);
      const last = sessionRequests(h, sid).filter((r) => lastPrompt(r.body!) === again);
      expect(countOccurrences(requestText(last[0]!.body!), HEADER)).toBe(1);
    },
    LONG,
  );

  test(
    "auto-compact: the client compacts on its own past its window; the next request carries the block once and the model's Bash gets a compacted turn verbatim",
    async () => {
      const tag = nonce();
      const prompts = [0, 1, 2, 3, 4, 5].map((i) => `auto ${i} FOOBAR${i} ${tag}`);
      const question = `what was FOOBAR1 ${tag}`;
      const h = await createHome({
        // The reply to the last step reports a context past the window below: the client
        // compacts before it sends the next prompt, as it does for a long session.
        inputTokens: (body) => (lastPrompt(body) === prompts[5] ? 150_000 : 10),
        script: (_r, body) => {
          const prompt = lastPrompt(body);
          const m = /^auto (\d) FOOBAR/.exec(prompt);
          if (m) return `FOOBAR${m[1]} ${filler(Number(m[1]), tag, 420)}`;
          if (prompt === question) {
            const text = requestText(body);
            const l2 = printed(text.slice(text.lastIndexOf(HEADER)), "recall --l2 ");
            if (stepInTurn(body) === 0 && l2) return bash(l2);
            return `Answered: ${prompt}`;
          }
          return `Reply to: ${prompt}`;
        },
      });
      homes.push(h);
      h.env.CLAUDE_CODE_AUTO_COMPACT_WINDOW = "100000";
      installHooks(h, "auto");
      const sid = await runSteps(h, prompts, tag);
      expect(hookEvents(h, "SessionStart", sid).some((e) => e.payload.source === "compact")).toBe(false);
      const asked = await runPrint(h, question, {
        resume: sid,
        holdUntil: (id) => turnStored(h, id, question, `Answered: ${question}`),
      });
      expect(asked.exitCode).toBe(0);
      // The client compacted by itself: PreCompact and the boundary say `auto`, then SessionStart(compact).
      expect(hookEvents(h, "PreCompact", sid).map((e) => e.payload.trigger)).toContain("auto");
      const transcript = readTranscript(findTranscript(h, sid)!);
      const boundary = transcript.find((e) => e.subtype === "compact_boundary")!;
      expect((boundary.compactMetadata as Record<string, unknown>).trigger).toBe("auto");
      expect(hookEvents(h, "SessionStart", sid).some((e) => e.payload.source === "compact")).toBe(true);
      const pushes = compactionPushes(transcript);
      expect(pushes).toHaveLength(1);
      expect(pushes[0]!.length).toBeLessThanOrEqual(9_500);
      expectBlockAndPull(h, sid, question, prompts, tag);
    },
    LONG,
  );

  test(
    "interactive: turns, /compact, a question, then /clear: the new session's push hands over every turn of the chain once",
    async () => {
      const tag = nonce();
      const prompts = [0, 1, 2].map((i) => `step ${i} FOOBAR${i} ${tag}`);
      const question = `what was FOOBAR1 ${tag}`;
      const next = `go on ${tag}`;
      const h = await createHome({
        script: (_r, body) => {
          const prompt = lastPrompt(body);
          const m = /^step (\d) FOOBAR/.exec(prompt);
          return m ? `FOOBAR${m[1]} done ${tag}.` : `Reply to: ${prompt}`;
        },
      });
      homes.push(h);
      installHooks(h, "auto");
      await using tmux = await TmuxClaude.start(h);
      await tmux.waitReady();
      const sid = await typeTurns(h, tmux, prompts, (i) => `FOOBAR${i} done ${tag}.`);
      await tmux.submit("/compact");
      await waitUntil(
        () => hookEvents(h, "SessionStart", sid).find((r) => r.payload.source === "compact"),
        "SessionStart(compact)",
        60_000,
      );
      // The client writes `/compact`'s own command entries after SessionStart returns; a question
      // typed before they are written lands ahead of them in the transcript (seen on a loaded CI
      // machine), so it waits for them, as a person waits for the compaction to finish on screen.
      await waitUntil(
        () =>
          readTranscript(findTranscript(h, sid)!).some((e) =>
            JSON.stringify(e.message ?? "").includes("<command-name>/compact</command-name>"),
          ),
        "the /compact command entries in the transcript",
        60_000,
      );
      await tmux.waitForScreen(/❯/, "the input prompt after /compact");
      await tmux.submit(question);
      await waitStored(h, sid, question, `Reply to: ${question}`);
      // The question's request holds the block once, and it names the turns before the compaction.
      const asked = sessionRequests(h, sid).find((r) => lastPrompt(r.body!) === question)!;
      const text = requestText(asked.body!);
      expect(countOccurrences(text, HEADER)).toBe(1);
      expect(text.slice(text.indexOf(HEADER))).toContain(`FOOBAR2 done ${tag}.`);

      const newId = await clearSession(h, tmux, `Reply to: ${question}`);
      await tmux.submit(next);
      await waitStored(h, newId, next, `Reply to: ${next}`);
      const [push] = promptHookOutputs(readTranscript(findTranscript(h, newId)!));
      expect(push).toBeDefined();
      expect(push).toStartWith("# Resume context (throughline)");
      // Every turn of the chain, once: the three steps, /compact and the question.
      for (const p of [...prompts, question]) expect(countOccurrences(push!, `[user]: ${p}`)).toBe(1);
      expect(push).toContain("holds 5 turns");
      // The compaction's own block, recorded back as a hook attachment, is not handed over again.
      expect(push).not.toContain(HEADER);
    },
    LONG,
  );
});
