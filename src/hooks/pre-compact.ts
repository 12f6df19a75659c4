import { ingestUnread, peekUnread } from "../capture/unread.ts";
import { databasePath } from "../core/paths.ts";
import type { HookContext } from "./context.ts";

/**
 * Before Claude Code compacts, make sure every turn up to the boundary is stored (a manual
 * `/compact` between turns usually finds the last Stop read it all).
 */
export default function preCompact(ctx: HookContext): undefined {
  // Asked read-only first: the writer opens (and the database is created) only to ingest.
  if (peekUnread(databasePath(ctx.env), ctx.transcriptPath)) ingestUnread(ctx.db, ctx, ctx.now());
  return undefined;
}
