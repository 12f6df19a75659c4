import { existsSync } from "node:fs";
import { databasePath } from "../core/paths.ts";
import { type MigrateStatus, openForWrite, peekUserVersion } from "../db/open.ts";
import { SCHEMA_VERSION } from "../db/version.ts";
import { errorLine } from "../errors.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

interface MigrateReport {
  schema: "throughline.migrate.v1";
  database: string;
  status: MigrateStatus;
  from: number | null;
  to: number;
  message?: string;
}

function check(path: string): MigrateReport {
  const base = { schema: "throughline.migrate.v1" as const, database: path, to: SCHEMA_VERSION };
  if (!existsSync(path))
    return { ...base, status: "not_applicable", from: null, message: "no database yet; hooks create it" };
  // Peek read-only first: a newer schema must be refused without opening it for writing.
  const from = peekUserVersion(path);
  if (from > SCHEMA_VERSION)
    return {
      ...base,
      status: "future_schema",
      from,
      message: "database is newer than this throughline; upgrade throughline",
    };
  if (from === SCHEMA_VERSION) return { ...base, status: "already_current", from };
  try {
    const db = openForWrite(path);
    db.close();
    return { ...base, status: "migrated", from };
  } catch (err) {
    return { ...base, status: "migration_failed", from, message: errorLine(err) };
  }
}

export default defineCommand({
  meta: {
    name: "migrate",
    examples: ["throughline migrate"],
    description: "Bring the database schema up to date (never touches a newer schema)",
  },
  args: { ...dbArgs, ...jsonArgs },
  run({ args }) {
    const report = check(databasePath(process.env, args.db));
    if (args.json) printJson(report);
    else
      console.log(
        `${report.status}: ${report.database} (schema ${report.from ?? "-"} → ${report.to})${report.message ? `: ${report.message}` : ""}`,
      );
    if (report.status === "future_schema" || report.status === "migration_failed") process.exitCode = 1;
  },
});
