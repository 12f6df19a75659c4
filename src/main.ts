import { type CommandDef, renderUsage, runCommand } from "citty";
import { commands } from "./commands/index.ts";
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

/** Follow positional words through the sub-command map: `recall --help` shows recall's help. */
async function resolveForHelp(argv: string[]): Promise<[AnyCommand, AnyCommand | undefined]> {
  let cmd: AnyCommand = main;
  let parent: AnyCommand | undefined;
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    const subs = (typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands) as
      | Record<string, AnyCommand | (() => Promise<AnyCommand>)>
      | undefined;
    const next = subs?.[word];
    if (!next) break;
    parent = cmd;
    cmd = typeof next === "function" ? await next() : next;
  }
  return [cmd, parent];
}

async function printUsage(argv: string[], toStderr: boolean): Promise<void> {
  const [cmd, parent] = await resolveForHelp(argv);
  const text = `${await renderUsage(cmd, parent)}\n`;
  if (toStderr) console.error(text);
  else console.log(text);
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
    await runCommand(main, { rawArgs: argv });
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
