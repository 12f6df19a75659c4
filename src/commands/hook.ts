import { HOOK_EVENTS, runHookProcess } from "../hooks/run.ts";
import { defineCommand } from "./_define.ts";

// Reached only for `throughline hook --help` and malformed calls: src/cli.ts sends real hook
// invocations straight to the handler without loading the CLI framework.
const eventCommand = (event: string) =>
  defineCommand({
    meta: {
      name: event,
      description: `Handle Claude Code's ${event} hook (JSON payload on stdin)`,
      examples: [`throughline hook ${event} < payload.json`],
    },
    run: () => runHookProcess(event),
  });

export default defineCommand({
  meta: {
    name: "hook",
    examples: ["throughline hook user-prompt-submit < payload.json"],
    description:
      "Claude Code hook entry points; each reads one JSON payload on stdin and never blocks the user",
  },
  subCommands: Object.fromEntries(HOOK_EVENTS.map((e) => [e, eventCommand(e)])),
});
