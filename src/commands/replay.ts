import { defineCommand } from "citty";
import { replay } from "../capture/replay.ts";
import { databasePath } from "../core/paths.ts";
import { openForWrite } from "../db/open.ts";
import { ThroughlineError } from "../errors.ts";
import { stdoutColors } from "../render/colors.ts";
import { renderTable } from "../render/table.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";

export default defineCommand({
  meta: {
    name: "replay",
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
    const db = openForWrite(databasePath(process.env, args.db));
    try {
      const report = replay(db, paths);
      if (args.json) return printJson(report);
      const c = stdoutColors();
      const rows = report.sessions.map((s) => [s.session_id, s.turns, s.details, s.skipped_lines, s.file]);
      console.log(renderTable(["session", "turns", "details", "skipped", "file"], rows));
      const t = report.totals;
      console.log(
        c.bold(
          `\n${t.files} files, ${t.sessions} sessions, ${t.turns} turns, ${t.details} details, ${t.skipped_lines} skipped lines in ${report.elapsed_ms} ms`,
        ),
      );
    } finally {
      db.close();
    }
  },
});
