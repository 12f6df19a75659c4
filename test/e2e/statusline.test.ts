/**
 * End-to-end: `throughline install --statusline` in an isolated home, then the real Claude Code
 * TUI (offline, against the stand-in) shows throughline's status line under the input box:
 * the context Claude Code reports, and the turns memory holds once a turn was captured.
 * Gated like the other e2e tests (docs/testing.md).
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  createHome,
  e2eSkipReason,
  installHooks,
  readSettings,
  runThroughline,
  TmuxClaude,
} from "../../harness/e2e/driver.ts";

const SKIP = e2eSkipReason();
if (SKIP) console.warn(`e2e statusline: skipped (${SKIP})`);

const OLD_CLI = join(import.meta.dir, "..", "..", "..", "cc197", "node_modules", ".bin", "claude");
const CLIS: [string, string | undefined][] = [["current", undefined]];
if (existsSync(OLD_CLI)) CLIS.push(["2.1.197", OLD_CLI]);

const LINE = /ctx (–|\d[\d.]*[kM]?) \/ (200k|1M)/;

describe.skipIf(SKIP !== null)("statusline in the real TUI", () => {
  for (const [label, bin] of CLIS)
    test(`Claude Code ${label}: the line shows, then counts the captured turns`, async () => {
      const before = process.env.THROUGHLINE_E2E_CLAUDE;
      if (bin) process.env.THROUGHLINE_E2E_CLAUDE = bin;
      try {
        await using h = await createHome();
        installHooks(h, "install", { record: false });
        const r = runThroughline(h, ["install", "--statusline", "--json"]);
        expect(r.exitCode).toBe(0);
        expect(JSON.parse(r.stdout).statusline).toBe("set");
        expect(String((readSettings(h).statusLine as { command: string }).command)).toMatch(/ statusline$/);
        const t = await TmuxClaude.start(h);
        try {
          // Older clients show the status line where "? for shortcuts" would be: wait for ours.
          const first = await t.waitForScreen(LINE, "throughline's status line", 60_000);
          expect(first.split("\n").filter((l) => LINE.test(l))).toHaveLength(1);
          await t.submit("first question");
          await t.waitForScreen(/ctx \d/, "the context after the first reply", 60_000);
          // The line is redrawn as messages change: by the second reply, Stop has stored turn 1.
          await t.submit("second question");
          const screen = await t.waitForScreen(
            /ctx \d[\d.]*[kM]? \/ (200k|1M) \(\d+%\) · mem [12] turns?/,
            "the turns memory holds",
            60_000,
          );
          const line = screen.split("\n").find((l) => l.includes("· mem "))!;
          // 2.1.197 draws its effort indicator at the right end of the same row.
          expect(line.trim()).toMatch(/^ctx \S+ \/ \S+ \(\d+%\) · mem [12] turns?(\s{2,}|$)/);
        } finally {
          await t.close();
        }
      } finally {
        if (before === undefined) delete process.env.THROUGHLINE_E2E_CLAUDE;
        else process.env.THROUGHLINE_E2E_CLAUDE = before;
      }
    }, 240_000);
});
