import { databasePath, historyNoticePath } from "../core/paths.ts";
import { hasCompaction } from "../db/marks/compaction.ts";
import { type StartIntent, writeIntent } from "../db/marks/pending.ts";
import { clientProcess } from "./client.ts";
import type { HookContext } from "./context.ts";
import { HOOK_WORKER_ENV, PUSH_AHEAD_ENV } from "./flags.ts";

/**
 * SessionStart only records intent: Claude Code sometimes fires a second, ghost SessionStart
 * that never becomes a session, so nothing is handed over until the first prompt. On a clear or
 * a start it writes what it knows (source, client process, time of birth) into the session's
 * pending mark with one native write, and opens no database; the first prompt claims the
 * predecessor as of that birth (src/hooks/claim.ts, docs/hooks.md "Which session a /clear
 * continues"). Until the marks are kept (a database no writer has opened yet) it claims at once.
 */
export default async function sessionStart(ctx: HookContext): Promise<string | undefined> {
  // The follow-up SessionStart(clear) asked for (src/hooks/push-ahead.ts): the rehearsal only;
  // after a compaction printed ahead, the push's row (src/hooks/compacted.ts).
  if (ctx.env[PUSH_AHEAD_ENV] === "1" && ctx.env[HOOK_WORKER_ENV] === "1") {
    if (ctx.payload.source === "compact")
      await (require("./compacted.ts") as typeof import("./compacted.ts")).settleCompaction(ctx);
    else await (require("./push-ahead.ts") as typeof import("./push-ahead.ts")).prepareAhead(ctx);
    return undefined;
  }
  const out = await recordStart(ctx);
  // After a compaction stdout is the push, for the model; the notice waits for a plain start.
  if (out !== undefined || ctx.payload.source === "compact") return out;
  // The history notice counts Claude Code's transcripts, for Claude Code's screen.
  if (
    (require("../core/host.ts") as typeof import("../core/host.ts")).hostOfPath(ctx.transcriptPath) ===
    "codex"
  )
    return undefined;
  // Once: the history not in memory yet, for the user (src/hooks/history-notice.ts). After the
  // first time this is one stat of the marker.
  if (await Bun.file(historyNoticePath(ctx.env)).exists()) return undefined;
  return (require("./history-notice.ts") as typeof import("./history-notice.ts")).firstStartNotice(ctx.env);
}

async function recordStart(ctx: HookContext): Promise<string | undefined> {
  const source = typeof ctx.payload.source === "string" ? ctx.payload.source : "startup";
  const now = ctx.now();
  // The model's Bash knows its session (src/hooks/session-env.ts; loaded only when offered).
  if (ctx.env.CLAUDE_ENV_FILE)
    await (require("./session-env.ts") as typeof import("./session-env.ts")).exportSession(
      ctx.env.CLAUDE_ENV_FILE,
      ctx.sessionId,
    );
  // After a compaction the client kept its summary only: the push hands the turns back, printed
  // ahead when a rehearsal after PreCompact kept it (src/hooks/push-ahead.ts).
  if (source === "compact") {
    if (hasCompaction(databasePath(ctx.env), ctx.sessionId)) {
      const { printCompactionAhead } = require("./push-ahead.ts") as typeof import("./push-ahead.ts");
      const ahead = await printCompactionAhead(ctx);
      if (ahead !== null) return ahead;
    }
    const { default: compacted } = require("./compacted.ts") as typeof import("./compacted.ts");
    return compacted(ctx);
  }
  // A resume keeps its own continuity: nothing to hand over.
  if (source === "resume") {
    (require("./session-row.ts") as typeof import("./session-row.ts")).touchSession(ctx, now);
    return undefined;
  }
  const start: StartIntent = {
    session_id: ctx.sessionId,
    source,
    client: await clientProcess(ctx.env),
    prompt_id: typeof ctx.payload.prompt_id === "string" ? ctx.payload.prompt_id : null,
    created_at: now,
    cwd: typeof ctx.payload.cwd === "string" && ctx.payload.cwd ? ctx.payload.cwd : null,
    transcript_path: ctx.transcriptPath,
  };
  if (await writeIntent(databasePath(ctx.env), start)) {
    // The first prompt's push, rehearsed behind the client (src/hooks/push-ahead.ts), which this
    // hook does not load: asking is one call.
    if (source === "clear" && ctx.env[PUSH_AHEAD_ENV] !== "0")
      ctx.followUp?.({ event: "session-start", payload: ctx.payload, env: { [PUSH_AHEAD_ENV]: "1" } });
    return undefined;
  }
  const { claimStart } = require("./claim.ts") as typeof import("./claim.ts");
  const { writeTransaction } = require("../db/tx.ts") as typeof import("../db/tx.ts");
  // Which SessionEnds are still untaken is read, then claimed: one lock for both, so two
  // windows clearing at once cannot take the same predecessor. One commit for everything.
  writeTransaction(ctx.db, () => claimStart(ctx.db, start, ctx.project, ctx.env));
  return undefined;
}
