import { statSync } from "node:fs";
import { defineCommand } from "citty";
import { summaryLine, summaryReport } from "../capture/summarize.ts";
import { databasePath } from "../core/paths.ts";
import { type Database, openForRead } from "../db/open.ts";
import { layerCounts } from "../db/queries/counts.ts";
import { lastHandoff, lastInjection } from "../db/queries/handoff.ts";
import { chainOf, getSession, recentSessions, resolveLive } from "../db/queries/sessions.ts";
import { SCHEMA_VERSION } from "../db/schema.ts";
import { ThroughlineError } from "../errors.ts";
import { stdoutColors } from "../render/colors.ts";
import { renderTable } from "../render/table.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";

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
    last_handoff: handoff ? { ...handoff, created_at: new Date(handoff.created_at).toISOString() } : null,
    last_injection: injection
      ? {
          ...injection,
          truncated_newest: injection.truncated_newest === 1,
          created_at: new Date(injection.created_at).toISOString(),
        }
      : null,
  };
  if (json) {
    printJson(report);
    return;
  }
  console.log(`session ${id}${live.id !== id ? ` (merged; live end ${live.id})` : ""}`);
  console.log(
    renderTable(
      ["chain (oldest first)", "turns", "created"],
      chain.map((c) => [c.id, c.turns, new Date(c.created_at).toISOString()]),
    ),
  );
  if (handoff)
    console.log(
      `last handoff: ${handoff.path}${handoff.predecessor ? ` from ${handoff.predecessor}` : ""}${handoff.reason ? ` (${handoff.reason})` : ""}`,
    );
  else console.log("last handoff: none recorded");
  if (injection)
    console.log(
      `last push: ${injection.total_chars}/${injection.budget} chars, ${injection.injected_turns} turns pushed, ${injection.remaining_turns} to recall --l2, ${injection.older_turns} older (${injection.older_summarized} summarized)`,
    );
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
  meta: { name: "status", description: "Counts per memory layer, sessions and database size (read-only)" },
  args: {
    session: {
      type: "string",
      description: "Show one session's chain and its last handoff decision",
      valueHint: "id",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const path = databasePath(process.env, args.db);
    const db = openForRead(path);
    try {
      if (args.session) return printSession(db, args.session, args.json === true);
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
      const c = stdoutColors();
      console.log(
        `${c.bold("database")}  ${path} (${(bytes / 1024 / 1024).toFixed(1)} MB, schema v${SCHEMA_VERSION})`,
      );
      console.log(
        `${c.bold("memory")}    ${counts.turns} turns · L2 ${counts.l2_bodies} bodies · L3 ${counts.l3_details} details · L1 ${counts.l1_summaries} summaries · ${counts.events} events`,
      );
      console.log(`${c.bold("summaries")} ${summaryLine(summaries)}`);
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
