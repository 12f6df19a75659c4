import { candidateWindows, parseWhen, type TimeWindow } from "../core/clock.ts";
import { commandLine, selfInvocation, shellQuote } from "../core/invocation.ts";
import { databasePath, normalizeProject } from "../core/paths.ts";
import { withReader } from "../db/open.ts";
import { findProject, type Scope } from "../db/project.ts";
import { resolveChain, type TurnText } from "../db/queries/chain.ts";
import { detailsOf, itemOf, scopeSpan, turnsDuring } from "../db/queries/scope.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { ThroughlineError } from "../errors.ts";
import { type DetailView, detailJson, renderDetail, renderItem } from "../render/detail.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";
import { envChain, parseCount, SESSION_ENV, terminalColors } from "./_pull-args.ts";

export const DETAIL_LIMIT = 5;

/**
 * `detail <when>` (docs/contract.md#pulls-read-only): whole turns (both L2 rows) and all their L3, grouped by kind,
 * a page at a time (render/detail.ts renderDetail); `detail --item <ref>` one stored item whole, paged.
 * Clock times are placed on the dates the scope's turns really have, newest first.
 */
export default defineCommand({
  meta: {
    name: "detail",
    examples: ["throughline detail 09:13", "throughline detail 09:10-09:20 --session 5e1f0c2a"],
    description: "Show the turns under way at a time (HH:MM, HH:MM:SS, A-B or ISO) with all their detail",
  },
  args: {
    when: {
      type: "positional",
      required: false,
      description: "HH:MM, HH:MM:SS, a range A-B, or ISO-8601",
      valueHint: "when",
    },
    session: {
      type: "string",
      description: `Session id or a unique prefix (default: $${SESSION_ENV}'s chain, else every session of the current project)`,
      valueHint: "id",
    },
    limit: {
      type: "string",
      description: `At most this many turns per page (default ${DETAIL_LIMIT}; 0 = all that fit)`,
      valueHint: "n",
    },
    skip: {
      type: "string",
      description: "Skip the first N matching turns (the next page; the output prints the command)",
      valueHint: "n",
    },
    "max-chars": {
      type: "string",
      description:
        "Cut each item at this many characters (default 0: as long as the page allows; a page is at most 24,000 characters)",
      valueHint: "n",
    },
    item: {
      type: "string",
      description: "Show one stored item whole (the ref a cut item names), a page at a time",
      valueHint: "ref",
    },
    offset: {
      type: "string",
      description: "--item: start at this character (the next page)",
      valueHint: "n",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    if (args.item !== undefined) return showItem(args.item, args.offset, args.db, args.json === true);
    const query = [args.when, ...args._.slice(args.when ? 1 : 0)].filter(Boolean).join(" ");
    if (!query)
      throw new ThroughlineError("E_ARGS", "detail needs a time: HH:MM, HH:MM:SS, a range A-B, or ISO-8601");
    const spec = parseWhen(query);
    const limit = parseCount("limit", args.limit, DETAIL_LIMIT) ?? DETAIL_LIMIT;
    const maxChars = parseCount("max-chars", args["max-chars"], 0) ?? 0;
    const skip = parseCount("skip", args.skip, 0) ?? 0;
    withReader(databasePath(process.env, args.db), (db) => {
      let scope: Scope;
      let scopeText: string;
      // An explicit --session, else the session the model's Bash runs in, else the project.
      let session: string | undefined = args.session || undefined;
      const fromEnv = session ? null : envChain(db);
      if (session) {
        session = sessionIdFor(db, session);
        scope = { kind: "chain", live: resolveChain(db, session) };
        scopeText = `session ${scope.live}`;
      } else if (fromEnv) {
        session = fromEnv.id;
        scope = { kind: "chain", live: fromEnv.live };
        scopeText = `session ${scope.live}`;
      } else {
        const cwd = normalizeProject(process.cwd());
        const project = findProject(db, cwd);
        if (project === null)
          throw new ThroughlineError(
            "E_NO_PROJECT",
            `no session recorded for ${cwd} or a directory above it`,
            { hint: "pass --session <id>" },
          );
        scope = { kind: "project", project };
        scopeText = `project ${project}`;
      }
      let found: TurnText[] = [];
      let window: TimeWindow | null = null;
      const span = scopeSpan(db, scope);
      if (span)
        for (const w of candidateWindows(spec, span)) {
          window ??= w;
          const turns = turnsDuring(db, scope, w);
          if (turns.length > 0) {
            found = turns;
            window = w;
            break;
          }
        }
      const shown = limit > 0 ? found.slice(skip, skip + limit) : found.slice(skip);
      const again = [
        commandLine(selfInvocation(), "detail", query),
        // Printed commands name their session, wherever it came from.
        ...(session ? ["--session", session] : []),
        ...(args.limit !== undefined ? ["--limit", String(limit)] : []),
        ...(args["max-chars"] !== undefined ? ["--max-chars", String(maxChars)] : []),
      ];
      const view: DetailView = {
        query,
        scope: scopeText,
        window,
        total: found.length,
        limit,
        skip,
        maxChars,
        command: selfInvocation(),
        again: again.map((a, i) => (i === 0 ? a : shellQuote(a))).join(" "),
        turns: shown,
        details: detailsOf(
          db,
          shown.map((t) => t.id),
        ),
      };
      if (args.json) printJson(detailJson(view));
      else console.log(renderDetail(view, terminalColors()));
    });
  },
});

function showItem(
  ref: string,
  offsetArg: string | undefined,
  dbArg: string | undefined,
  json: boolean,
): void {
  const offset = parseCount("offset", offsetArg, 0) ?? 0;
  withReader(databasePath(process.env, dbArg), (db) => {
    const item = itemOf(db, ref.trim());
    if (item === null)
      throw new ThroughlineError("E_NO_ITEM", `no item ${ref} in this database`, {
        hint: "a cut item in `detail` output names its ref (`detail --item <ref>`)",
      });
    if (json)
      printJson({
        schema: "throughline.item.v1",
        ref,
        turn_key: item.turnKey,
        label: item.label,
        text: item.text,
      });
    else console.log(renderItem(item, ref.trim(), Math.min(offset, item.text.length), selfInvocation()));
  });
}
