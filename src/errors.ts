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

export function assertNever(x: never): never {
  throw new ThroughlineError("E_UNREACHABLE", `unexpected value: ${String(x)}`);
}

/** One line for a human: never a stack trace. */
export function errorLine(err: unknown): string {
  if (err instanceof ThroughlineError) return err.hint ? `${err.message} (${err.hint})` : err.message;
  if (err instanceof Error) return `${err.name}: ${err.message}`.split("\n")[0] ?? "internal error";
  return String(err).split("\n")[0] ?? "internal error";
}
