import { statSync } from "node:fs";
import { defineCommand } from "citty";
import { databasePath } from "../core/paths.ts";
import { openForRead } from "../db/open.ts";
import { layerCounts, recentSessions } from "../db/queries/status.ts";
import { SCHEMA_VERSION } from "../db/schema.ts";
import { stdoutColors } from "../render/colors.ts";
import { renderTable } from "../render/table.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";

function fileSize(path: string): number {
  let total = 0;
  for (const p of [path, `${path}-wal`]) {
    try {
      total += statSync(p).size;
    } catch {
      // no WAL file: nothing to add
    }
  }
  return total;
}

export default defineCommand({
  meta: { name: "status", description: "Counts per memory layer, sessions and database size (read-only)" },
  args: { ...dbArgs, ...jsonArgs },
  run({ args }) {
    const path = databasePath(process.env, args.db);
    const db = openForRead(path);
    try {
      const counts = layerCounts(db);
      const recent = recentSessions(db, 5);
      const bytes = fileSize(path);
      if (args.json)
        return printJson({
          schema: "throughline.status.v1",
          database: path,
          schema_version: SCHEMA_VERSION,
          bytes,
          counts,
          recent,
        });
      const c = stdoutColors();
      console.log(
        `${c.bold("database")}  ${path} (${(bytes / 1024 / 1024).toFixed(1)} MB, schema v${SCHEMA_VERSION})`,
      );
      console.log(
        `${c.bold("memory")}    ${counts.turns} turns · L2 ${counts.l2_bodies} bodies · L3 ${counts.l3_details} details · L1 ${counts.l1_summaries} summaries · ${counts.events} events`,
      );
      console.log(
        `${c.bold("sessions")}  ${counts.sessions} (${counts.live_sessions} live chains) · ${counts.hook_errors} hook errors`,
      );
      if (recent.length > 0) {
        console.log(`\n${c.bold("newest sessions")}`);
        console.log(
          renderTable(
            ["session", "turns", "updated", "project"],
            recent.map((s) => [s.id, s.turns, new Date(s.updated_at).toISOString(), s.project ?? ""]),
          ),
        );
      }
    } finally {
      db.close();
    }
  },
});
