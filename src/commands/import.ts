import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { defineCommand } from "citty";
import { replay } from "../capture/replay.ts";
import { claudeConfigDir, databasePath } from "../core/paths.ts";
import { openForWrite } from "../db/open.ts";
import { ThroughlineError } from "../errors.ts";
import { isTerminal } from "../render/tty.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { importFromExport } from "./_export-db.ts";
import { neverTranscriptFilter } from "./pause.ts";

/** Claude Code names a project's folder after its path with every non-alphanumeric turned into `-`. */
export function projectFolder(dir: string): string {
  return resolve(dir).replace(/[^A-Za-z0-9]/g, "-");
}

export default defineCommand({
  meta: {
    name: "import",
    description:
      "Ingest your existing Claude Code history ($CLAUDE_CONFIG_DIR/projects); resumable and idempotent",
  },
  args: {
    project: { type: "string", description: "Only the sessions of this project directory", valueHint: "dir" },
    since: {
      type: "string",
      description: "Only transcripts written since this date (YYYY-MM-DD or ISO)",
      valueHint: "date",
    },
    "from-export": {
      type: "string",
      description: "Restore a `throughline export jsonl` file instead (docs/export.md); idempotent",
      valueHint: "file",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    if (args["from-export"] !== undefined) return importFromExport(args["from-export"], args);
    const root = join(claudeConfigDir(process.env), "projects");
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new ThroughlineError("E_NO_HISTORY", `no Claude Code history at ${root}`);
    let since: number | null = null;
    if (args.since) {
      since = Date.parse(args.since);
      if (!Number.isFinite(since)) throw new ThroughlineError("E_ARGS", `--since: not a date: ${args.since}`);
    }
    const folder = args.project ? `/${projectFolder(args.project)}/` : null;
    const paths = folder ? [join(root, folder)] : [root];
    if (folder && !existsSync(paths[0]!))
      throw new ThroughlineError("E_NO_HISTORY", `no Claude Code history for ${args.project}`);
    // Paused projects and sessions (docs/memory-control.md) are not captured from history either.
    const never = neverTranscriptFilter(process.env);
    const progress = !args.json && isTerminal(2);
    const db = openForWrite(databasePath(process.env, args.db));
    try {
      const report = replay(db, paths, {
        ...(since === null && never === null
          ? {}
          : {
              filter: (f: string) =>
                (since === null || statSync(f).mtimeMs >= since) && (never === null || never(f)),
            }),
        ...(progress
          ? {
              onProgress: (done: number, total: number) => {
                const width = 30;
                const fill = Math.round((done / Math.max(1, total)) * width);
                process.stderr.write(
                  `\r[${"#".repeat(fill)}${" ".repeat(width - fill)}] ${done}/${total} transcripts`,
                );
                if (done === total) process.stderr.write("\n");
              },
            }
          : {}),
      });
      if (args.json) return printJson({ ...report, schema: "throughline.import.v1" });
      const t = report.totals;
      console.log(
        `Imported ${t.files} transcripts: ${t.sessions} sessions, ${t.turns} turns, ${t.details} details, ${t.events} events, ${t.skipped_lines} skipped lines (${report.elapsed_ms} ms).`,
      );
    } finally {
      db.close();
    }
  },
});
