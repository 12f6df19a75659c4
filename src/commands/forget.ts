/**
 * `throughline forget` (docs/memory-control.md): delete turns, their L2 and L3 rows, summaries,
 * events and full-text index entries for good, then rewrite the file so that the bytes are in
 * neither the database nor its WAL. The plan is read on a read-only connection (all that
 * `--dry-run` does); the deletion runs in one IMMEDIATE transaction.
 */

import { isatty } from "node:tty";
import { formatIso, instantFlag } from "../core/clock.ts";
import { databasePath, joinPath, normalizeProject } from "../core/paths.ts";
import { clip, plural } from "../core/text.ts";
import { dropAllAhead } from "../db/marks/ahead.ts";
import { openForRead, openForWrite } from "../db/open.ts";
import { resolveProject } from "../db/project.ts";
import {
  deleteSelection,
  type ForgetCounts,
  type ForgetPlan,
  type ForgetSelector,
  planForget,
  scrub,
} from "../db/queries/forget.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { writeTransaction } from "../db/tx.ts";
import { oneLine, ThroughlineError } from "../errors.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

/** How many turns the human listing names before it says "and N more". */
const LISTED = 20;

function describe(c: ForgetCounts): string {
  return `${plural(c.turns, "turn")} (${plural(c.bodies, "L2 row")}, ${plural(c.details, "L3 row")}, ${plural(
    c.summaries,
    "summary",
    "summaries",
  )}), ${plural(c.events, "event")} and ${plural(c.sessions, "session record")}`;
}

function isEmpty(c: ForgetCounts): boolean {
  return c.turns + c.bodies + c.details + c.events + c.summaries + c.sessions === 0;
}

function listing(plan: ForgetPlan): string[] {
  const lines = plan.turns.slice(0, LISTED).map((t) => {
    const head = oneLine(t.head.replace(/\s+/g, " ").trim());
    return `  ${formatIso(t.started_at)}  ${t.origin_session_id}:${t.turn_number}  ${clip(head, 70, "…")}`;
  });
  if (plan.turns.length > LISTED) lines.push(`  … and ${plan.turns.length - LISTED} more`);
  return lines;
}

function selectorJson(sel: ForgetSelector) {
  return {
    session: sel.session,
    before: sel.before === null ? null : formatIso(sel.before),
    project: sel.project,
    match: sel.match,
  };
}

function parseSelector(args: {
  session?: string | undefined;
  before?: string | undefined;
  project?: string | undefined;
  match?: string | undefined;
}): ForgetSelector {
  const given = [args.session, args.before, args.project, args.match].filter((v) => v !== undefined);
  if (given.length === 0)
    throw new ThroughlineError(
      "E_ARGS",
      "forget needs what to forget: --session <id>, --before <date>, --project <dir> or --match <words>",
    );
  for (const [name, v] of Object.entries(args))
    if (v !== undefined && String(v).trim() === "")
      throw new ThroughlineError("E_ARGS", `--${name} needs a value`);
  let before: number | null = null;
  if (args.before !== undefined) before = instantFlag("--before", args.before);
  return {
    session: args.session ?? null,
    before,
    project: args.project === undefined ? null : joinPath(normalizeProject(process.cwd()), args.project),
    match: args.match ?? null,
  };
}

export default defineCommand({
  meta: {
    name: "forget",
    examples: [
      "throughline forget --session 5e1f0c2a --dry-run",
      'throughline forget --match "sk-live-" --yes',
    ],
    description:
      "Delete memory for good: turns (L2, L3, summaries), events and their search index, then rewrite the database so the text is in neither the file nor its WAL. Several selectors narrow each other.",
  },
  args: {
    session: {
      type: "string",
      description: "A session's own turns (by its id or a unique prefix)",
      valueHint: "id",
    },
    before: {
      type: "string",
      description: "Turns started before this date (YYYY-MM-DD, UTC midnight, or ISO-8601)",
      valueHint: "date",
    },
    project: { type: "string", description: "Every session of this project directory", valueHint: "dir" },
    match: {
      type: "string",
      description:
        "Every turn holding this text anywhere: prompt, reply, tool calls and output, summary, events (case-insensitive for ASCII)",
      valueHint: "words",
    },
    "dry-run": { type: "boolean", description: "Show what would be forgotten; change nothing" },
    yes: {
      type: "boolean",
      description: "Do not ask for confirmation (needed when stdin is not a terminal)",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const sel = parseSelector({
      session: args.session,
      before: args.before,
      project: args.project,
      match: args.match,
    });
    const path = databasePath(process.env, args.db);
    const reader = openForRead(path);
    let plan: ForgetPlan;
    try {
      // A directory as the database knows it (rows written before project identity followed git).
      if (sel.project !== null) sel.project = resolveProject(reader, sel.project, "/");
      // A unique prefix names its session; an id nothing starts with has nothing to forget.
      if (sel.session !== null) sel.session = sessionIdFor(reader, sel.session, true);
      plan = planForget(reader, sel);
    } finally {
      reader.close();
    }
    const dryRun = args["dry-run"] === true;
    if (dryRun || isEmpty(plan.counts)) {
      if (args.json)
        return printJson({
          schema: "throughline.forget.v1",
          dry_run: dryRun,
          selector: selectorJson(sel),
          counts: plan.counts,
          turns: plan.turns.map((t) => ({
            turn_key: `${t.origin_session_id}:${t.turn_number}`,
            started_at: formatIso(t.started_at),
          })),
          sessions: plan.sessions,
          wal_truncated: null,
        });
      if (isEmpty(plan.counts)) return console.log("Nothing matches; nothing changed.");
      console.log(`Would forget ${describe(plan.counts)} from ${path}:`);
      for (const line of listing(plan)) console.log(line);
      console.log("Dry run: nothing changed.");
      return;
    }
    if (!args.yes) {
      if (!isatty(0))
        throw new ThroughlineError(
          "E_CONFIRM",
          "forget deletes for good and stdin is not a terminal to ask on: pass --yes (or --dry-run to look first)",
        );
      console.log(`This forgets ${describe(plan.counts)} from ${path}:`);
      for (const line of listing(plan)) console.log(line);
      if (!confirm("Forget them for good?")) return console.log("Nothing changed.");
    }
    const db = openForWrite(path);
    let counts: ForgetCounts;
    let walTruncated: boolean;
    try {
      counts = writeTransaction(db, () => deleteSelection(db, sel));
      // The pushes rehearsed for a first prompt are copies of turns too (docs/hooks.md).
      dropAllAhead(path);
      walTruncated = scrub(db).walTruncated;
    } finally {
      db.close();
    }
    if (args.json)
      printJson({
        schema: "throughline.forget.v1",
        dry_run: false,
        selector: selectorJson(sel),
        counts,
        turns: plan.turns.map((t) => ({
          turn_key: `${t.origin_session_id}:${t.turn_number}`,
          started_at: formatIso(t.started_at),
        })),
        sessions: plan.sessions,
        wal_truncated: walTruncated,
      });
    else
      console.log(
        `Forgot ${describe(counts)}; the database was rewritten (VACUUM)${walTruncated ? " and its WAL emptied" : ""}.`,
      );
    if (!walTruncated) {
      // SQLite empties and removes the WAL when the last connection closes.
      console.error(
        `throughline: another process kept ${path}-wal from being emptied; old copies of the text stay in it until the last connection to the database closes`,
      );
      process.exitCode = 1;
    }
  },
});
