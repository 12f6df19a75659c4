/**
 * The one error type of throughline. Core and db code throw it; the CLI entry and the hook
 * runner catch it at a single exit point and print `message` (plus `hint`) as one line.
 */
export class ThroughlineError extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly hint?: string;

  constructor(
    code: string,
    message: string,
    opts: { exitCode?: number; hint?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ThroughlineError";
    this.code = code;
    this.exitCode = opts.exitCode ?? 1;
    if (opts.hint !== undefined) this.hint = opts.hint;
  }
}

const CONTROL = /[\p{Cc}\u2028\u2029]/gu;
const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
/** Longest message printed: a message quoting input must not flood stderr either. */
export const MAX_ERROR_CHARS = 2000;

/**
 * Messages quote input (a payload's path, a file name, an argument) that may hold a newline or
 * other control characters; printed as-is they would break the one-line contract of hooks and
 * of the CLI (docs/hooks.md). Escape them, JSON-style, and cap the length.
 */
export function oneLine(s: string): string {
  const t = s.replace(CONTROL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  // Not core/text.ts clip: this module is on every hook's path, and each module counts there.
  return t.length > MAX_ERROR_CHARS ? `${t.slice(0, MAX_ERROR_CHARS)}…` : t;
}

/** One line for a human: never a stack trace. */
export function errorLine(err: unknown): string {
  if (err instanceof ThroughlineError)
    return oneLine(err.hint ? `${err.message} (${err.hint})` : err.message);
  if (err instanceof Error) return oneLine(`${err.name}: ${err.message}`);
  return oneLine(String(err));
}
