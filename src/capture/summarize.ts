/**
 * Lazy L1 (SPEC §6): each Stop summarises at most one turn, the oldest of the chain outside
 * the 20-turn window that has none. Runs in the async Stop hook, so it never delays a reply.
 */
import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { WINDOW_TURNS } from "../core/context.ts";
import { type Env, throughlineHome } from "../core/paths.ts";
import { redact } from "../core/redact.ts";
import {
  DEFAULT_L1_RATIO,
  extractiveSummary,
  L1_MIN_CHARS,
  l1Target,
  summaryInput,
} from "../core/summarize.ts";
import { oldestUnsummarized, putSkeleton } from "../db/queries/skeletons.ts";

export type Backend = "claude" | "command" | "extractive";

const BACKEND_TIMEOUT_MS = 60_000;
const CLAUDE_ATTEMPTS = 2;

export function chooseBackend(env: Env): Backend {
  const want = env.THROUGHLINE_SUMMARIZER ?? "auto";
  if (want === "claude" || want === "command" || want === "extractive") return want;
  return Bun.which("claude", { PATH: env.PATH ?? "" }) ? "claude" : "extractive";
}

function run(cmd: string[], input: string, env: Env, cwd?: string): string {
  const r = Bun.spawnSync(cmd, {
    stdin: Buffer.from(input),
    env: { ...env, THROUGHLINE_INSIDE_SUMMARIZER: "1" },
    ...(cwd ? { cwd } : {}),
    timeout: BACKEND_TIMEOUT_MS,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0)
    throw new Error(`exit ${r.exitCode ?? "killed"}: ${r.stderr.toString().trim().split("\n")[0] ?? ""}`);
  return r.stdout.toString().trim();
}

function summarizeWith(backend: Backend, user: string, assistant: string, env: Env, ratio: number): string {
  switch (backend) {
    case "extractive":
      return extractiveSummary(user, assistant, ratio);
    case "command": {
      const cmd = env.THROUGHLINE_SUMMARIZER_CMD;
      if (!cmd) throw new Error("THROUGHLINE_SUMMARIZER_CMD is not set");
      return run(["sh", "-c", cmd], summaryInput(user, assistant), env);
    }
    case "claude": {
      // An empty working directory: the summarizer must not see (or load hooks of) a project.
      const cwd = join(throughlineHome(env), "summarizer");
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
      const target = l1Target(user.length + assistant.length, ratio);
      const prompt = `Summarize this conversation turn in at most ${target} characters. Keep names, numbers, file paths, causes and decisions. Reply with the summary only.`;
      let last: unknown;
      for (let i = 0; i < CLAUDE_ATTEMPTS; i++)
        try {
          return run(["claude", "-p", "--model", "haiku", prompt], summaryInput(user, assistant), env, cwd);
        } catch (err) {
          last = err;
        }
      throw last;
    }
  }
}

/** Summarise the next turn that needs it; returns what was done, or null when nothing was due. */
export function summarizeNext(
  db: Database,
  live: string,
  env: Env,
  now: number,
): { turnId: number; ok: boolean } | null {
  const turn = oldestUnsummarized(db, live, WINDOW_TURNS);
  if (!turn) return null;
  const backend = chooseBackend(env);
  const ratio = Number(env.THROUGHLINE_L1_RATIO ?? DEFAULT_L1_RATIO);
  try {
    const summary = summarizeWith(backend, turn.user, turn.assistant, env, ratio);
    if (summary.length < L1_MIN_CHARS) throw new Error(`summary shorter than ${L1_MIN_CHARS} characters`);
    putSkeleton(db, { turnId: turn.id, summary: redact(summary), backend, error: null, now });
    return { turnId: turn.id, ok: true };
  } catch (err) {
    // Never store an error text as a summary: the turn stays unsummarised, with the reason.
    putSkeleton(db, {
      turnId: turn.id,
      summary: null,
      backend,
      error: (err as Error).message.slice(0, 500),
      now,
    });
    return { turnId: turn.id, ok: false };
  }
}
