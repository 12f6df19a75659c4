import { type WrittenIndex, writeSessionIndex } from "../../capture/session-index.ts";
import { claudeConfigDir, databasePath } from "../../core/paths.ts";
import { type Database, openForRead } from "../../db/open.ts";
import { resolveProject } from "../../db/project.ts";
import { resolveChain } from "../../db/queries/chain.ts";
import { sessionIdFor } from "../../db/queries/session-arg.ts";
import { type IndexScope, indexedSessions } from "../../db/queries/session-index.ts";
import { resolveLive } from "../../db/queries/sessions.ts";
import { ThroughlineError } from "../../errors.ts";
import { activityView } from "../../read/activity.ts";
import { renderActivity } from "../../render/activity.ts";
import { dbArgs, jsonArgs, printJson } from "../_args.ts";
import { defineCommand } from "../_define.ts";

/** The chain of a session; a session known only from its events (no turn yet) is its own. */
function chainOf(db: Database, id: string): string {
  try {
    return resolveChain(db, id);
  } catch (err) {
    if (
      err instanceof ThroughlineError &&
      err.code === "E_NO_SESSION" &&
      indexedSessions(db, { kind: "chain", live: id }).length > 0
    )
      return id;
    throw err;
  }
}

export default defineCommand({
  meta: {
    name: "session-index",
    examples: ["throughline export session-index", "throughline export session-index --all"],
    description:
      "Write the files the /recall skill reads (events.jsonl and summary.md under memory/session-index/<session>/ in the project's folder of $CLAUDE_CONFIG_DIR/projects) from memory (default: the current project)",
  },
  args: {
    session: {
      type: "string",
      description: "Every session of the chain holding this id (or unique prefix)",
      valueHint: "id",
    },
    project: { type: "string", description: "Every session of this project directory", valueHint: "dir" },
    all: { type: "boolean", description: "Every project: every session with events" },
    quiet: { type: "boolean", description: "Print nothing (the Stop hook's refresh)" },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const picked = [args.session !== undefined, args.project !== undefined, args.all === true].filter(
      Boolean,
    );
    if (picked.length > 1)
      throw new ThroughlineError("E_ARGS", "export session-index takes one of --session, --project, --all");
    const configDir = claudeConfigDir(process.env);
    const db = openForRead(databasePath(process.env, args.db));
    const written: WrittenIndex[] = [];
    try {
      let scope: IndexScope;
      if (args.session) scope = { kind: "chain", live: chainOf(db, sessionIdFor(db, args.session, true)) };
      else if (args.all) scope = { kind: "all" };
      else {
        scope = { kind: "project", project: resolveProject(db, args.project, process.cwd()) };
      }
      const now = Date.now();
      for (const id of indexedSessions(db, scope)) {
        // summary.md: the narrative `recall` prints with no words, for the chain holding the session.
        const live = resolveLive(db, id).id;
        const summary = renderActivity(
          activityView(db, [], { now, scope: { kind: "chain", live }, label: `session ${live}` }),
        );
        const w = writeSessionIndex(db, configDir, id, summary);
        if (w) written.push(w);
      }
    } finally {
      db.close();
    }
    if (args.quiet) return;
    if (args.json)
      return printJson({
        schema: "throughline.export.session-index.v1",
        sessions: written.map((w) => ({
          session_id: w.sessionId,
          project: w.project,
          dir: w.dir,
          events: w.events,
        })),
      });
    if (written.length === 0) {
      console.log("No session with events in this scope; nothing written.");
      return;
    }
    for (const w of written) console.log(`${w.dir}  ${w.events} ${w.events === 1 ? "event" : "events"}`);
    console.log(
      `Wrote ${written.length} ${written.length === 1 ? "session" : "sessions"} under ${configDir}/projects`,
    );
  },
});
