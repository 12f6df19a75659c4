import type { CliData } from "../main.ts";
import { defineCommand } from "./_define.ts";

/** `throughline help [command…]`: the same text as `throughline [command…] --help`. */
export default defineCommand({
  meta: {
    name: "help",
    description: "Show the help of throughline, or of one command (the same as `<command> --help`)",
    examples: ["throughline help", "throughline help search", "throughline help export jsonl"],
  },
  args: {
    command: {
      type: "positional",
      required: false,
      description: "The command (and sub-command) to explain; none lists every command",
    },
  },
  async run({ args, data }) {
    // The CLI shell owns the command map and the help renderer (loaded only for help); it hands
    // the renderer down in the context (src/main.ts runCommand).
    await (data as CliData).printHelp(args._.map(String), false, true);
  },
});
