import { ingestUnread, peekUnread } from "../capture/unread.ts";
import { databasePath } from "../core/paths.ts";
import { insertClearLink } from "../db/queries/handoff.ts";
import { clientProcess } from "./client.ts";
import type { HookContext } from "./context.ts";

/**
 * SessionEnd has a 1.5 s budget in Claude Code. One incremental ingest reads only the bytes
 * written since the last Stop, which fits, and usually there are none (its cursor and one stat
 * say so without loading the ingest); the next session's handoff finishes anything left.
 * On `reason: "clear"` it records which client process cleared this session, so the session
 * the same process starts next continues it (docs/hooks.md, "Which session a /clear continues").
 */
export default async function sessionEnd(ctx: HookContext): Promise<undefined> {
  const now = ctx.now();
  // Any other end writes nothing when the last Stop read it all: asked read-only first.
  if (ctx.payload.reason !== "clear") {
    if (peekUnread(databasePath(ctx.env), ctx.transcriptPath)) ingestUnread(ctx.db, ctx, now);
    return undefined;
  }
  insertClearLink(ctx.db, {
    session_id: ctx.sessionId,
    project: ctx.project,
    client: await clientProcess(ctx.env),
    prompt_id: typeof ctx.payload.prompt_id === "string" ? ctx.payload.prompt_id : null,
    created_at: now,
  });
  ingestUnread(ctx.db, ctx, now);
  return undefined;
}
