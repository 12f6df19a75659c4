/**
 * Is this file descriptor a terminal? `node:tty` costs ~7 ms to load and `process.stdout`
 * ~15 ms to touch in a compiled Bun binary, `node:fs` ~2 ms; `Bun.stdout.stat()` answers for
 * stdout natively (~0.7 ms, docs/benchmarks.md). A character device is taken for a terminal (so
 * is /dev/null, where colour is harmless); pipes and files are not.
 */
export function isTerminal(fd: 1 | 2): boolean {
  try {
    return (require("node:fs") as typeof import("node:fs")).fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

let stdoutTty: boolean | undefined;

/**
 * Looks at stdout once, without node:fs; src/cli.ts calls it before any command runs. Bun works
 * out at startup whether stdout or stderr is a terminal (`Bun.enableANSIColors`, also off under
 * NO_COLOR, on under FORCE_COLOR): with neither variable set, false means stdout is no terminal,
 * which is every pull the model runs, answered without the ~1 ms of a stat.
 */
export async function detectStdoutTty(): Promise<boolean> {
  if (
    stdoutTty === undefined &&
    !Bun.enableANSIColors &&
    process.env.NO_COLOR === undefined &&
    process.env.FORCE_COLOR === undefined
  )
    stdoutTty = false;
  if (stdoutTty === undefined) {
    try {
      stdoutTty = (await Bun.stdout.stat()).isCharacterDevice();
    } catch {
      stdoutTty = false;
    }
  }
  return stdoutTty;
}

export function stdoutIsTty(): boolean {
  stdoutTty ??= isTerminal(1);
  return stdoutTty;
}

/** The one colour decision of the CLI: FORCE_COLOR forces it; NO_COLOR or a non-terminal turns it off. */
export function colorEnabled(env: Record<string, string | undefined>, isTty: boolean): boolean {
  return env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" ? true : !env.NO_COLOR && isTty;
}
