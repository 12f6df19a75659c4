import type { CommandContext, CommandDef } from "citty";
import type { AnyCommand } from "./commands/_help.ts";
import { commands } from "./commands/index.ts";
import {
  type ArgDefinitions,
  ArgsError,
  flagNames,
  parseCommandArgs,
  subCommandIndex,
  unknownFlag,
} from "./core/argv.ts";
import { selfInvocation } from "./core/invocation.ts";
import { errorLine, ThroughlineError } from "./errors.ts";
import { VERSION } from "./version.ts";

export const main = {
  meta: {
    name: "throughline",
    version: VERSION,
    description: "Memory for Claude Code sessions that survives /clear and compaction",
    examples: [
      "throughline install",
      "throughline import",
      'throughline search "why did the users migration fail"',
      "throughline recall edits",
      "throughline help search",
    ],
  },
  subCommands: commands,
} satisfies CommandDef;

/** citty's Resolvable: a value, a promise of it, or a function returning either. */
const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

type SubCommands = Record<string, AnyCommand | (() => Promise<AnyCommand>)>;

const subCommandsOf = async (cmd: AnyCommand): Promise<SubCommands | undefined> =>
  (await resolve(cmd.subCommands)) as SubCommands | undefined;

/** Loaded only for an error: every module costs a cold start (docs/benchmarks.md). */
const closestName = (given: string, known: readonly string[]): string | null =>
  (require("./core/did-you-mean.ts") as typeof import("./core/did-you-mean.ts")).closestName(given, known);

/** A mistake in the command line: one plain line, exit 1 like every other error of the CLI. */
const usageError = (message: string) => new ThroughlineError("E_USAGE", message);

/** `Run \`throughline search --help\``: where the words of an error point. */
const helpHint = (path: readonly string[]) => `Run \`${[selfInvocation(), ...path, "--help"].join(" ")}\`.`;

/** `first` ended as a sentence, then `then`. */
const sentences = (first: string, then: string) => `${first}${/[.?!]$/.test(first) ? "" : "."} ${then}`;

function unknownCommand(name: string, path: readonly string[], known: string[]): ThroughlineError {
  const near = closestName(name, known);
  const where = path.length > 0 ? ` for ${["throughline", ...path].join(" ")}` : "";
  const guess = near ? ` — did you mean "${near}"?` : "";
  return usageError(sentences(`unknown command "${name}"${where}${guess}`, helpHint(path)));
}

/**
 * Follow the words of `words` through the sub-command maps: `recall --help` shows recall's help.
 * With `strict`, a word that names no command is an error (`throughline help frob`).
 */
async function resolvePath(words: readonly string[], strict: boolean): Promise<[AnyCommand, string[]]> {
  let cmd: AnyCommand = main;
  const path: string[] = [];
  for (const word of words) {
    if (word.startsWith("-")) continue;
    const subs = await subCommandsOf(cmd);
    const next = subs?.[word];
    if (!next) {
      if (strict) throw unknownCommand(word, path, Object.keys(subs ?? {}));
      break;
    }
    path.push(word);
    cmd = await resolve(next);
  }
  return [cmd, path];
}

/** What every command's context carries in `data`: the CLI shell's services a command may not import. */
export interface CliData {
  printHelp: typeof printHelp;
}

/** Print the help of the command `words` name (all of them must name one when `strict`). */
export async function printHelp(words: readonly string[], toStderr = false, strict = false): Promise<void> {
  const [cmd, path] = await resolvePath(words, strict);
  const [{ helpModel }, { renderHelp }, { colorsFor }, { isTerminal, stdoutIsTty }] = await Promise.all([
    import("./commands/_help.ts"),
    import("./render/help.ts"),
    import("./render/colors.ts"),
    import("./render/tty.ts"),
  ]);
  const colors = colorsFor(process.env, toStderr ? isTerminal(2) : stdoutIsTty());
  const text = `${renderHelp(await helpModel(cmd, path), colors)}\n`;
  if (toStderr) console.error(text);
  else console.log(text);
}

/** citty's argument errors, worded for a person: what is missing and how the command is written. */
function plainArgsError(err: ArgsError, path: readonly string[], defs: ArgDefinitions): ThroughlineError {
  const command = path.join(" ");
  const name = err.arg ?? "";
  if (err.code === "E_MISSING_POSITIONAL") {
    const flags = Object.values(defs).some((d) => d.type !== "positional") ? " [options]" : "";
    return usageError(`${command} needs ${name}: throughline ${command} <${name}>${flags}`);
  }
  if (err.code === "E_INVALID_VALUE")
    return usageError(`--${name} must be one of ${(defs[name]?.options ?? []).join(", ")}`);
  if (err.code === "E_MISSING_FLAG")
    return usageError(sentences(`${command} needs --${name}`, helpHint(path)));
  return usageError(`${command}: ${err.message}`);
}

/** An unknown flag stops the command before it runs: one line naming it, and the flag meant. */
function checkFlags(rawArgs: readonly string[], defs: ArgDefinitions, path: readonly string[]): void {
  const flag = unknownFlag(rawArgs, defs);
  if (flag === null) return;
  const near = flag.startsWith("--") ? closestName(flag, flagNames(defs)) : null;
  const where = path.length > 0 ? ` for ${path.join(" ")}` : "";
  const guess = near
    ? ` — did you mean ${near}?`
    : flag.startsWith("--")
      ? ""
      : " (a word that starts with - goes after --)";
  throw usageError(sentences(`unknown flag ${flag}${where}${guess}`, helpHint(path)));
}

function parseArgs(rawArgs: string[], defs: ArgDefinitions, path: readonly string[]) {
  try {
    return parseCommandArgs(rawArgs, defs);
  } catch (err) {
    throw err instanceof ArgsError ? plainArgsError(err, path, defs) : err;
  }
}

/**
 * citty's runCommand, with the arguments parsed by core/argv.ts instead of `node:util`
 * (docs/benchmarks.md) and unknown flags refused: setup, the sub-command named in argv, run,
 * cleanup. `path` is the words that named `cmd`.
 */
async function runCommand(cmd: AnyCommand, rawArgs: string[], path: string[]): Promise<void> {
  const defs = (await resolve(cmd.args ?? {})) as ArgDefinitions;
  const subs = await subCommandsOf(cmd);
  const at = subs && Object.keys(subs).length > 0 ? subCommandIndex(rawArgs, defs) : -1;
  // The flags before a sub-command's name are this command's; the rest are the sub-command's.
  checkFlags(at >= 0 ? rawArgs.slice(0, at) : rawArgs, defs, path);
  // A command that only dispatches (the root) has nothing to read its arguments: the parse is
  // skipped, as every statement of a cold process costs (docs/benchmarks.md).
  const args = (
    cmd.run || cmd.setup || cmd.cleanup ? parseArgs(rawArgs, defs, path) : { _: [] }
  ) as CommandContext["args"];
  // `data` hands the help renderer down to the `help` command, which cannot import this module
  // (it sits below the command map this module imports: no cycle, lazy ones included).
  const data: CliData = { printHelp };
  const context: CommandContext = { rawArgs, args, cmd, data };
  let runError: unknown;
  try {
    await cmd.setup?.(context);
    if (subs && Object.keys(subs).length > 0) {
      const name = rawArgs[at];
      if (name) {
        const sub = name in subs ? await resolve(subs[name]!) : undefined;
        if (!sub) throw unknownCommand(name, path, Object.keys(subs));
        await runCommand(sub, rawArgs.slice(at + 1), [...path, name]);
      } else if (!cmd.run)
        throw usageError(
          sentences(`${path.join(" ")} needs a command: ${Object.keys(subs).join(" or ")}`, helpHint(path)),
        );
    }
    await cmd.run?.(context);
  } catch (err) {
    runError = err;
  }
  try {
    await cmd.cleanup?.(context);
  } catch (err) {
    runError ??= err;
  }
  if (runError) throw runError;
}

/** The single exit point of the CLI: every error becomes one line and an exit code. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    if (argv.includes("--help") || argv.includes("-h")) {
      await printHelp(argv);
      return;
    }
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
      console.log(VERSION);
      return;
    }
    if (argv.length === 0) {
      await printHelp(argv, true);
      process.exitCode = 1;
      return;
    }
    await runCommand(main, argv, []);
  } catch (err) {
    console.error(`throughline: ${errorLine(err)}`);
    if (process.env.THROUGHLINE_DEBUG === "1" && err instanceof Error) console.error(err.stack);
    process.exitCode = err instanceof ThroughlineError ? err.exitCode : 1;
  }
}
