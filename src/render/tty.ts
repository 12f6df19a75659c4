import { fstatSync } from "node:fs";

/**
 * Is this file descriptor a terminal? `node:tty` costs ~7 ms to load and `process.stdout`
 * ~15 ms to touch in a compiled Bun binary; an fstat costs well under one. A character device
 * is taken for a terminal (so is /dev/null, where colour is harmless); pipes and files are not.
 */
export function isTerminal(fd: 1 | 2): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

export function stdoutIsTty(): boolean {
  return isTerminal(1);
}

/** The one colour decision of the CLI: FORCE_COLOR forces it; NO_COLOR or a non-terminal turns it off. */
export function colorEnabled(env: Record<string, string | undefined>, isTty: boolean): boolean {
  return env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" ? true : !env.NO_COLOR && isTty;
}
