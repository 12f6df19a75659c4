/**
 * PostToolUse (async, docs/activity.md): record the activity of one tool call as it happens. The turn
 * number is not known yet (the turn is ingested at Stop); the transcript capture fills it in
 * later under the same tool_use_id key, so the two paths never duplicate an event.
 */
import { extractEvents, redactEvent, toolCallFromPostToolUse } from "../core/events.ts";
import { claudeConfigDir } from "../core/paths.ts";
import { sessionIndexEnabled } from "../core/session-index.ts";
import { insertEvents } from "../db/queries/events.ts";
import { chainKey } from "../db/queries/sessions.ts";
import { ThroughlineError } from "../errors.ts";
import type { HookContext } from "./context.ts";

export default function postToolUse(ctx: HookContext): Promise<undefined> | undefined {
  const now = ctx.now();
  const call = toolCallFromPostToolUse(ctx.payload, now);
  if (!call) throw new ThroughlineError("E_PAYLOAD", "payload has no tool_name");
  let drafts = extractEvents(call).map(redactEvent);
  if (!call.id) {
    // Older Claude Code (mid-2025) sent no tool_use_id: key the events on the call's content
    // and time instead. A later replay cannot match these keys; see docs/activity.md.
    const key = `hook:${ctx.sessionId}:${now}:${Bun.hash(JSON.stringify([call.name, call.input])).toString(36)}`;
    drafts = drafts.map((d) => ({ ...d, key }));
  }
  if (drafts.length === 0) return;
  insertEvents(
    ctx.db,
    {
      sessionId: chainKey(ctx.db, ctx.sessionId),
      originSessionId: ctx.sessionId,
      project: ctx.project,
      turnNumber: null,
    },
    drafts,
  );
  // Opt-in (docs/monitor.md): keep the /recall skill's session-index files current.
  if (sessionIndexEnabled(ctx.env)) return appendIndex(ctx);
}

async function appendIndex(ctx: HookContext): Promise<undefined> {
  const { appendSessionIndex } = await import("../capture/session-index.ts");
  appendSessionIndex(ctx.db, claudeConfigDir(ctx.env), ctx.sessionId);
}
