/**
 * Lazy L1: each Stop summarises at most one turn, the oldest of the chain outside the 20-turn
 * window that has none. Runs in the async Stop worker, so it never delays a reply. The claim of
 * a turn is atomic, a model backend is capped per day, and a backend that hangs is killed with
 * its whole process group (README, "What the summarizer costs"; docs/hooks.md).
 */
import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { formatIso } from "../core/clock.ts";
import { type Env, throughlineHome } from "../core/paths.ts";
import { redact } from "../core/redact.ts";
import {
  claudeArgv,
  DEFAULT_L1_RATIO,
  dailyMax,
  extractiveSummary,
  L1_MIN_CHARS,
  l1Target,
  SUMMARIZER_DIR,
  summarizerPrompt,
  summaryInput,
  utcDayStart,
} from "../core/summarize.ts";
import { WINDOW_TURNS } from "../core/turn-block.ts";
import { putSkeleton } from "../db/queries/skeletons.ts";
import { attemptsSince, type BackendCounts, claimNextTurn, summaryCounts } from "../db/queries/summaries.ts";

export type Backend = "claude" | "command" | "extractive";

/** One backend run; THROUGHLINE_SUMMARIZER_TIMEOUT_MS lowers it (never raises it). */
const BACKEND_TIMEOUT_MS = 60_000;
/** All attempts of one Stop together: the worker never lives longer than this for a summary. */
const TOTAL_BUDGET_MS = 90_000;
const CLAUDE_ATTEMPTS = 2;
/** A claim this old belongs to a worker that died (its budget is far shorter): take it again. */
const CLAIM_STALE_MS = 10 * 60_000;

export function chooseBackend(env: Env): Backend {
  const want = env.THROUGHLINE_SUMMARIZER ?? "auto";
  if (want === "claude" || want === "command" || want === "extractive") return want;
  return Bun.which("claude", { PATH: env.PATH ?? "" }) ? "claude" : "extractive";
}

class TimedOut extends Error {}

function timeoutMs(env: Env): number {
  const n = Number(env.THROUGHLINE_SUMMARIZER_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? Math.min(n, BACKEND_TIMEOUT_MS) : BACKEND_TIMEOUT_MS;
}

/**
 * Run a backend in its own process group (detached: setsid), bounded by `limitMs`. On timeout
 * the leader gets SIGKILL; then the whole group does, so a grandchild (a shell's child, an MCP
 * server) cannot keep the Stop worker waiting.
 */
function run(cmd: string[], input: string, env: Env, limitMs: number, cwd?: string): string {
  const r = Bun.spawnSync(cmd, {
    stdin: Buffer.from(input),
    env: { ...env, THROUGHLINE_INSIDE_SUMMARIZER: "1" },
    ...(cwd ? { cwd } : {}),
    timeout: limitMs,
    killSignal: "SIGKILL",
    detached: process.platform !== "win32",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (process.platform !== "win32")
    try {
      process.kill(-r.pid, "SIGKILL");
    } catch {
      // the group is already gone: nothing was left behind
    }
  if (r.exitedDueToTimeout) throw new TimedOut(`timed out after ${limitMs} ms`);
  if (r.exitCode !== 0)
    throw new Error(`exit ${r.exitCode ?? "killed"}: ${r.stderr.toString().trim().split("\n")[0] ?? ""}`);
  return r.stdout.toString().trim();
}

function summarizeWith(backend: Backend, user: string, assistant: string, env: Env, ratio: number): string {
  const deadline = performance.now() + TOTAL_BUDGET_MS;
  const limit = () => Math.max(1, Math.min(timeoutMs(env), Math.round(deadline - performance.now())));
  switch (backend) {
    case "extractive":
      return extractiveSummary(user, assistant, ratio);
    case "command": {
      const cmd = env.THROUGHLINE_SUMMARIZER_CMD;
      if (!cmd) throw new Error("THROUGHLINE_SUMMARIZER_CMD is not set");
      return run(["sh", "-c", cmd], summaryInput(user, assistant), env, limit());
    }
    case "claude": {
      // An empty working directory: the summarizer must not see (or load hooks of) a project.
      const cwd = join(throughlineHome(env), SUMMARIZER_DIR);
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
      const argv = claudeArgv(summarizerPrompt(l1Target(user.length + assistant.length, ratio)), {
        bare: Boolean(env.ANTHROPIC_API_KEY),
      });
      let last: unknown;
      for (let i = 0; i < CLAUDE_ATTEMPTS && performance.now() < deadline; i++)
        try {
          return run(argv, summaryInput(user, assistant), env, limit(), cwd);
        } catch (err) {
          last = err;
          // A request that hung once will hang again: spend no second budget on it.
          if (err instanceof TimedOut) break;
        }
      throw last;
    }
  }
}

/**
 * Summarise the next turn that needs it; returns what was done, or null when nothing was due
 * (or today's ceiling for a model backend is reached: the turn stays unsummarised until the
 * next UTC day, and `recall --l1` shows it as such).
 */
export function summarizeNext(
  db: Database,
  live: string,
  env: Env,
  now: number,
): { turnId: number; ok: boolean } | null {
  const backend = chooseBackend(env);
  const claim = claimNextTurn(db, {
    live,
    window: WINDOW_TURNS,
    backend,
    now,
    dayStart: utcDayStart(now),
    // The extractive backend is local and free: only the model backends are capped.
    max: backend === "extractive" ? null : dailyMax(env.THROUGHLINE_L1_DAILY_MAX),
    staleBefore: now - CLAIM_STALE_MS,
  });
  if (!claim || !("turn" in claim)) return null;
  const turn = claim.turn;
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
      error: (err as Error).message.slice(0, 500) || "failed",
      now,
    });
    return { turnId: turn.id, ok: false };
  }
}

export interface SummaryReport {
  /** The backend the next Stop would use, and why. */
  backend: Backend;
  chosen_by: "THROUGHLINE_SUMMARIZER" | "auto: claude on PATH" | "auto: no claude on PATH";
  /** Model summaries (claude, command) allowed per UTC day; the extractive backend is never capped. */
  daily_max: number;
  /** Today's attempts of the chosen backend, when it is capped. */
  used_today: number | null;
  ceiling_reached: boolean;
  day_start: string;
  by_backend: BackendCounts[];
}

/** What `status` and `doctor` show about L1: which backend, how many summaries today and in all. */
export function summaryReport(db: Database, env: Env, now: number): SummaryReport {
  const backend = chooseBackend(env);
  const want = env.THROUGHLINE_SUMMARIZER ?? "auto";
  const explicit = want === "claude" || want === "command" || want === "extractive";
  const day = utcDayStart(now);
  const max = dailyMax(env.THROUGHLINE_L1_DAILY_MAX);
  const used = backend === "extractive" ? null : attemptsSince(db, backend, day);
  return {
    backend,
    chosen_by: explicit
      ? "THROUGHLINE_SUMMARIZER"
      : backend === "claude"
        ? "auto: claude on PATH"
        : "auto: no claude on PATH",
    daily_max: max,
    used_today: used,
    ceiling_reached: used !== null && used >= max,
    day_start: formatIso(day),
    by_backend: summaryCounts(db, day),
  };
}

/** One line for people: `claude 12 today (of 200), 340 in all · extractive 3 today, 51 in all`. */
export function summaryLine(r: SummaryReport): string {
  const counts =
    r.by_backend.length === 0
      ? "none made yet"
      : r.by_backend
          .map(
            (b) =>
              `${b.backend} ${b.today} today${b.failed_today ? ` (${b.failed_today} failed)` : ""}, ${b.total} in all`,
          )
          .join(" · ");
  const cap =
    r.used_today === null
      ? "no daily ceiling"
      : `${r.used_today}/${r.daily_max} of today's ceiling${r.ceiling_reached ? ": reached, older turns stay unsummarised until 00:00 UTC" : ""}`;
  return `${counts}; next: ${r.backend} (${r.chosen_by}), ${cap}`;
}
