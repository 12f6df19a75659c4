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
 * `claude -p` SIGTERMs async hooks ~15 ms after starting them as it exits, which would lose
 * the last turn of every one-shot session. Stop and SubagentStop therefore check the payload
 * (the hook's own check), hand it to a detached worker that outlives the client, and exit 0,
 * all before the hook code is loaded. A payload that fails the check takes the normal path (exit 1, one
 * stderr line, a `hook_errors` row). `THROUGHLINE_DETACH=0` turns detaching off.
 */

async function detach(event: string): Promise<void> {
  // The client sends SIGTERM ~15 ms after starting an async hook as it exits: outlast it just
  // long enough to hand the payload over.
  process.on("SIGTERM", () => {});
  process.on("SIGHUP", () => {});
  // The worker's shell starts while the payload is read (src/hooks/hand-off.ts).
  const [{ selfArgv }, { startHandOff }] = await Promise.all([
    import("./core/invocation.ts"),
    import("./hooks/hand-off.ts"),
  ]);
  const handOff = startHandOff([...selfArgv(), "hook", event], {
    ...process.env,
    THROUGHLINE_HOOK_WORKER: "1",
  });
  const { parsePayload, readPayloadText } = await import("./hooks/stdin.ts");
  const text = await readPayloadText();
  try {
    parsePayload(event, text);
  } catch {
    handOff.cancel();
    const { runHookProcess } = await import("./hooks/run.ts");
    await runHookProcess(event, text);
    return;
  }
  await handOff.deliver(text);
}

/**
 * Every run of throughline is a short process: a hook or a pull lives 10-40 ms, and runs its loops (a
 * candidate ranked, a tool line per call) a few hundred times. At JavaScriptCore's usual thresholds
 * those loops are compiled by the optimizing tiers, on a thread whose CPU time counts, and the process
 * ends before the compiled code repays it; so tier-up comes this many times later (docs/architecture.md,
 * "Lazy loading"). A long job still tiers up, a few milliseconds later: replay ran no slower.
 */
const JIT_SCALE = 30;

async function main(): Promise<void> {
  Bun.unsafe.setJITPolicy?.(JIT_SCALE);
  if (argv.length === 1 && (first === "--version" || first === "-v")) {
    const { VERSION } = await import("./version.ts");
    console.log(VERSION);
  } else if (hookEvent !== undefined && (first === "hook" || argv.length === 1)) {
    const { DETACHED_SUBS } = await import("./core/hook-table.ts");
    if (
      DETACHED_SUBS.has(hookEvent) &&
      process.env.THROUGHLINE_HOOK_WORKER !== "1" &&
      process.env.THROUGHLINE_DETACH !== "0"
    ) {
      await detach(hookEvent);
      return;
    }
    const { runHookProcess } = await import("./hooks/run.ts");
    await runHookProcess(hookEvent);
  } else if (first === "statusline" && argv.every((a) => a === "statusline" || a === "--json")) {
    // Claude Code runs the status line as often as a hook: skip the CLI framework here too.
    const { runStatusline } = await import("./commands/statusline.ts");
    await runStatusline(argv.includes("--json"));
  } else {
    // citty decides on colour when it is imported: settle it first, from the real stdout (no
    // need to look when NO_COLOR or FORCE_COLOR already decides).
    if (process.env.NO_COLOR === undefined && process.env.FORCE_COLOR === undefined) {
      const { detectStdoutTty } = await import("./render/tty.ts");
      if (!(await detectStdoutTty())) process.env.NO_COLOR = "1";
    }
    const { runCli } = await import("./main.ts");
    await runCli(argv);
  }
}

// A bulk import plans transcripts on a second thread (src/capture/plan-ahead.ts), which the
// binary and the plugin's bundle start on this same script.
if (Bun.isMainThread) void main();
else void import("./capture/plan-worker.ts");
