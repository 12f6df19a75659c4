import { defineCommand } from "citty";
import { candidateWindows, parseWhen, type TimeWindow } from "../core/clock.ts";
import { databasePath, normalizeProject } from "../core/paths.ts";
import { openForRead } from "../db/open.ts";
import { findProject, type Scope } from "../db/project.ts";
import { detailsOf, resolveChain, scopeSpan, type TurnText, turnsDuring } from "../db/queries/chain.ts";
import { ThroughlineError } from "../errors.ts";
import { type DetailView, detailJson, renderDetail } from "../render/pull.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { parseCount, terminalColors } from "./_pull-args.ts";

export const DETAIL_LIMIT = 5;
export const DETAIL_MAX_CHARS = 4000;

/**
 * `detail <when>` (docs/contract.md#pulls-read-only): whole turns (both L2 rows) and all their L3, grouped by kind.
 * Clock times are placed on the dates the scope's turns really have, newest first.
 */
export default defineCommand({
  meta: {
    name: "detail",
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
      description: "Session id (default: every session of the current project)",
      valueHint: "id",
    },
    limit: {
      type: "string",
      description: `At most this many turns (default ${DETAIL_LIMIT}; 0 = all)`,
      valueHint: "n",
    },
    "max-chars": {
      type: "string",
      description: `Cut each tool input/output and note at this many characters (default ${DETAIL_MAX_CHARS}; 0 = no cut)`,
      valueHint: "n",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const query = [args.when, ...args._.slice(args.when ? 1 : 0)].filter(Boolean).join(" ");
    if (!query)
      throw new ThroughlineError("E_ARGS", "detail needs a time: HH:MM, HH:MM:SS, a range A-B, or ISO-8601");
    const spec = parseWhen(query);
    const limit = parseCount("limit", args.limit, DETAIL_LIMIT) ?? DETAIL_LIMIT;
    const maxChars = parseCount("max-chars", args["max-chars"], DETAIL_MAX_CHARS) ?? DETAIL_MAX_CHARS;
    const db = openForRead(databasePath(process.env, args.db));
    try {
      let scope: Scope;
      let scopeText: string;
      if (args.session) {
        scope = { kind: "chain", live: resolveChain(db, args.session) };
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
      const shown = limit > 0 ? found.slice(0, limit) : found;
      const view: DetailView = {
        query,
        scope: scopeText,
        window,
        total: found.length,
        limit,
        maxChars,
        turns: shown,
        details: detailsOf(
          db,
          shown.map((t) => t.id),
        ),
      };
      if (args.json) printJson(detailJson(view));
      else console.log(renderDetail(view, terminalColors()));
    } finally {
      db.close();
    }
  },
});
