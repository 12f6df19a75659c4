/**
 * The first SessionStart tells the user, once, how much of their history is not in memory yet
 * (src/capture/history.ts): the plugin has no install step to say it. The marker
 * `$THROUGHLINE_HOME/history-notice` is created first, exclusively, so two windows starting at
 * once say it once, and every later SessionStart only checks that it exists (src/hooks/session-start.ts):
 * this module, the scan and node:fs load on that first start only. The line goes out as the hook's JSON
 * `systemMessage`, which Claude Code shows to the user and does not give the model (docs/hooks.md).
 */
import { claimNotice, historyNotice, type Ingested, scanHistory } from "../capture/history.ts";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath, type Env } from "../core/paths.ts";
import { openForRead } from "../db/open.ts";
import { ingestedTranscripts } from "../db/queries/cursors.ts";

/** What the database has read, or null when there is none yet (nothing is in memory). */
function ingested(env: Env): Ingested | null {
  let db: ReturnType<typeof openForRead>;
  try {
    db = openForRead(databasePath(env));
  } catch {
    return null;
  }
  try {
    return ingestedTranscripts(db);
  } finally {
    db.close();
  }
}

/** The hook's stdout: `{"systemMessage": …}` the first time there is history to import, else nothing. */
export function firstStartNotice(env: Env): string | undefined {
  if (!claimNotice(env)) return undefined;
  const text = historyNotice(scanHistory(env, ingested(env)), selfInvocation());
  return text ? JSON.stringify({ systemMessage: `throughline: ${text}` }) : undefined;
}
