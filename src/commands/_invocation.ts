import { VERSION } from "../version.ts";

function quote(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `"${p.replace(/(["\\$`])/g, "\\$1")}"`;
}

/**
 * How hooks should re-invoke the very program that ran `install` (SPEC §9), so they depend
 * neither on PATH nor on a registry being reachable.
 */
export function selfInvocation(main = Bun.main, execPath = process.execPath): string {
  // A `bun build --compile` binary runs from Bun's embedded file system.
  if (main.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/i.test(main)) return quote(execPath);
  // `bunx throughline` runs from a throwaway install: pin the version instead of the path.
  if (/[\\/](bunx-[^\\/]*|\.bun[\\/]install[\\/]cache)[\\/]/.test(main)) return `bunx throughline@${VERSION}`;
  return `${quote(execPath)} ${quote(main)}`;
}
