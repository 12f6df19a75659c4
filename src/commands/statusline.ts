/**
 * `throughline statusline` (docs/monitor.md): Claude Code runs a `statusLine` command after
 * each change and shows its first line under the input box. It reads the session's JSON on
 * stdin and prints context used of the window, the turns memory holds, and a handoff marker.
 * Runs as often as a hook: it imports only what the line needs and never creates the database.
 * No `node:` module on its way (~2 ms cold, docs/benchmarks.md): the database is looked for with
 * `Bun.file`, and the transcript's tail (node:fs) is read only when the payload has no usage. What
 * it last read of the database is kept per session in the marks directory (src/db/marks/):
 * while the database files are unchanged, no SQLite is loaded at all.
 */
import type { CommandDef } from "citty";
import { type JsonObject, parseLine } from "../core/jsonl.ts";
import { databasePath } from "../core/paths.ts";
import { detectWindow, payloadUsage } from "../core/usage.ts";
import { hasIntent } from "../db/marks/pending.ts";
import { statusFacts } from "../db/status-facts.ts";
import { renderStatusline, type StatuslineView } from "../render/statusline.ts";

export async function statuslineView(
  payload: JsonObject,
  env: Record<string, string | undefined>,
  dbFlag?: string,
): Promise<StatuslineView> {
  const p = payloadUsage(payload);
  let used = p.used;
  let peak = used ?? 0;
  let model = p.modelId;
  if (used === null && typeof payload.transcript_path === "string" && payload.transcript_path) {
    const { transcriptUsage } =
      require("../capture/transcript-tail.ts") as typeof import("../capture/transcript-tail.ts");
    const t = transcriptUsage(payload.transcript_path);
    used = t.used;
    peak = Math.max(peak, t.peak);
    model ??= t.model;
  }
  const window = detectWindow({ model, displayName: p.displayName, peak, reported: p.reported });
  let turns: number | null = null;
  let handoff: StatuslineView["handoff"] = null;
  const dbPath = databasePath(env, dbFlag);
  if (typeof payload.session_id === "string" && payload.session_id && Bun.file(dbPath).size > 0) {
    try {
      const sid = payload.session_id;
      const f = await statusFacts(dbPath, sid);
      turns = f.turns;
      // A SessionStart the first prompt has not folded in yet is pending too (its intent mark).
      handoff = f.pending || hasIntent(dbPath, sid) ? "pending" : f.baton ? "baton" : null;
    } catch {
      // A status line never fails: without a readable database it shows the context only.
    }
  }
  return { used, window: window.size, turns, handoff };
}

/** The line for the payload on stdin; `src/cli.ts` may call this directly, without citty. */
export async function runStatusline(json = false, db?: string): Promise<void> {
  const payload = parseLine(await Bun.stdin.text()) ?? {};
  const view = await statuslineView(payload, process.env, db);
  const text = json
    ? JSON.stringify({ schema: "throughline.statusline.v1", ...view, line: renderStatusline(view) })
    : renderStatusline(view);
  await Bun.write(Bun.stdout, `${text}\n`);
}

// A plain object, not defineCommand: importing citty here would cost the fast path its lead.
const command: CommandDef<{
  json: { type: "boolean"; description: string };
  db: { type: "string"; description: string; valueHint: string };
}> = {
  meta: {
    name: "statusline",
    examples: ["throughline statusline < session.json"],
    description:
      "One status line for Claude Code's statusLine setting: context used of the window, turns in memory, pending handoff (reads the session JSON on stdin)",
  },
  args: {
    json: { type: "boolean", description: "Print the facts as JSON instead of the line" },
    db: {
      type: "string",
      description: "Database file (default: $THROUGHLINE_DB or $THROUGHLINE_HOME/throughline.db)",
      valueHint: "path",
    },
  },
  run: ({ args }) => runStatusline(args.json === true, args.db),
};
export default command;
