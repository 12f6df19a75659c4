import { ingestUnread, peekUnread, readToTheEnd } from "../capture/unread.ts";
import { databasePath } from "../core/paths.ts";
import { writeClearMark } from "../db/marks/clear.ts";
import { clientProcess } from "./client.ts";
import type { HookContext } from "./context.ts";

/**
 * SessionEnd has a 1.5 s budget in Claude Code. One incremental ingest reads only the bytes
 * written since the last Stop, which fits, and usually there are none (the Stop's read mark, or
 * its cursor and one stat, say so without loading the ingest); the next session's handoff
 * finishes anything left. On `reason: "clear"` it records which client process cleared this
 * session, so the session the same process starts next continues it (docs/hooks.md, "Which
 * session a /clear continues"): in a clear mark the next handoff folds in when there is nothing
 * to read, else in the database beside the ingest.
 */
export default async function sessionEnd(ctx: HookContext): Promise<undefined> {
  const now = ctx.now();
  const dbPath = databasePath(ctx.env);
  const readAll = readToTheEnd(dbPath, ctx.sessionId, ctx.transcriptPath);
  // Any other end writes nothing when the last Stop read it all.
  if (ctx.payload.reason !== "clear") {
    if (!readAll && peekUnread(dbPath, ctx.transcriptPath)) ingestUnread(ctx.db, ctx, now);
    return undefined;
  }
  const client = await clientProcess(ctx.env);
  const promptId = typeof ctx.payload.prompt_id === "string" ? ctx.payload.prompt_id : null;
  const cwd = typeof ctx.payload.cwd === "string" && ctx.payload.cwd ? ctx.payload.cwd : null;
  if (
    readAll &&
    (await writeClearMark(dbPath, {
      session_id: ctx.sessionId,
      cwd,
      client,
      prompt_id: promptId,
      created_at: now,
    }))
  )
    return undefined;
  // The link as a row: its queries load only on this path.
  const { insertClearLink } =
    require("../db/queries/handoff.ts") as typeof import("../db/queries/handoff.ts");
  insertClearLink(ctx.db, {
    session_id: ctx.sessionId,
    project: ctx.project,
    client,
    prompt_id: promptId,
    created_at: now,
  });
  ingestUnread(ctx.db, ctx, now);
  return undefined;
}
