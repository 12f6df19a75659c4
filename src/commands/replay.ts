import { resolve } from "node:path";
import { replay } from "../capture/replay.ts";
import { databasePath } from "../core/paths.ts";
import { withWriter } from "../db/open.ts";
import { ThroughlineError } from "../errors.ts";
import { stdoutColors } from "../render/colors.ts";
import { renderReplay } from "../render/ingest.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

export default defineCommand({
  meta: {
    name: "replay",
    examples: [
      "throughline replay ~/.claude/projects/-home-me-app/",
      "throughline replay session.jsonl --json",
    ],
    description: "Ingest recorded transcripts (files or folders of .jsonl) as if every Stop hook had fired",
  },
  args: {
    paths: {
      type: "positional",
      description: "Transcript files or folders",
      required: true,
      valueHint: "file|dir",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const paths = args._.length > 0 ? args._ : [args.paths];
    if (paths.length === 0 || !paths[0])
      throw new ThroughlineError("E_ARGS", "replay needs at least one file or folder");
    const report = withWriter(databasePath(process.env, args.db), (db) => replay(db, paths));
    // A file named on the command line that is no transcript is an error; one found in a folder is
    // skipped and named in the report (as import does).
    const named = new Map(paths.map((p) => [resolve(p), p]));
    const refused = report.skipped_files.find((f) => named.has(f.file));
    if (refused === undefined || report.sessions.length > 0) {
      if (args.json) printJson(report);
      else console.log(renderReplay(report, stdoutColors()));
    }
    if (refused !== undefined)
      throw new ThroughlineError(
        "E_NOT_TRANSCRIPT",
        `${named.get(refused.file)} is not a Claude Code transcript: ${refused.reason}`,
      );
  },
});
