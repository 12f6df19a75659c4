import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type FromExportReport, importExportFile } from "../capture/export-file.ts";
import {
  DEFAULT_EXCLUDES,
  historyEntries,
  parseExcludes,
  partitionFolders,
} from "../capture/import-exclude.ts";
import { neverTranscriptFilter } from "../capture/never-file.ts";
import { replay } from "../capture/replay.ts";
import { instantFlag } from "../core/clock.ts";
import { claudeConfigDir, databasePath } from "../core/paths.ts";
import { withWriter } from "../db/open.ts";
import type { ImportTally } from "../db/queries/export.ts";
import { ThroughlineError } from "../errors.ts";
import { renderImport, renderProgress } from "../render/ingest.ts";
import { isTerminal } from "../render/tty.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { codexSessions } from "./_codex-install.ts";
import { defineCommand } from "./_define.ts";

/** Claude Code names a project's folder after its path with every non-alphanumeric turned into `-`. */
export function projectFolder(dir: string): string {
  return resolve(dir).replace(/[^A-Za-z0-9]/g, "-");
}

function tallyLine(r: FromExportReport): string {
  const part = (name: string, t: ImportTally) =>
    `${t.added} ${name} added${t.kept ? ` (${t.kept} already there)` : ""}`;
  return [
    part("sessions", r.sessions),
    part("turns", r.turns),
    part("details", r.details),
    part("events", r.events),
    part("summaries", r.summaries),
  ].join(", ");
}

/** `import --from-export <file>` (docs/export.md). */
function importFromExport(file: string, opts: { db?: string | undefined; json?: boolean | undefined }): void {
  const report = importExportFile(databasePath(process.env, opts.db), file);
  if (opts.json) printJson(report);
  else console.log(`Imported ${file}: ${tallyLine(report)}.`);
}

export default defineCommand({
  meta: {
    name: "import",
    examples: [
      "throughline import",
      "throughline import --since 2025-06-01",
      "throughline import --from-export backup.jsonl",
    ],
    description:
      "Ingest your existing Claude Code history ($CLAUDE_CONFIG_DIR/projects) and Codex's ($CODEX_HOME/sessions); resumable and idempotent",
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
    exclude: {
      type: "string",
      description: `Skip the project folders matching these globs (comma-separated; on top of throughline's own summarizer folder, always skipped, and the known observer folders: ${DEFAULT_EXCLUDES.join(", ")})`,
      valueHint: "glob,…",
    },
    "default-excludes": {
      type: "boolean",
      default: true,
      description: "Skip the known observer folders (--no-default-excludes imports them)",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    if (args["from-export"] !== undefined) return importFromExport(args["from-export"], args);
    const root = join(claudeConfigDir(process.env), "projects");
    // Codex's rollouts too (docs/hosts.md), unless one project's folder is asked for.
    const codex = args.project ? [] : codexSessions(process.env);
    const claude = existsSync(root) && statSync(root).isDirectory();
    if (!claude && codex.length === 0)
      throw new ThroughlineError("E_NO_HISTORY", `no Claude Code history at ${root}`);
    let since: number | null = null;
    if (args.since) since = instantFlag("--since", args.since);
    const folder = args.project ? projectFolder(args.project) : null;
    if (folder && !existsSync(join(root, folder)))
      throw new ThroughlineError("E_NO_HISTORY", `no Claude Code history for ${args.project}`);
    const entries = folder
      ? { folders: [folder], files: [] }
      : claude
        ? historyEntries(root)
        : { folders: [], files: [] };
    const { keep, skipped } = partitionFolders(root, entries.folders, {
      env: process.env,
      excludes: parseExcludes(args.exclude),
      defaults: args["default-excludes"] !== false,
    });
    const paths = [...[...keep, ...entries.files].map((name) => join(root, name)), ...codex];
    // Paused projects and sessions (docs/memory-control.md) are not captured from history either.
    const never = neverTranscriptFilter(process.env);
    const progress = !args.json && isTerminal(2);
    return withWriter(databasePath(process.env, args.db), (db) => {
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
                process.stderr.write(renderProgress(done, total));
              },
            }
          : {}),
      });
      if (args.json)
        return printJson({ ...report, skipped_folders: skipped, schema: "throughline.import.v1" });
      console.log(renderImport(report, skipped));
    });
  },
});
