/**
 * The web view in a real browser (docs/ui.md): the system's headless Chromium driven by
 * puppeteer-core loads every view over replayed fixtures, searches, opens a turn and checks what
 * the page shows; a hostile transcript executes nothing; the database's bytes do not change.
 * Writes a screenshot of each view to docs/ui/. Skips only when no Chromium is installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { REPO } from "../../harness/db.ts";
import {
  CONVERSATION_ID,
  chromiumPath,
  dbState,
  HOSTILE_ID,
  SAMPLE_ID,
  type UiWorld,
  uiWorld,
} from "../helpers/ui.ts";

const CHROMIUM = chromiumPath();
if (!CHROMIUM)
  console.warn(
    "test/ui/browser.test.ts: no chromium binary on PATH; the browser tests are skipped (.ci/run installs it)",
  );

const SHOTS = join(REPO, "docs", "ui");

describe.skipIf(!CHROMIUM)("throughline ui in Chromium", () => {
  let world: UiWorld;
  let browser: Browser;
  let page: Page;
  let before: ReturnType<typeof dbState>;
  const dialogs: string[] = [];
  const foreign: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    world = await uiWorld();
    before = dbState(world.db);
    const puppeteer = (await import("puppeteer-core")).default;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM!,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    page.on("dialog", async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    page.on("request", (r) => {
      const u = r.url();
      if (!u.startsWith(`${world.origin}/`) && !u.startsWith("data:")) foreign.push(u);
    });
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await world?.[Symbol.asyncDispose]();
  });

  // biome-ignore lint/performance/useDomNodeTextContent: what the page displays, as a person reads it (not hidden text).
  const text = () => page.$eval("main", (m) => (m as unknown as { innerText: string }).innerText);
  const shot = (name: string, fullPage = false) =>
    page.screenshot({ path: join(SHOTS, `${name}.png`) as `${string}.png`, fullPage });
  const click = async (selector: string) => {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  };

  test("the token in the URL becomes an HttpOnly cookie and leaves the address bar", async () => {
    await page.goto(world.server.url);
    expect(page.url()).toBe(`${world.origin}/`);
    const cookies = await browser.cookies();
    const c = cookies.find((k) => k.name === "tl_ui");
    expect(c?.httpOnly).toBe(true);
    expect(c?.sameSite).toBe("Strict");
  });

  test("projects: sessions, chains, turns, size, last activity", async () => {
    await page.goto(`${world.origin}/`);
    const t = await text();
    expect(t).toContain("/home/dev/todo-api");
    expect(t).toContain("last activity");
    await shot("projects");
  });

  test("a project, then its chain: titled by the client's title, turns folded, activity on an SVG axis", async () => {
    await page.goto(`${world.origin}/`);
    await click('a[href="/project?p=%2Fhome%2Fdev%2Ftodo-api"]');
    expect(await text()).toContain("todo-api: due dates");
    expect(await text()).toContain(SAMPLE_ID.slice(0, 8));
    expect(await text()).toContain("throughline pause --project /home/dev/todo-api");
    await click(`a[href="/chain?s=${SAMPLE_ID}"]`);
    const t = await text();
    expect(t).toContain("Add a due date to todos");
    expect(t).toContain(`throughline forget --session ${SAMPLE_ID}`);
    expect(await page.$$eval("article.turn", (a) => a.length)).toBe(4);
    expect(await page.$$eval("details.call", (d) => d.length)).toBeGreaterThan(0);
    expect(await page.$$eval("details.call[open]", (d) => d.length)).toBe(0);
    expect(await page.$$eval("svg.timeline circle", (c) => c.length)).toBeGreaterThan(0);
    expect(await page.$$eval("svg.timeline circle.ev-edit", (c) => c.length)).toBeGreaterThan(0);
  });

  test("45.11 a chain reads as a conversation: in order, a Markdown table, a Bash call by its command, an edit's diff", async () => {
    await page.goto(`${world.origin}/project?p=%2Fhome%2Fdev%2Fmake-demo`);
    await click(`a[href="/chain?s=${CONVERSATION_ID}"]`);
    expect(await page.$eval("h1", (h) => h.textContent)).toBe(
      "Why does the build fail? Summarise the compiler flags in a table.",
    );
    const t = await text();
    const order = [
      "Why does the build fail?",
      "Let me run the build first.",
      "Bash: make -j4 → exit 2",
      "Let me read the Makefile.",
      "Edit Makefile",
      "Todo list: 1 of 3 done",
      "The build passes now.",
      "Thanks. Now run the tests.",
      "All 3 tests pass.",
    ].map((s) => t.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The Markdown table is a table, its cells rendered (code spans included).
    expect(await page.$$eval(".md table td code", (c) => c.map((x) => x.textContent))).toEqual([
      "-O2",
      "-Wall",
      "-Werror",
    ]);
    // The failed build, found by its command, opens to its output.
    const bash = 'details.call[data-tool="Bash"]:has(.call-title)';
    const titles = await page.$$eval(bash, (d) => d.map((x) => x.querySelector(".call-title")?.textContent));
    expect(titles).toContain("Bash: make -j4 → exit 2");
    await page.click('details.call.error[data-tool="Bash"] summary');
    expect(await page.$eval("details.call.error[open] .io.error pre", (p) => p.textContent)).toContain(
      "make: *** [Makefile:12: all] Error 2",
    );
    // The edit opens to its diff.
    await page.click('details.call.edit[data-tool="Edit"] summary');
    expect(
      await page.$$eval("details.call.edit[open] pre.diff del", (d) => d.map((x) => x.textContent)),
    ).toEqual(["- CFLAGS = -O2 -Wall -Werror"]);
    expect(
      await page.$$eval("details.call.edit[open] pre.diff ins", (d) => d.map((x) => x.textContent)),
    ).toEqual(["+ CFLAGS = -O2 -Wall"]);
    await page.click("details.call.todo summary");
    expect(await page.$$eval("ul.todos li", (l) => l.length)).toBe(3);
    await shot("chain", true);
    // Keys: j to the next turn, k back, G to the newest.
    await page.evaluate(() =>
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
    );
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
            .id,
      ),
    ).toBe("turn-c0c0c0c0-2");
    await page.keyboard.press("k");
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
            .id,
      ),
    ).toBe("turn-c0c0c0c0-1");
    await page.keyboard.press("G");
    await page.waitForFunction(
      () => (globalThis as unknown as { location: { hash: string } }).location.hash === "#newest",
    );
    // The dark theme follows the system's.
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
    await page.goto(`${world.origin}/chain?s=${CONVERSATION_ID}`);
    const bg = await page.$eval(
      "body",
      (b) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(b).backgroundColor,
    );
    expect(bg).toBe("rgb(23, 24, 27)");
    await page.click('details.call.edit[data-tool="Edit"] summary');
    await shot("chain-dark");
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
  });

  test("a turn: open a folded tool call and read its output", async () => {
    await page.goto(`${world.origin}/chain?s=${SAMPLE_ID}`);
    await click("article.turn:has(details.call) .turn-head a");
    expect(page.url()).toContain("/turn?id=");
    await page.click("details.call summary");
    expect(await page.$$eval("details.call[open]", (d) => d.length)).toBe(1);
    expect(
      // biome-ignore lint/performance/useDomNodeTextContent: what the unfolded item displays, as a person reads it.
      await page.$eval("details.call[open]", (d) => (d as unknown as { innerText: string }).innerText),
    ).toContain("input");
    expect(await text()).toContain("detail 2026-");
    await shot("turn");
  });

  test("the push: the text the model would get now and its budget use", async () => {
    await page.goto(`${world.origin}/chain?s=${SAMPLE_ID}`);
    await click(`a[href="/push?s=${SAMPLE_ID}"]`);
    const t = await text();
    expect(t).toContain("of 9,500");
    expect(await page.$eval("pre.push", (p) => p.textContent ?? "")).toContain(`--session ${SAMPLE_ID}`);
    await shot("push");
  });

  test("search: type words, see them marked, follow a result to its turn", async () => {
    await page.goto(`${world.origin}/search`);
    await page.type("form.search input[name=q]", "due date");
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    expect(page.url()).toContain("/search?q=due+date");
    const marks = await page.$$eval("mark", (m) => m.map((x) => x.textContent?.toLowerCase()));
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m === "due" || m === "date" || m === "due date")).toBe(true);
    await shot("search");
    await click("li.result a");
    expect(page.url()).toContain("/turn?id=");
    expect((await text()).toLowerCase()).toContain("due");
  });

  test("search: a word no row holds is named, with the nearest one memory holds, one click away", async () => {
    await page.goto(`${world.origin}/search?q=compilr+flags`);
    expect(await page.$eval("p.unheld", (p) => p.textContent ?? "")).toBe(
      "No row holds: compilr (nearest here: compiler ×1). Also try: compiler flags",
    );
    await click("p.unheld a.retry");
    expect(page.url()).toContain("/search?q=compiler+flags");
    expect(await page.$$eval("p.unheld", (p) => p.length)).toBe(0);
    const marks = await page.$$eval("mark", (m) => m.map((x) => x.textContent?.toLowerCase()));
    expect(marks).toContain("compiler");
  });

  test("live sessions: context use from the transcripts", async () => {
    await page.goto(`${world.origin}/live`);
    const t = await text();
    expect(t).toContain("a1a1a1a1");
    expect(await page.$$eval("svg.gauge", (g) => g.length)).toBe(1);
    await shot("live");
  });

  test("a hostile transcript displays as text and executes nothing", async () => {
    await page.goto(`${world.origin}/`);
    expect(await text()).toContain('/home/dev/evil"><script>alert(1)</script>');
    await page.goto(`${world.origin}/chain?s=${HOSTILE_ID}`);
    const t = await text();
    expect(t).toContain("<script>alert(1)</script>");
    expect(t).toContain("<img src=x onerror=alert(1)>");
    expect(t).toContain("[x](javascript:alert(1))");
    expect(t).toContain("⟦U+202E⟧");
    expect(t).not.toContain("\u202e");
    await page.$$eval("details.call, details.note", (ds) => {
      for (const d of ds) (d as unknown as { open: boolean }).open = true;
    });
    expect(await page.$$eval("main script, main img, main iframe, main style", (e) => e.length)).toBe(0);
    expect(await page.$$eval('main a[href^="javascript"]', (e) => e.length)).toBe(0);
    await shot("hostile");
    await click("article.turn .turn-head a");
    await page.goto(`${world.origin}/search?q=onerror`);
    expect(await page.$$eval("li.result", (r) => r.length)).toBeGreaterThan(0);
    await page.goto(`${world.origin}/push?s=${HOSTILE_ID}`);
    expect(await page.$eval("pre.push", (p) => p.textContent ?? "")).toContain("<script>");
    await new Promise((r) => setTimeout(r, 200));
    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  test("after browsing every view the database's bytes are unchanged", () => {
    const after = dbState(world.db);
    expect(after.hash).toBe(before.hash);
    expect(after.wal === null || after.wal === 0).toBe(true);
  });
});
