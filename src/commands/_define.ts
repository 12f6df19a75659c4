import type { ArgsDef, CommandDef } from "citty";

/**
 * citty's `defineCommand`, the identity kept for its types, without loading citty at run time:
 * its module imports `node:util`, about 2 ms of every cold command (docs/benchmarks.md,
 * "What a cold process pays, measured"). Nothing loads citty: the parse is core/argv.ts, the
 * help render/help.ts.
 */
export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}
