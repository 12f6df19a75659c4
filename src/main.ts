import type { CommandContext, CommandDef } from "citty";
import { commands } from "./commands/index.ts";
import { type ArgDefinitions, ArgsError, parseCommandArgs, subCommandIndex } from "./core/argv.ts";
import { errorLine, ThroughlineError } from "./errors.ts";
import { VERSION } from "./version.ts";

export const main = {
  meta: {
    name: "throughline",
    version: VERSION,
    description: "Memory for Claude Code sessions that survives /clear and compaction",
  },
  subCommands: commands,
} satisfies CommandDef;

// biome-ignore lint/suspicious/noExplicitAny: commands differ in their args.
type AnyCommand = CommandDef<any>;

/** citty's Resolvable: a value, a promise of it, or a function returning either. */
const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

type SubCommands = Record<string, AnyCommand | (() => Promise<AnyCommand>)>;

const subCommandsOf = async (cmd: AnyCommand): Promise<SubCommands | undefined> =>
  (await resolve(cmd.subCommands)) as SubCommands | undefined;

/** Follow positional words through the sub-command map: `recall --help` shows recall's help. */
async function resolveForHelp(argv: string[]): Promise<[AnyCommand, AnyCommand | undefined]> {
  let cmd: AnyCommand = main;
  let parent: AnyCommand | undefined;
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    const next = (await subCommandsOf(cmd))?.[word];
    if (!next) break;
    parent = cmd;
    cmd = await resolve(next);
  }
  return [cmd, parent];
}

async function printUsage(argv: string[], toStderr: boolean): Promise<void> {
  const { renderUsage } = await import("citty");
  const [cmd, parent] = await resolveForHelp(argv);
  // citty colours help by its own rules (off under NO_COLOR=1, TERM=dumb, CI or TEST); ours
  // decides whether any colour stays, so FORCE_COLOR=0 or a pipe never gets it.
  const { colorEnabled, isTerminal, stdoutIsTty } = await import("./render/tty.ts");
  const usage = await renderUsage(cmd, parent);
  const coloured = colorEnabled(process.env, toStderr ? isTerminal(2) : stdoutIsTty());
  const text = `${coloured ? usage : Bun.stripANSI(usage)}\n`;
  if (toStderr) console.error(text);
  else console.log(text);
}

/**
 * citty's runCommand, with the arguments parsed by core/argv.ts instead of `node:util`
 * (docs/benchmarks.md): setup, the sub-command named in argv, run, cleanup.
 */
async function runCommand(cmd: AnyCommand, rawArgs: string[]): Promise<void> {
  const defs = (await resolve(cmd.args ?? {})) as ArgDefinitions;
  // A command that only dispatches (the root) has nothing to read its arguments: the parse is
  // skipped, as every statement of a cold process costs (docs/benchmarks.md).
  const args = (
    cmd.run || cmd.setup || cmd.cleanup ? parseCommandArgs(rawArgs, defs) : { _: [] }
  ) as CommandContext["args"];
  const context: CommandContext = { rawArgs, args, cmd, data: undefined };
  let runError: unknown;
  try {
    await cmd.setup?.(context);
    const subs = await subCommandsOf(cmd);
    if (subs && Object.keys(subs).length > 0) {
      const at = subCommandIndex(rawArgs, defs);
      const name = rawArgs[at];
      if (name) {
        const sub = name in subs ? await resolve(subs[name]!) : undefined;
        if (!sub) throw new ArgsError(`Unknown command ${name}`, "E_UNKNOWN_COMMAND");
        await runCommand(sub, rawArgs.slice(at + 1));
      } else if (!cmd.run) throw new ArgsError("No command specified.", "E_NO_COMMAND");
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

function isCittyError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && err.name === "CLIError";
}

/** The single exit point of the CLI: every error becomes one line and an exit code. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    if (argv.includes("--help") || argv.includes("-h")) {
      await printUsage(argv, false);
      return;
    }
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
      console.log(VERSION);
      return;
    }
    if (argv.length === 0) {
      await printUsage(argv, true);
      process.exitCode = 1;
      return;
    }
    await runCommand(main, argv);
  } catch (err) {
    if (isCittyError(err)) {
      await printUsage(argv, true);
      console.error(`throughline: ${errorLine(err)}`);
      process.exitCode = 1;
      return;
    }
    console.error(`throughline: ${errorLine(err)}`);
    if (process.env.THROUGHLINE_DEBUG === "1" && err instanceof Error) console.error(err.stack);
    process.exitCode = err instanceof ThroughlineError ? err.exitCode : 1;
  }
}
