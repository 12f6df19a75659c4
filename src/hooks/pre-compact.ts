import { ingestNamedSession } from "../capture/session.ts";
import type { HookContext } from "./context.ts";

/** Before Claude Code compacts, make sure every turn up to the boundary is stored. */
export default function preCompact(ctx: HookContext): undefined {
  ingestNamedSession(ctx.db, ctx, ctx.now());
  return undefined;
}
