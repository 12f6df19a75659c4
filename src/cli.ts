#!/usr/bin/env bun
// Entry point of `bunx throughline`, the checkout and the compiled binary. Hooks run on every
// prompt as a cold start, so they skip the CLI framework entirely and load only their handler.
const argv = process.argv.slice(2);
const HOOK_ALIASES: Record<string, string> = {
  "session-start": "session-start",
  "prompt-submit": "user-prompt-submit",
  "process-turn": "stop",
};
const first = argv[0] ?? "";
const hookEvent =
  first === "hook" && argv[1] && !argv[1].startsWith("-") && argv.length === 2
    ? argv[1]
    : HOOK_ALIASES[first];

async function main(): Promise<void> {
  if (argv.length === 1 && (first === "--version" || first === "-v")) {
    const { VERSION } = await import("./version.ts");
    console.log(VERSION);
  } else if (hookEvent !== undefined && (first === "hook" || argv.length === 1)) {
    const { runHookProcess } = await import("./hooks/run.ts");
    await runHookProcess(hookEvent);
  } else {
    // citty decides on colour when it is imported: settle it first, from the real stdout.
    const { isatty } = await import("node:tty");
    if (!isatty(1) && process.env.FORCE_COLOR === undefined) process.env.NO_COLOR ??= "1";
    const { runCli } = await import("./main.ts");
    await runCli(argv);
  }
}

void main();
