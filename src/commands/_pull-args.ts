import { instantFlag } from "../core/clock.ts";
import type { Env } from "../core/paths.ts";
import type { Database } from "../db/open.ts";
import { resolveChain } from "../db/queries/chain.ts";
import { ThroughlineError } from "../errors.ts";
import { type Colors, stdoutColors } from "../render/colors.ts";

/**
 * Colours for pull output: the CLI's one decision (render/colors.ts), made from fd 1 without
 * touching `process.stdout`, and loading picocolors only when colour is on.
 */
export function terminalColors(): Colors {
  return stdoutColors();
}

/** A count flag (`--last`, `--skip`, `--limit`): a whole number ≥ 0, or the fallback when absent. */
export function parseCount(flag: string, value: string | undefined, fallback: number | null): number | null {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value.trim()))
    throw new ThroughlineError("E_ARGS", `--${flag} must be a whole number ≥ 0, got "${value}"`);
  return Number(value.trim());
}

/** `--before`: ISO-8601 with a zone, as the push bakes it. */
export function parseBefore(value: string | undefined, command: string): number {
  if (!value)
    throw new ThroughlineError(
      "E_ARGS",
      `${command} needs --before <ISO-8601> (the push prints the exact command to run)`,
    );
  return instantFlag("--before", value);
}

/**
 * `THROUGHLINE_SESSION`: the session the model's Bash runs in, exported by SessionStart through
 * Claude Code's `CLAUDE_ENV_FILE` (docs/hooks.md, "The model's Bash knows its session"). A read
 * given no scope of its own defaults to its chain; an explicit `--session`, `--project` or
 * `--all` wins (docs/contract.md#pulls-read-only).
 */
export const SESSION_ENV = "THROUGHLINE_SESSION";

export function envSession(env: Env = process.env): string | null {
  const id = env[SESSION_ENV]?.trim();
  return id ? id : null;
}

/**
 * The live end of `THROUGHLINE_SESSION`'s chain, or null when it is unset or names a session the
 * database does not hold (yet): then the read keeps its other default.
 */
export function envChain(db: Database, env: Env = process.env): { id: string; live: string } | null {
  const id = envSession(env);
  if (id === null) return null;
  try {
    return { id, live: resolveChain(db, id) };
  } catch (err) {
    if (err instanceof ThroughlineError && err.code === "E_NO_SESSION") return null;
    throw err;
  }
}
