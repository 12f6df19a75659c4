import { isatty } from "node:tty";
import { exportToFd, exportToFile } from "../../capture/export-file.ts";
import { databasePath } from "../../core/paths.ts";
import { plural } from "../../core/text.ts";
import { ThroughlineError } from "../../errors.ts";
import { dbArgs, jsonArgs, printJson } from "../_args.ts";
import { defineCommand } from "../_define.ts";

/** `throughline export jsonl` (docs/export.md); `import --from-export` reads what it writes. */
export default defineCommand({
  meta: {
    name: "jsonl",
    examples: ["throughline export jsonl --out backup.jsonl"],
    description:
      "Write the whole memory as throughline.export.v1 JSONL (docs/export.md) to stdout or --out; restore it with `import --from-export <file>`",
  },
  args: {
    out: { type: "string", description: "Write to this file (0600) instead of stdout", valueHint: "file" },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const path = databasePath(process.env, args.db);
    const out = args.out && args.out !== "-" ? args.out : null;
    if (out === null) {
      if (args.json)
        throw new ThroughlineError(
          "E_ARGS",
          "--json reports on an export written with --out <file>; on stdout the export itself is the output",
        );
      if (isatty(1))
        throw new ThroughlineError(
          "E_ARGS",
          "export jsonl writes the whole memory: redirect stdout to a file or pass --out <file>",
        );
      exportToFd(path, 1);
      return;
    }
    const { counts, bytes } = exportToFile(path, out);
    if (args.json) return printJson({ schema: "throughline.export.report.v1", file: out, bytes, counts });
    console.log(
      `Exported ${plural(counts.sessions, "session", "sessions")}, ${plural(counts.turns, "turn", "turns")}, ${plural(counts.details, "detail", "details")}, ${plural(counts.events, "event", "events")} and ${plural(counts.summaries, "summary", "summaries")} to ${out} (${bytes} bytes).`,
    );
  },
});
