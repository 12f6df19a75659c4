import { formatIso } from "../core/clock.ts";
import { type EventDraft, summaryLine } from "../core/events.ts";
import { databasePath, normalizeProject } from "../core/paths.ts";
import { redact } from "../core/redact.ts";
import { withWriter } from "../db/open.ts";
import { findProject } from "../db/project.ts";
import { insertEvents, latestChain } from "../db/queries/events.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { chainKey, getSession, resolveLive } from "../db/queries/sessions.ts";
import { ThroughlineError } from "../errors.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

/**
 * `note --decision "<text>"` (docs/activity.md): the model records a decision in the activity index
 * explicitly. A writer: the note goes to the given session, else to the most recently active
 * chain of the current project.
 */
export default defineCommand({
  meta: {
    name: "note",
    examples: ['throughline note --decision "Keep the queue in Postgres, not Redis"'],
    description: "Record a decision in the activity index (recall decisions shows it)",
  },
  args: {
    decision: {
      type: "string",
      description: "The decision, in one sentence",
      valueHint: "text",
      required: true,
    },
    session: {
      type: "string",
      description: "Session id or a unique prefix (default: the latest session of this project)",
      valueHint: "id",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const text = redact((args.decision ?? "").trim());
    if (!text) throw new ThroughlineError("E_ARGS", 'note needs --decision "<text>"');
    return withWriter(databasePath(process.env, args.db), (db) => {
      const cwd = normalizeProject(process.cwd());
      let origin = args.session ? sessionIdFor(db, args.session) : undefined;
      let project: string | null = null;
      if (origin) {
        // A decision against a session that does not exist would narrow search's default scope
        // to nothing real (issue 45): refused, nothing recorded.
        const session = getSession(db, origin);
        if (session === null)
          throw new ThroughlineError("E_NO_SESSION", `no session ${origin}: nothing recorded`, {
            hint: "pass the session id of this conversation, or leave --session out for this project's latest",
          });
        project = session.project;
      } else {
        project = findProject(db, cwd);
        origin = project ? (latestChain(db, project) ?? undefined) : undefined;
        if (!origin)
          throw new ThroughlineError("E_NO_SESSION", `no session recorded for ${cwd}`, {
            hint: "pass --session <id> (the session id of this conversation)",
          });
      }
      const now = Date.now();
      const draft: EventDraft = {
        type: "decision",
        ts: now,
        summary: summaryLine(`Decision: ${text}`),
        detail: { kind: "note", text },
        toolName: null,
        toolUseId: null,
        key: `note:${origin}:${now}:${Bun.hash(text).toString(36)}`,
      };
      const live = resolveLive(db, origin).id;
      insertEvents(
        db,
        {
          sessionId: chainKey(db, origin),
          originSessionId: origin,
          project: project ?? cwd,
          turnNumber: null,
        },
        [draft],
      );
      if (args.json)
        return printJson({
          schema: "throughline.note.v1",
          session: live,
          type: "decision",
          summary: draft.summary,
          ts: formatIso(now),
        });
      console.log(`Recorded decision in session ${live}: ${draft.summary}`);
    });
  },
});
