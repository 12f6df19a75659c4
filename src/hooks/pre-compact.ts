import { ingestUnread, peekUnread, readToTheEnd } from "../capture/unread.ts";
import { databasePath } from "../core/paths.ts";
import type { HookContext } from "./context.ts";

/**
 * Before Claude Code compacts, make sure every turn up to the boundary is stored (a manual
 * `/compact` between turns usually finds the last Stop read it all).
 */
export default function preCompact(ctx: HookContext): undefined {
  const dbPath = databasePath(ctx.env);
  // The last Stop's read mark says so without SQLite; else asked read-only, and the writer opens
  // (and the database is created) only to ingest.
  if (readToTheEnd(dbPath, ctx.sessionId, ctx.transcriptPath)) return undefined;
  if (peekUnread(dbPath, ctx.transcriptPath)) ingestUnread(ctx.db, ctx, ctx.now());
  return undefined;
}
