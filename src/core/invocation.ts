/**
 * The one command prefix throughline prints and registers: the hooks' command, the pulls baked
 * into the push, the slash commands, the permission rules and every hint. It re-invokes the
 * very program that is running, so what the model is told to run works as written from Claude
 * Code's Bash tool whatever the install path, without PATH or a registry (docs/hooks.md,
 * "Commands the model runs").
 */
import { VERSION } from "../version.ts";
import { joinPath } from "./paths.ts";

/** Characters a POSIX shell takes literally: words of only these are printed unquoted. */
export const SHELL_PLAIN = "A-Za-z0-9._:@%+=,/-";
const SAFE_WORD = new RegExp(`^[${SHELL_PLAIN}]+$`);

/** Quote a value for a POSIX shell only when it needs it. */
export function shellQuote(value: string): string {
  if (value !== "" && SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Where a `bun build --compile` binary runs its entry from (POSIX, Windows). */
export function isCompiledMain(main: string): boolean {
  return main.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/i.test(main);
}

/** The entries a throughline process starts from: the checkout's `src/cli.ts`, the plugin bundle. */
const ENTRY = /[\\/](cli\.ts|throughline\.js)$/;

/**
 * The same program as an argv prefix, for spawning it (the Stop worker, a hook's child). When
 * this code runs inside another program (a test runner), that is the checkout's own entry.
 */
export function selfArgv(main = Bun.main, execPath = process.execPath): string[] {
  if (isCompiledMain(main)) return [execPath];
  return [execPath, ENTRY.test(main) ? main : joinPath(import.meta.dir, "../cli.ts")];
}

/**
 * - compiled binary → its absolute path;
 * - `bunx throughline` (a throwaway install) → `bunx throughline@<version>`, pinned;
 * - a checkout, a global or a plugin install → `<absolute bun> <absolute entry>`.
 */
export function selfInvocation(main = Bun.main, execPath = process.execPath): string {
  if (/[\\/](bunx-[^\\/]*|\.bun[\\/]install[\\/]cache)[\\/]/.test(main)) return `bunx throughline@${VERSION}`;
  return selfArgv(main, execPath).map(shellQuote).join(" ");
}

/** `<invocation> <sub> <args…>`, each argument quoted when it needs it. */
export function commandLine(invocation: string, sub: string, ...args: string[]): string {
  return [invocation, sub, ...args.map(shellQuote)].join(" ");
}
