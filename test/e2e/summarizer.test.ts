/**
 * End-to-end: the L1 summarizer with the real Claude Code CLI as its backend (`auto` finds
 * `claude` on PATH). A chain past 20 turns in the real TUI makes the Stop worker run
 * `claude -p --model haiku …`; the stand-in answers it as a `side` request (no tools). The
 * summary is stored, and the summarizer leaves no transcript under projects/ and fires no hook
 * (README, "What the summarizer costs"). Gated like the other e2e tests (docs/testing.md).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  claudeBinary,
  createHome,
  e2eSkipReason,
  installHooks,
  queryDb,
  readHookLog,
  TmuxClaude,
  waitUntil,
} from "../../harness/e2e/driver.ts";
import { nonce, typeTurns } from "../../harness/e2e/scenario.ts";
import { lastPrompt, type MessagesBody, requestText } from "../../harness/e2e/stand-in.ts";
import { SUMMARIZER_SYSTEM_PROMPT } from "../../src/core/summarize.ts";

const SKIP = e2eSkipReason();
if (SKIP) console.warn(`e2e summarizer: skipped (${SKIP})`);

const OLD_CLI = join(import.meta.dir, "..", "..", "..", "cc197", "node_modules", ".bin", "claude");
const CLIS: [string, string | undefined][] = [["current", undefined]];
if (existsSync(OLD_CLI)) CLIS.push(["2.1.197", OLD_CLI]);

const SUMMARY = "Summary from the stand-in haiku: the user asked a numbered question and got a reply.";

function systemOf(body: MessagesBody | null): string {
  const s = (body as { system?: unknown } | null)?.system;
  if (typeof s === "string") return s;
  return Array.isArray(s) ? s.map((b) => String((b as { text?: string }).text ?? "")).join("\n") : "";
}

function transcripts(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".jsonl"))
    : [];
}

describe.skipIf(SKIP !== null)("the summarizer runs the real claude and leaves no trace", () => {
  for (const [label, bin] of CLIS)
    test(`Claude Code ${label}: a chain past 20 turns is summarised by claude -p, with no new transcript`, async () => {
      const before = process.env.THROUGHLINE_E2E_CLAUDE;
      if (bin) process.env.THROUGHLINE_E2E_CLAUDE = bin;
      try {
        const tag = nonce();
        const TURNS = 22;
        await using h = await createHome({
          sideText: SUMMARY,
          script: (_r, body) => `Reply to ${lastPrompt(body)}.`,
        });
        // A user's PATH with `claude` on it: THROUGHLINE_SUMMARIZER is unset, so `auto` picks claude.
        const binDir = join(h.root, "bin");
        mkdirSync(binDir);
        symlinkSync(claudeBinary(), join(binDir, "claude"));
        h.env.PATH = `${binDir}:${h.env.PATH}`;
        expect(installHooks(h, "install")).toBe("install");
        const projects = join(h.configDir, "projects");
        await using tmux = await TmuxClaude.start(h);
        await tmux.waitReady();
        const sessionId = await typeTurns(
          h,
          tmux,
          Array.from({ length: TURNS }, (_, i) => `q${i + 1} ${tag}`),
          (_i, prompt) => `Reply to ${prompt}`,
        );
        // Stops 21 and 22 each summarise one turn: the two oldest.
        const rows = await waitUntil(
          () => {
            const r = queryDb(h, (db) =>
              db
                .query(
                  "SELECT t.turn_number AS turn, k.summary, k.backend, k.error FROM skeletons k JOIN turns t ON t.id = k.turn_id WHERE k.summary IS NOT NULL OR k.error IS NOT NULL ORDER BY 1",
                )
                .all(),
            ) as
              | { turn: number; summary: string | null; backend: string; error: string | null }[]
              | undefined;
            return r && r.length >= 2 ? r : null;
          },
          "two L1 summaries",
          60_000,
        );
        expect(rows.slice(0, 2)).toEqual([
          { turn: 1, summary: SUMMARY, backend: "claude", error: null },
          { turn: 2, summary: SUMMARY, backend: "claude", error: null },
        ]);

        // The summarizer's requests: side requests to haiku with no tools, carrying the turn's text.
        const ours = h.standIn.requests.filter((r) => systemOf(r.body).includes(SUMMARIZER_SYSTEM_PROMPT));
        expect(ours.length).toBeGreaterThanOrEqual(2);
        for (const r of ours) {
          expect(r.kind).toBe("side");
          expect(String(r.body?.model)).toMatch(/haiku/);
          expect((r.body as { tools?: unknown[] }).tools ?? []).toEqual([]);
          expect(r.sessionId).not.toBe(sessionId);
        }
        const asked = ours.map((r) => (r.body ? requestText(r.body) : ""));
        expect(
          asked.some((t) => t.includes(`q1 ${tag}`) && t.includes("Summarize this conversation turn")),
        ).toBe(true);

        // No trace: the only transcripts under projects/ are the conversation's own.
        const files = transcripts(projects);
        expect(files.length).toBeGreaterThan(0);
        expect(files.filter((f) => f.includes("summarizer"))).toEqual([]);
        expect(files.every((f) => f.includes(sessionId))).toBe(true);
        // And no hook ran inside it (the recorder logs every payload, the summarizer's cwd included).
        const inside = readHookLog(h).filter((r) => String(r.payload.cwd ?? "").includes("summarizer"));
        expect(inside).toEqual([]);
      } finally {
        if (before === undefined) delete process.env.THROUGHLINE_E2E_CLAUDE;
        else process.env.THROUGHLINE_E2E_CLAUDE = before;
      }
    }, 300_000);
});
