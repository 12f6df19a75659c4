import type { ArgsDef, CommandDef } from "citty";

/**
 * citty's `defineCommand`, the identity kept for its types, without loading citty at run time:
 * its module imports `node:util`, about 2 ms of every cold command (docs/benchmarks.md,
 * "What a cold process loads"). Only `--help` loads citty (src/main.ts printUsage).
 */
export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}
