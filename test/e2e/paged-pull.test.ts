/**
 * A paged pull read to its last page, the way a user's session reads it (issue 21): the stand-in
 * model runs the `recall --l2` command baked into the push it received with Claude Code's own
 * Bash tool, then every `Next page` command the output names, until a page names none; then the
 * push's `detail` command for the newest turn, whose stored Read output is several pages long,
 * the `detail --item` its cut marker names, and every page of that. Each command string is
 * parsed from what the model received, never rebuilt. Claude Code runs in the TUI with a user's
 * PATH in its default permission mode, with the allow rules `install` wrote (no `--allowedTools`).
 * The client hands the model a Bash output whole only up to 30,000 bytes (output-limit.test.ts);
 * every page must arrive whole. See docs/testing.md.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CLI_ENTRY,
  createHome,
  e2eSkipReason,
  installHooks,
  queryDb,
  TmuxClaude,
  waitUntil,
} from "../../harness/e2e/driver.ts";
import {
  arrivedBashResults,
  type BashResult,
  bash,
  bashResults,
  cutMarkers,
  nonce,
  pageLine,
  persistedOutput,
  printed,
  pushIn,
  sessionPrompted,
  sessionRequests,
  typeTurns,
} from "../../harness/e2e/scenario.ts";
import { lastPrompt, type MessagesBody, type Reply, stepInTurn } from "../../harness/e2e/stand-in.ts";
import { selfInvocation } from "../../src/core/invocation.ts";
import { PULL_MAX_BYTES } from "../../src/core/turn-block.ts";

const SKIP = e2eSkipReason();
const LONG = 120_000;

/** What Claude Code shows on screen when it wants a person's approval (as in pulls.test.ts). */
const APPROVAL = /requires approval|Do you want to proceed/i;
/** How Claude Code answers a refused Bash call in place of its output (as in pulls.test.ts). */
const REFUSED = /^\s*(This command requires approval|\S+ in '[^']*' (needs approval|was blocked))/;

const utf8 = (s: string): number => Buffer.byteLength(s, "utf8");

/** Turns of the chain: the 20 newest are the window; the last one reads the big file. */
const TURNS = 22;
const WINDOW_TURNS = 20;

/**
 * A reply of about 2,800 characters and 4,200 UTF-8 bytes (a third of its words are CJK), so
 * the window turns the push leaves out fill several pages, and a page cut by characters would
 * not fit the client's byte limit.
 */
function longReply(i: number, tag: string): string {
  const words = Array.from({ length: 700 }, (_, k) =>
    k % 3 === 2 ? `漢字${k % 10}` : `w${(k * 7 + i) % 89}`,
  );
  return `Reply ${i} ${tag}: ${words.join(" ")}.`;
}

/** A file of about 60,000 characters, some lines multi-byte: read whole by the Read tool, stored whole. */
function bigFile(tag: string): string {
  let s = "";
  for (let i = 0; s.length < 60_000; i++)
    s +=
      i % 7 === 3
        ? `line ${i} ${tag} é漢字テスト ${"é".repeat(30)}\n`
        : `line ${i} ${tag} ${"x".repeat(60)}\n`;
  return s;
}

const occurrences = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/** The push's "Latest turn in full" command: `detail <ISO> --session <id>` for the newest turn. */
function latestDetail(push: string): string | null {
  return /Latest turn in full[^`\n]*`([^`\n]+)`/.exec(push)?.[1] ?? null;
}

/**
 * The stand-in model's side of the pull: the baked `recall --l2`, each page's next page; once a
 * page names none, the push's detail command; from its cut marker (the item cut most) the
 * `detail --item`, each of its next pages; then `done`.
 */
function pullStep(body: MessagesBody, done: string): Reply | string {
  const push = pushIn(body);
  const step = stepInTurn(body);
  if (step === 0) return bash(printed(push, "recall --l2 ") ?? "echo no-l2-in-push");
  if (step > 40) return done;
  const newest = bashResults(body).at(-1);
  if (!newest) return done;
  const next = pageLine(newest.output);
  if (next) return bash(next.command);
  if (newest.command.includes(" recall --l2 ")) return bash(latestDetail(push) ?? "echo no-detail-in-push");
  if (!newest.command.includes(" detail --item ")) {
    const most = cutMarkers(newest.output).sort((a, b) => b.cut - a.cut)[0];
    return bash(most?.command ?? "echo no-cut-marker");
  }
  return done;
}

/** The turn numbers (`pN`) whose prompts a page shows, in the order shown. */
function turnsOn(page: string, tag: string): number[] {
  return [...page.matchAll(new RegExp(`\\[user\\]: p(\\d+) ${tag} `, "g"))].map((m) => Number(m[1]));
}

/** Each page ran the command the page before it named on its last line. */
function expectChained(pages: readonly BashResult[]): void {
  for (let i = 1; i < pages.length; i++)
    expect(pages[i]!.command).toBe(pageLine(pages[i - 1]!.output)!.command);
  expect(pageLine(pages.at(-1)!.output)).toBeNull();
  expect(pages.at(-1)!.output).not.toMatch(/^Next page \(/m);
}

describe.skipIf(SKIP !== null)(
  "a paged pull to its last page (real Claude Code, default permissions)",
  () => {
    test(
      "checkout install, TUI: after /clear the model pages the baked --l2 to its end, then a detail item to its end; every page arrives whole",
      async () => {
        const tag = nonce();
        const prompts = Array.from({ length: TURNS }, (_, i) =>
          i + 1 === TURNS ? `p${i + 1} ${tag} read the log` : `p${i + 1} ${tag} step`,
        );
        const go = `continue ${tag}`;
        const done = `Read every page ${tag}.`;
        let finished = false;
        const file = () => join(h.project, "big.log");
        await using h = await createHome({
          script: (_r, body) => {
            const prompt = lastPrompt(body);
            const m = /^p(\d+) /.exec(prompt);
            if (m) {
              const n = Number(m[1]);
              if (n < TURNS) return longReply(n, tag);
              return stepInTurn(body) === 0
                ? { tools: [{ name: "Read", input: { file_path: file() } }] }
                : `Reply ${n} ${tag}: read it.`;
            }
            if (prompt.includes(go)) {
              const reply = pullStep(body, done);
              if (reply === done) finished = true;
              return reply;
            }
            return `Reply to: ${prompt}`;
          },
        });
        h.env.THROUGHLINE_SUMMARIZER = "extractive";
        const big = bigFile(tag);
        writeFileSync(file(), big);
        expect(installHooks(h, "install", { record: false })).toBe("install");
        const invocation = selfInvocation(CLI_ENTRY, process.execPath);

        await using tmux = await TmuxClaude.start(h);
        await tmux.waitReady();
        await typeTurns(h, tmux, prompts, (i) => `Reply ${i + 1} ${tag}`);
        await tmux.clear(`Reply ${TURNS} ${tag}`);
        await tmux.submit(go);
        await waitUntil(() => finished, "the model to read every page", 90_000);
        await tmux.waitForScreen((s) => s.includes(done), "the answer after the last page");
        expect(tmux.capture()).not.toMatch(APPROVAL);

        const newId = sessionPrompted(h, go);
        const requests = sessionRequests(h, newId);
        const push = pushIn(requests[0]!.body!);
        expect(push.length).toBeGreaterThan(0);
        const l2 = printed(push, "recall --l2 ")!;
        expect(l2).toStartWith(`${invocation} recall --l2 `);
        const detail = latestDetail(push)!;
        expect(detail).toStartWith(`${invocation} detail `);

        // Every page arrived whole, within the product's page limit, and ran without a refusal.
        const results = arrivedBashResults(requests);
        const sizes = results.map((r) => `${utf8(r.output)} B  ${r.command.slice(invocation.length)}`);
        console.log(`paged pull: ${results.length} Bash results\n  ${sizes.join("\n  ")}`);
        for (const r of results) {
          expect(r.isError, r.command).toBe(false);
          expect(r.output, r.command).not.toMatch(REFUSED);
          expect(persistedOutput(r.output), r.command).toBeNull();
          expect(utf8(r.output), r.command).toBeLessThanOrEqual(PULL_MAX_BYTES);
        }
        const l2Pages = results.filter((r) => r.command.includes(" recall --l2 "));
        const itemPages = results.filter((r) => r.command.includes(" detail --item "));
        expect(results.map((r) => r.command)).toEqual([
          ...l2Pages.map((r) => r.command),
          detail,
          ...itemPages.map((r) => r.command),
        ]);

        // --l2: the baked command, then each page's next page, to a page that names none.
        expect(l2Pages[0]!.command).toBe(l2);
        expect(l2Pages.length).toBeGreaterThanOrEqual(3);
        expectChained(l2Pages);
        for (const p of l2Pages.slice(0, -1)) {
          const next = pageLine(p.output)!;
          expect(next.command).toStartWith(`${invocation} recall --l2 `);
          const rest = Number(/ --last (\d+)$/.exec(next.command)![1]);
          expect(next.what).toBe(rest === 1 ? "1 older turn" : `${rest} older turns`);
        }
        // The window turns the push left out (`--last R`) are the oldest of the window; the pages
        // hold each exactly once, with all its text, and nothing else: no pushed turn, no older one.
        const window = prompts.slice(TURNS - WINDOW_TURNS);
        const pushed = window.filter((p) => push.includes(`[user]: ${p}`));
        const leftOut = window.filter((p) => !pushed.includes(p));
        expect(pushed.length).toBeGreaterThan(0);
        expect(leftOut).toEqual(window.slice(0, leftOut.length));
        expect(Number(/ --last (\d+)/.exec(l2)![1])).toBe(leftOut.length);
        const all = l2Pages.map((p) => p.output).join("\n");
        for (const p of leftOut) {
          const n = Number(/^p(\d+) /.exec(p)![1]);
          expect(occurrences(all, `[user]: ${p}`), p).toBe(1);
          expect(occurrences(all, longReply(n, tag)), p).toBe(1);
        }
        for (const p of [...prompts.slice(0, TURNS - WINDOW_TURNS), ...pushed])
          expect(occurrences(all, `[user]: ${p}`), p).toBe(0);
        // Newest page first, oldest turn first within a page.
        const order = l2Pages.map((p) => turnsOn(p.output, tag));
        for (const [i, turns] of order.entries()) {
          expect(turns.length, `page ${i + 1}`).toBeGreaterThan(0);
          expect(turns).toEqual([...turns].sort((a, b) => a - b));
          if (i > 0) expect(turns.at(-1)!).toBeLessThan(order[i - 1]![0]!);
        }

        // detail: the newest turn's Read output is cut head and tail, the marker names its item.
        const detailPage = results.find((r) => r.command === detail)!;
        const most = cutMarkers(detailPage.output).sort((a, b) => b.cut - a.cut)[0]!;
        expect(most.command).toStartWith(`${invocation} detail --item `);
        const ref = /--item (\S+)/.exec(most.command)![1]!;
        const stored = queryDb(
          h,
          (db) =>
            (db.query("SELECT output FROM details WHERE id = ?").get(Number(ref)) as { output: string })
              .output,
        )!;
        expect(stored).toContain(big.split("\n")[0]!);
        expect(stored).toContain(big.trimEnd().split("\n").at(-1)!);
        expect(utf8(stored)).toBeGreaterThan(2 * PULL_MAX_BYTES);
        expect(detailPage.output).toContain(stored.slice(0, 200));

        // detail --item: the marker's command, each next page, to the end; the pages put together
        // are the stored output, each starting where the one before ended.
        expect(itemPages[0]!.command).toBe(most.command);
        expect(itemPages.length).toBeGreaterThanOrEqual(3);
        expectChained(itemPages);
        let joined = "";
        for (const [i, p] of itemPages.entries()) {
          if (i > 0) {
            expect(p.command).toBe(`${most.command} --offset ${joined.length}`);
            expect(pageLine(itemPages[i - 1]!.output)!.what).toBe(
              `chars ${joined.length.toLocaleString("en-US")}–`,
            );
          }
          const head = p.output.slice(0, p.output.indexOf("\n"));
          expect(head).toStartWith(`## detail --item ${ref}: `);
          expect(head).toContain(`(${stored.length.toLocaleString("en-US")} chars)`);
          const next = pageLine(p.output);
          const end = next ? p.output.lastIndexOf("\nNext page (") : p.output.length;
          joined += p.output.slice(head.length + 1, end);
        }
        expect(joined.trimEnd()).toBe(stored.trimEnd());
      },
      LONG,
    );
  },
);
