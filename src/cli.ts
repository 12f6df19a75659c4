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

/**
 * `claude -p` cancels async hooks still running ~50 ms after Stop and exits, which would lose
 * the last turn of every one-shot session. Stop and SubagentStop therefore hand their stdin to
 * a detached worker at once, before anything else is loaded, and exit 0. The worker's errors
 * (a bad payload included) are recorded in `hook_errors`; `THROUGHLINE_DETACH=0` turns this off.
 */
const DETACHED = new Set(["stop", "subagent-stop"]);

async function detach(event: string): Promise<void> {
  const { spawn } = await import("node:child_process");
  const self = Bun.main.startsWith("/$bunfs/") ? [] : [Bun.main];
  spawn(process.execPath, [...self, "hook", event], {
    detached: true,
    stdio: ["inherit", "ignore", "ignore"],
    env: { ...process.env, THROUGHLINE_HOOK_WORKER: "1" },
  }).unref();
}

async function main(): Promise<void> {
  if (argv.length === 1 && (first === "--version" || first === "-v")) {
    const { VERSION } = await import("./version.ts");
    console.log(VERSION);
  } else if (hookEvent !== undefined && (first === "hook" || argv.length === 1)) {
    if (
      DETACHED.has(hookEvent) &&
      process.env.THROUGHLINE_HOOK_WORKER !== "1" &&
      process.env.THROUGHLINE_DETACH !== "0"
    ) {
      await detach(hookEvent);
      return;
    }
    const { runHookProcess } = await import("./hooks/run.ts");
    await runHookProcess(hookEvent);
  } else {
    // citty decides on colour when it is imported: settle it first, from the real stdout.
    const { stdoutIsTty } = await import("./render/tty.ts");
    if (!stdoutIsTty() && process.env.FORCE_COLOR === undefined) process.env.NO_COLOR ??= "1";
    const { runCli } = await import("./main.ts");
    await runCli(argv);
  }
}

void main();
