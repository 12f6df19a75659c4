import { statSync } from "node:fs";
import { summaryLine, summaryReport } from "../capture/summarize.ts";
import { formatIso } from "../core/clock.ts";
import { databasePath } from "../core/paths.ts";
import { type Database, withReader } from "../db/open.ts";
import { layerCounts } from "../db/queries/counts.ts";
import { lastHandoff, lastInjection } from "../db/queries/handoff.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { chainOf, getSession, recentSessions, resolveLive } from "../db/queries/sessions.ts";
import { SCHEMA_VERSION } from "../db/version.ts";
import { ThroughlineError } from "../errors.ts";
import { stdoutColors } from "../render/colors.ts";
import { renderSessionStatus, renderStatus } from "../render/status.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

/** The chain a session belongs to, oldest first, and the last handoff decision of its live end. */
function printSession(db: Database, id: string, json: boolean): void {
  const session = getSession(db, id);
  if (!session) throw new ThroughlineError("E_NO_SESSION", `no session ${id} in this database`);
  const live = resolveLive(db, id);
  const chain = chainOf(db, live.id);
  const handoff = lastHandoff(db, live.id);
  const injection = lastInjection(db, live.id);
  const report = {
    schema: "throughline.status.session.v1",
    session_id: id,
    live_end: live.id,
    cycle: live.cycle,
    chain,
    last_handoff: handoff ? { ...handoff, created_at: formatIso(handoff.created_at) } : null,
    last_injection: injection
      ? {
          ...injection,
          truncated_newest: injection.truncated_newest === 1,
          created_at: formatIso(injection.created_at),
        }
      : null,
  };
  if (json) {
    printJson(report);
    return;
  }
  console.log(renderSessionStatus({ id, liveEnd: live.id, chain, handoff, injection }));
}

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
  meta: {
    name: "status",
    examples: ["throughline status", "throughline status --session 5e1f0c2a"],
    description: "Counts per memory layer, sessions and database size (read-only)",
  },
  args: {
    session: {
      type: "string",
      description: "Show one session's chain and its last handoff decision (id or unique prefix)",
      valueHint: "id",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const path = databasePath(process.env, args.db);
    return withReader(path, (db) => {
      if (args.session) return printSession(db, sessionIdFor(db, args.session), args.json === true);
      const counts = layerCounts(db);
      const recent = recentSessions(db, 5);
      const bytes = fileSize(path);
      const summaries = summaryReport(db, process.env, Date.now());
      if (args.json)
        return printJson({
          schema: "throughline.status.v1",
          database: path,
          schema_version: SCHEMA_VERSION,
          bytes,
          counts,
          summaries,
          recent,
        });
      console.log(
        renderStatus(
          {
            database: path,
            bytes,
            schemaVersion: SCHEMA_VERSION,
            counts,
            summaries: summaryLine(summaries),
            recent,
          },
          stdoutColors(),
        ),
      );
    });
  },
});
