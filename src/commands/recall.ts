import { selfInvocation } from "../core/invocation.ts";
import { databasePath } from "../core/paths.ts";
import { PULL_MAX_BYTES } from "../core/turn-block.ts";
import { withReader } from "../db/open.ts";
import { summariesBefore, turnsBefore, turnsFrom } from "../db/queries/chain.ts";
import { resolveChainArg } from "../db/queries/session-arg.ts";
import { ThroughlineError } from "../errors.ts";
import { type RecallRequest, recallJson, renderRecallL1, renderRecallL2 } from "../render/pull.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";
import { envSession, parseBefore, parseCount, SESSION_ENV, terminalColors } from "./_pull-args.ts";

/**
 * `recall --l2 …` / `recall --l1 …` (docs/contract.md#pulls-read-only): the turns a push left out, selected only by the
 * arguments the push baked in (session, boundary, counts), so the answer never changes as the
 * chain grows. Without `--l1`/`--l2`, `recall` queries the activity index (docs/activity.md).
 */
export default defineCommand({
  meta: {
    name: "recall",
    examples: [
      "throughline recall edits",
      "throughline recall errors yesterday --all-sessions",
      "throughline recall --l2 --session 5e1f0c2a --before 2025-06-01T09:00:00Z --last 5",
    ],
    description:
      "Pull turns a push left out (--l2 full text, --l1 summaries), or query the activity index (words, --now, --all-sessions)",
  },
  args: {
    words: {
      type: "positional",
      required: false,
      description: "Activity query: a type (errors, edits, commits…), a time phrase, or keywords",
    },
    l2: { type: "boolean", description: "Full text (L2) of the newest --last turns before --before" },
    l1: { type: "boolean", description: "Summaries (L1) of every turn before --before, after --skip" },
    session: {
      type: "string",
      description: `Session id or a unique prefix (any session of the chain; default $${SESSION_ENV})`,
      valueHint: "id",
    },
    before: {
      type: "string",
      description: "Boundary: turns starting strictly before this ISO-8601 time",
      valueHint: "iso",
    },
    last: { type: "string", description: "How many turns (the newest ones)", valueHint: "n" },
    "newer-tools": {
      type: "string",
      description:
        "--l2: also the full tool lines of the first N turns from --before on (the turns a push showed whole, with brief tool lines)",
      valueHint: "n",
    },
    skip: { type: "string", description: "--l1: skip the newest N turns first", valueHint: "n" },
    project: { type: "string", description: "Activity: the project directory", valueHint: "dir" },
    "all-sessions": {
      type: "boolean",
      description: "Activity: every session of the project, not only the latest chain",
    },
    all: { type: "boolean", description: "Activity: every project (as in search, monitor and export)" },
    now: { type: "string", description: "Activity: reference time for time phrases", valueHint: "iso" },
    ...dbArgs,
    ...jsonArgs,
  },
  async run({ args }) {
    const words = args._.map(String);
    if (!args.l1 && !args.l2) {
      const { runActivityRecall } = await import("./_recall-activity.ts");
      await runActivityRecall({
        words,
        ...(args.session !== undefined ? { session: args.session } : {}),
        ...(args.project !== undefined ? { project: args.project } : {}),
        ...(args["all-sessions"] !== undefined ? { allSessions: args["all-sessions"] } : {}),
        ...(args.all !== undefined ? { all: args.all } : {}),
        ...(args.now !== undefined ? { now: args.now } : {}),
        ...(args.json !== undefined ? { json: args.json } : {}),
        ...(args.db !== undefined ? { db: args.db } : {}),
      });
      return;
    }
    const mode = args.l2 ? "l2" : "l1";
    const command = `recall --${mode}`;
    if (args.l1 && args.l2) throw new ThroughlineError("E_ARGS", "recall takes --l1 or --l2, not both");
    if (words.length > 0)
      throw new ThroughlineError(
        "E_ARGS",
        `${command} takes no words (got "${words.join(" ")}"); for a keyword query drop --${mode}`,
      );
    // An explicit --session wins over the session the model's Bash runs in.
    const session = args.session || envSession();
    if (!session)
      throw new ThroughlineError(
        "E_ARGS",
        `${command} needs --session <id> (or ${SESSION_ENV} set; the push prints the exact command)`,
      );
    const before = parseBefore(args.before, command);
    const last = parseCount("last", args.last, null);
    const skip = parseCount("skip", args.skip, 0) ?? 0;
    const newerCount = parseCount("newer-tools", args["newer-tools"], null);
    if (newerCount !== null && mode !== "l2")
      throw new ThroughlineError("E_ARGS", "--newer-tools goes with recall --l2");
    if (mode === "l2" && last === null)
      throw new ThroughlineError(
        "E_ARGS",
        "recall --l2 needs --last <N> (the push prints the exact command)",
      );
    withReader(databasePath(process.env, args.db), (db) => {
      const live = resolveChainArg(db, session);
      const req: RecallRequest = { sessionId: live, before, skip, last };
      const limits = { skip, limit: last };
      const c = args.json ? undefined : terminalColors();
      if (mode === "l2") {
        const turns = turnsBefore(db, live, before, limits);
        const newer = newerCount === null ? null : turnsFrom(db, live, before, newerCount);
        if (args.json) printJson(recallJson("l2", req, turns, newer));
        else console.log(renderRecallL2(req, turns, selfInvocation(), c, PULL_MAX_BYTES, newer));
      } else {
        const rows = summariesBefore(db, live, before, limits);
        if (args.json) printJson(recallJson("l1", req, rows));
        else console.log(renderRecallL1(req, rows, selfInvocation(), c));
      }
    });
  },
});
