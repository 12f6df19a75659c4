import { ingestUnread, peekUnread, readToTheEnd } from "../capture/unread.ts";
import { databasePath } from "../core/paths.ts";
import type { HookContext } from "./context.ts";
import { HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "./flags.ts";

/**
 * Before Claude Code compacts, make sure every turn up to the boundary is stored (a manual
 * `/compact` between turns usually finds the last Stop read it all).
 */
export default async function preCompact(ctx: HookContext): Promise<undefined> {
  // Its follow-up: the push SessionStart(compact) will print, rehearsed while the client
  // compacts (src/hooks/push-ahead.ts).
  if (ctx.env[PUSH_AHEAD_ENV] === "1" && ctx.env[HOOK_WORKER_ENV] === "1") {
    await (require("./push-ahead.ts") as typeof import("./push-ahead.ts")).prepareCompactionAhead(ctx);
    return undefined;
  }
  const dbPath = databasePath(ctx.env);
  // The last Stop's read mark says so without SQLite; else asked read-only, and the writer opens
  // (and the database is created) only to ingest.
  if (!readToTheEnd(dbPath, ctx.sessionId, ctx.transcriptPath) && peekUnread(dbPath, ctx.transcriptPath))
    ingestUnread(ctx.db, ctx, ctx.now());
  if (ctx.env[PUSH_AHEAD_ENV] !== "0")
    ctx.followUp?.({ event: "pre-compact", payload: ctx.payload, env: { [PUSH_AHEAD_ENV]: "1" } });
  return undefined;
}
