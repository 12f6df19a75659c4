import { formatIso } from "../core/clock.ts";
import { withNearest } from "../core/did-you-mean.ts";
import { commandLine, selfInvocation } from "../core/invocation.ts";
import { databasePath, joinPath, normalizeProject } from "../core/paths.ts";
import {
  isSearchKind,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_KINDS,
  type SearchHit,
  type SearchKind,
  termIndexable,
} from "../core/search.ts";
import type { Database } from "../db/open.ts";
import { withReader } from "../db/open.ts";
import { findProject, type Scope } from "../db/project.ts";
import { resolveChainArg } from "../db/queries/session-arg.ts";
import { ThroughlineError } from "../errors.ts";
import { heldAsTyped, rankedMatches, searchTurns, type TurnResult } from "../read/search-turns.ts";
import { renderSearch, type SearchView, searchJson } from "../render/search.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";
import { envChain, parseCount, SESSION_ENV } from "./_pull-args.ts";

function resolveScope(
  db: Database,
  args: { session?: string; project?: string; all?: boolean },
  cwd: string,
): { scope: Scope; label: string } {
  const picked = [args.session !== undefined, args.project !== undefined, args.all === true].filter(Boolean);
  if (picked.length > 1)
    throw new ThroughlineError("E_ARGS", "search takes one scope: --session <id>, --project <dir> or --all");
  if (args.all) return { scope: { kind: "all" }, label: "every project" };
  if (args.session !== undefined) {
    const live = resolveChainArg(db, args.session);
    return { scope: { kind: "chain", live }, label: `session ${live}` };
  }
  // No scope given: the session the model's Bash runs in, else the current project.
  const fromEnv = args.project === undefined ? envChain(db) : null;
  if (fromEnv) return { scope: { kind: "chain", live: fromEnv.live }, label: `session ${fromEnv.live}` };
  const here = joinPath(normalizeProject(cwd), args.project || ".");
  // Only a directory the database knows is searched; `resolveProject` would also name an unknown one.
  const project = findProject(db, here);
  if (project === null) {
    if (args.project)
      throw new ThroughlineError("E_NO_PROJECT", `no session recorded for ${here} or a directory above it`, {
        hint: `\`${selfInvocation()} status\` lists the projects it holds; --all searches all of them`,
      });
    return { scope: { kind: "all" }, label: `every project (nothing recorded for ${here})` };
  }
  return { scope: { kind: "project", project }, label: `project ${project}` };
}

export { rankedMatches, searchTurns, type TurnResult };

/**
 * The commands a search prints to go on from what it found (docs/search.md, "Nearest words"): more
 * results, the query again with the nearest words for those no row holds, and every project when
 * nothing here (or a word no row here holds) matched and another project holds them. Each repeats
 * the scope (`again`) and kind the search was given.
 */
function waysBack(
  db: Database,
  q: {
    scope: Scope;
    given: readonly string[];
    kinds: readonly SearchKind[];
    limit: number;
    again: readonly string[];
    kind: string | undefined;
  },
  res: ReturnType<typeof searchTurns>,
): Pick<SearchView, "moreCommand" | "unheld" | "retryCommand" | "widerCommand"> {
  const { scope, given, kinds, again } = q;
  const kindArgs = q.kind ? ["--kind", q.kind] : [];
  // A word that starts with `-` would read as a flag: then the flags come first, and `--` before the words.
  const search = (words: readonly string[], ...flags: string[]) =>
    commandLine(
      selfInvocation(),
      "search",
      ...(words.some((w) => w.startsWith("-")) ? [...flags, "--", ...words] : [...words, ...flags]),
    );
  const retried = withNearest(given, res.unheld);
  // The words alone are looked for everywhere, and only when something is missing here; only words
  // the index can look up (a word of one or two letters would be a scan of every row).
  const missing =
    res.results.length === 0
      ? res.queryTerms.filter((t) => !t.hidden && termIndexable(t)).map((t) => t.text)
      : res.unheld.map((u) => u.term);
  const wider =
    scope.kind !== "all" && missing.length > 0 && heldAsTyped(db, { kind: "all" }, missing, kinds);
  return {
    moreCommand: search(given, ...again, ...kindArgs, "--limit", String(q.limit * 2)),
    unheld: res.unheld,
    ...(retried ? { retryCommand: search(retried, ...again, ...kindArgs) } : {}),
    ...(wider ? { widerCommand: search(given, "--all", ...kindArgs) } : {}),
  };
}

function detailCommand(h: SearchHit): string {
  return commandLine(selfInvocation(), "detail", formatIso(h.at), "--session", h.session);
}

export default defineCommand({
  meta: {
    name: "search",
    examples: [
      'throughline search "why did the users migration fail"',
      "throughline search blocky --kind l2 --all",
    ],
    description:
      'Find past turns by a plain question or words, quoted or not (read-only): search "why did the users migration fail". Searches every turn\'s text (L2), tool calls and outputs (L3) and activity events',
  },
  args: {
    words: {
      type: "positional",
      required: true,
      description:
        "A question or words. Question and stop words drop out; each word also finds its forms (migrate, migration) and common synonyms (linter: eslint, biome); identifiers match whole and by parts; a quoted 2-3 word span also counts as a phrase. Of the turns holding the most words, those saying the most of them together come first. A word no row holds is named, with the nearest words this memory holds and the command to search again",
    },
    session: {
      type: "string",
      description: `Only the chain of this session (id or unique prefix; default: $${SESSION_ENV}'s, else the current project)`,
      valueHint: "id",
    },
    project: {
      type: "string",
      description: "Only this project (default: the current one)",
      valueHint: "dir",
    },
    all: { type: "boolean", description: "Every project" },
    kind: { type: "string", description: "Only one index: l2, l3 or events", valueHint: "l2|l3|events" },
    limit: {
      type: "string",
      description: `How many results (default ${SEARCH_DEFAULT_LIMIT})`,
      valueHint: "n",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const words = (args._.length > 0 ? args._ : [args.words]).map(String).filter((w) => w.trim() !== "");
    if (words.length === 0) throw new ThroughlineError("E_ARGS", "search needs at least one word");
    const limit = parseCount("limit", args.limit, SEARCH_DEFAULT_LIMIT) ?? SEARCH_DEFAULT_LIMIT;
    if (limit === 0) throw new ThroughlineError("E_ARGS", "--limit must be at least 1");
    let kinds: readonly SearchKind[] = SEARCH_KINDS;
    if (args.kind !== undefined) {
      if (!isSearchKind(args.kind))
        throw new ThroughlineError("E_ARGS", `--kind must be l2, l3 or events; got "${args.kind}"`);
      kinds = [args.kind];
    }
    withReader(databasePath(process.env, args.db), (db) => {
      const { scope, label } = resolveScope(
        db,
        {
          ...(args.session !== undefined ? { session: args.session } : {}),
          ...(args.project !== undefined ? { project: args.project } : {}),
          ...(args.all ? { all: true } : {}),
        },
        process.cwd(),
      );
      const given = words.map((w) => w.trim());
      const res = searchTurns(db, scope, given, kinds, limit);
      // The scope as given, for the commands the output prints.
      const again = [
        ...(args.session !== undefined ? ["--session", args.session] : []),
        ...(args.project !== undefined ? ["--project", args.project] : []),
        ...(args.all ? ["--all"] : []),
      ];
      const view: SearchView = {
        query: given.join(" "),
        terms: res.terms,
        matchTerms: res.queryTerms,
        scopeLabel: label,
        scopeAll: scope.kind === "all",
        kinds,
        limit,
        anyWord: res.anyWord,
        more: res.more,
        ...waysBack(db, { scope, given, kinds, limit, again, kind: args.kind }, res),
        results: res.results.map((r) => ({
          ...r,
          detailCommand: detailCommand(r.hit),
          ...(r.hit.kind === "l3"
            ? { itemCommand: commandLine(selfInvocation(), "detail", "--item", String(r.hit.id)) }
            : {}),
        })),
      };
      if (args.json) return printJson(searchJson(view));
      console.log(renderSearch(view));
    });
  },
});
