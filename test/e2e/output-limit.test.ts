/**
 * How much of a Bash output Claude Code hands the model whole, measured where it happens: the
 * stand-in model runs `cat` of prepared outputs with the client's own Bash tool, one call per
 * step of one `claude -p` turn, and the next request shows what arrived. A pull prints at most
 * PULL_MAX_BYTES (src/core/context.ts) so that it arrives whole; this file pins the client's side
 * of that promise, so a client that changes its limit, or the way it counts, fails here.
 *
 * Measured (2.1.197 and 2.1.332, bisected): an output arrives whole up to 30,000 UTF-8 bytes,
 * final newline included (the client then drops that newline); from 30,001 bytes the model gets a
 * `<persisted-output>` block instead: the saved file's path and the first ≤ 2,000 characters, cut
 * at a line break (about 2,200 to 2,300 characters in all, with the path). The limit counts bytes,
 * not characters: 30,000 bytes of 'é' (about 15,000 characters) arrive whole, PULL_MAX_BYTES characters of 'é'
 * do not. Probed once, not pinned here: stdout and stderr count together (20,000 + 11,000 bytes
 * arrive as the preview), and a command that exits non-zero is cut another way (`is_error`,
 * "Exit code 1", its first and last ~5,000 characters around "... [N characters truncated] ...").
 * Nothing here sets BASH_MAX_OUTPUT_LENGTH or `bashOutputMaxChars` (users keep the defaults).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeBinary, createHome, e2eSkipReason, readSettings, runPrint } from "../../harness/e2e/driver.ts";
import {
  arrivedBashResults,
  bash,
  nextPage,
  nonce,
  persistedOutput,
  runPagedPull,
  sessionRequests,
} from "../../harness/e2e/scenario.ts";
import { lastPrompt, stepInTurn } from "../../harness/e2e/stand-in.ts";
import { shellQuote } from "../../src/core/invocation.ts";
import { PULL_MAX_BYTES } from "../../src/core/turn-block.ts";

const SKIP = e2eSkipReason();
const LONG = 120_000;

/** The most UTF-8 bytes of one Bash output that Claude Code hands the model whole (measured). */
const CLIENT_LIMIT_BYTES = 30_000;
/** The preview in place of a longer output holds at most this many characters of it. */
const PREVIEW_MAX_CHARS = 2_000;

type Script = "ascii" | "é" | "CJK" | "emoji";
/** One character of each script: 1, 2, 3 and 4 UTF-8 bytes; the emoji is 2 UTF-16 units. */
const UNIT: Record<Script, string> = { ascii: "a", é: "é", CJK: "漢", emoji: "😀" };

const utf8 = (s: string): number => Buffer.byteLength(s, "utf8");
/** What the product counts: JavaScript string length, UTF-16 units. */
const utf16 = (s: string): number => s.length;

/**
 * Text of exactly `size` bytes or characters: `first` (ASCII), lines of `script`'s character,
 * ASCII dots to make the size exact, and a final newline, the way a command prints.
 */
function textOf(script: Script, size: number, measure: (s: string) => number, first: string): string {
  const unit = UNIT[script];
  const line = `${unit.repeat(Math.floor(78 / unit.length))}\n`;
  let s = `${first}\n`;
  while (measure(s) + measure(line) < size) s += line;
  while (measure(s) + measure(unit) < size) s += unit;
  while (measure(s) < size - 1) s += ".";
  s += "\n";
  if (measure(s) !== size) throw new Error(`cannot make ${size} of ${script}: got ${measure(s)}`);
  return s;
}

interface Case {
  label: string;
  script: Script;
  size: number;
  /** `size` counts UTF-8 bytes or UTF-16 characters. */
  unit: "bytes" | "chars";
  /** Expected: the model gets the output whole (else the preview). */
  whole: boolean;
}

const CASES: Case[] = [
  // The product's promise: a pull of PULL_MAX_BYTES characters arrives whole...
  { label: "PULL_MAX_BYTES of ASCII", script: "ascii", size: PULL_MAX_BYTES, unit: "chars", whole: true },
  // ...which holds for any script only when those are bytes: the client counts UTF-8 bytes.
  { label: "PULL_MAX_BYTES bytes of é", script: "é", size: PULL_MAX_BYTES, unit: "bytes", whole: true },
  { label: "PULL_MAX_BYTES bytes of CJK", script: "CJK", size: PULL_MAX_BYTES, unit: "bytes", whole: true },
  {
    label: "PULL_MAX_BYTES bytes of emoji",
    script: "emoji",
    size: PULL_MAX_BYTES,
    unit: "bytes",
    whole: true,
  },
  { label: "PULL_MAX_BYTES characters of é", script: "é", size: PULL_MAX_BYTES, unit: "chars", whole: false },
  {
    label: "PULL_MAX_BYTES characters of CJK",
    script: "CJK",
    size: PULL_MAX_BYTES,
    unit: "chars",
    whole: false,
  },
  // Around the limit, and well above it.
  { label: "29,000 bytes of ASCII", script: "ascii", size: 29_000, unit: "bytes", whole: true },
  { label: "30,000 bytes of ASCII", script: "ascii", size: CLIENT_LIMIT_BYTES, unit: "bytes", whole: true },
  {
    label: "30,001 bytes of ASCII",
    script: "ascii",
    size: CLIENT_LIMIT_BYTES + 1,
    unit: "bytes",
    whole: false,
  },
  { label: "31,000 bytes of ASCII", script: "ascii", size: 31_000, unit: "bytes", whole: false },
  { label: "121,900 bytes of ASCII", script: "ascii", size: 121_900, unit: "bytes", whole: false },
  ...(["é", "CJK", "emoji"] as const).flatMap((script): Case[] => [
    { label: `30,000 bytes of ${script}`, script, size: CLIENT_LIMIT_BYTES, unit: "bytes", whole: true },
    { label: `30,001 bytes of ${script}`, script, size: CLIENT_LIMIT_BYTES + 1, unit: "bytes", whole: false },
  ]),
];

function clientVersion(env: Record<string, string>): string {
  const r = Bun.spawnSync([claudeBinary(), "--version"], { env, stdout: "pipe", stderr: "pipe" });
  return r.stdout.toString().trim() || "unknown version";
}

test("nextPage reads the command after `next page:`, backquoted or bare, and null on the last page", () => {
  expect(nextPage("turns…\nnext page: `throughline recall --l2 --page 2`\n")).toBe(
    "throughline recall --l2 --page 2",
  );
  expect(nextPage("turns…\nnext page: bun cli.ts detail 10:00 --page 3\n")).toBe(
    "bun cli.ts detail 10:00 --page 3",
  );
  expect(nextPage("turns…\n(last page)\n")).toBeNull();
  expect(nextPage("next page:\n")).toBeNull();
});

describe.skipIf(SKIP !== null)("Bash output the model gets whole (real Claude Code, defaults)", () => {
  test(
    `an output arrives whole up to ${CLIENT_LIMIT_BYTES} UTF-8 bytes and as a <persisted-output> preview above, in every script; PULL_MAX_BYTES (${PULL_MAX_BYTES}) bytes fit`,
    async () => {
      const tag = nonce();
      const go = `measure outputs ${tag}`;
      await using h = await createHome({
        script: (_r, body) => {
          if (!lastPrompt(body).includes(go)) return undefined;
          const step = stepInTurn(body);
          return step < CASES.length ? bash(`cat ${shellQuote(fileOf(step))}`) : `Measured ${tag}.`;
        },
      });
      const fileOf = (i: number) => join(h.root, "outputs", `${i}.txt`);
      mkdirSync(join(h.root, "outputs"));
      // The defaults users have: nothing raises or lowers the client's limit.
      expect(h.env.BASH_MAX_OUTPUT_LENGTH).toBeUndefined();
      expect(readSettings(h).bashOutputMaxChars).toBeUndefined();

      const texts = CASES.map((c, i) =>
        textOf(c.script, c.size, c.unit === "bytes" ? utf8 : utf16, `output ${i}: ${c.label} ${tag}`),
      );
      for (const [i, t] of texts.entries()) writeFileSync(fileOf(i), t);

      const r = await runPrint(h, go, { allowedTools: ["Bash"] });
      expect(r.exitCode).toBe(0);
      expect(r.result).toBe(`Measured ${tag}.`);
      const arrived = arrivedBashResults(sessionRequests(h, r.sessionId));
      expect(arrived.map((a) => a.command)).toEqual(CASES.map((_c, i) => `cat ${shellQuote(fileOf(i))}`));

      const rows = CASES.map((c, i) => {
        const text = texts[i]!;
        const a = arrived[i]!;
        const preview = persistedOutput(a.output);
        return { c, text, a, preview, bytes: utf8(text), chars: utf16(text) };
      });
      console.log(
        `${clientVersion(h.env)}: what one Bash output of N characters / bytes hands the model\n${rows
          .map(
            ({ c, a, preview, bytes, chars }) =>
              `  ${c.label.padEnd(34)} ${String(chars).padStart(7)} chars ${String(bytes).padStart(7)} bytes  ${
                preview ? `preview (${a.output.length} characters in all)` : "whole"
              }`,
          )
          .join("\n")}`,
      );
      const wholeBytes = rows.filter((x) => !x.preview).map((x) => x.bytes);
      const previewBytes = rows.filter((x) => x.preview).map((x) => x.bytes);
      console.log(
        `  measured: whole up to ${Math.max(...wholeBytes)} bytes, preview from ${Math.min(...previewBytes)} bytes`,
      );

      for (const { c, text, a, preview, bytes } of rows) {
        expect(a.isError, c.label).toBe(false);
        // The table agrees with the rule it illustrates.
        expect(bytes <= CLIENT_LIMIT_BYTES, c.label).toBe(c.whole);
        if (c.whole) {
          expect(preview, c.label).toBeNull();
          // Whole, but for the final newline, which the client drops.
          expect(a.output, c.label).toBe(text.replace(/\n$/, ""));
          continue;
        }
        expect(preview, c.label).not.toBeNull();
        const p = preview!;
        // The preview is the output's beginning, at most 2,000 characters, ending at a line break.
        expect(p.preview.length, c.label).toBeGreaterThan(0);
        expect(p.preview.length, c.label).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
        expect(text.startsWith(p.preview), c.label).toBe(true);
        expect(text[p.preview.length], c.label).toBe("\n");
        expect(a.output.length, c.label).toBeLessThan(PREVIEW_MAX_CHARS + 500);
        // The rest is in a file under the client's config directory, which holds the whole output.
        expect(p.path.startsWith(h.configDir), c.label).toBe(true);
        expect(existsSync(p.path), c.label).toBe(true);
        expect(readFileSync(p.path, "utf8").replace(/\n$/, ""), c.label).toBe(text.replace(/\n$/, ""));
      }
    },
    LONG,
  );

  test(
    `a paged pull to its last page (runPagedPull): three pages of PULL_MAX_BYTES bytes, each naming the next, all arrive whole`,
    async () => {
      const tag = nonce();
      await using h = await createHome();
      const dir = join(h.root, "pages");
      mkdirSync(dir);
      const pageFile = (i: number) => join(dir, `page-${i}.txt`);
      const PAGES = 3;
      const scripts: Script[] = ["ascii", "é", "CJK"];
      const texts = scripts.map((script, i) => {
        const n = i + 1;
        const trailer =
          n < PAGES ? `next page: \`cat ${shellQuote(pageFile(n + 1))}\`\n` : `(last page ${tag})\n`;
        return `${textOf(script, PULL_MAX_BYTES - utf8(trailer), utf8, `page ${n} of ${PAGES} ${tag}`)}${trailer}`;
      });
      texts.forEach((t, i) => {
        expect(utf8(t)).toBe(PULL_MAX_BYTES);
        writeFileSync(pageFile(i + 1), t);
      });

      const pull = await runPagedPull(h, `cat ${shellQuote(pageFile(1))}`, {
        print: { allowedTools: ["Bash"] },
      });
      expect(pull.result).toBe("Read every page.");
      expect(pull.pages.map((p) => p.command)).toEqual(
        texts.map((_t, i) => `cat ${shellQuote(pageFile(i + 1))}`),
      );
      for (const [i, page] of pull.pages.entries()) {
        expect(page.isError).toBe(false);
        expect(persistedOutput(page.output)).toBeNull();
        expect(page.output).toBe(texts[i]!.replace(/\n$/, ""));
      }
      expect(nextPage(pull.pages.at(-1)!.output)).toBeNull();
    },
    LONG,
  );
});
