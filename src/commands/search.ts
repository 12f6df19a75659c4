import { defineCommand } from "citty";
import { formatStamp } from "../core/activity-query.ts";
import { formatIso } from "../core/clock.ts";
import { commandLine, selfInvocation } from "../core/invocation.ts";
import { databasePath, joinPath, normalizeProject } from "../core/paths.ts";
import {
  groupByTurn,
  isSearchKind,
  type Ranked,
  rankCandidates,
  SEARCH_CANDIDATES,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_KINDS,
  type SearchHit,
  type SearchKind,
  snippet,
  textMatch,
} from "../core/search.ts";
import type { Database } from "../db/open.ts";
import { openForRead } from "../db/open.ts";
import { findProject, type Scope } from "../db/project.ts";
import { resolveChain } from "../db/queries/chain.ts";
import { searchCandidates, searchHits } from "../db/queries/search.ts";
import { ThroughlineError } from "../errors.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { parseCount } from "./_pull-args.ts";

const KIND_LABEL: Record<SearchKind, string> = { l2: "L2", l3: "L3", events: "event" };

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
    const live = resolveChain(db, args.session);
    return { scope: { kind: "chain", live }, label: `session ${live}` };
  }
  const here = joinPath(normalizeProject(cwd), args.project || ".");
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

function detailCommand(h: SearchHit): string {
  return commandLine(selfInvocation(), "detail", formatIso(h.at), "--session", h.session);
}

/** Every matching row of the scope, ranked best first (the newest SEARCH_CANDIDATES per index). */
export function rankedMatches(
  db: Database,
  scope: Scope,
  terms: readonly string[],
  kinds: readonly SearchKind[],
): { ranked: Ranked[]; capped: boolean; anyWord: boolean } {
  const run = (any: boolean) => {
    const q = { scope, ...textMatch(terms, any) };
    const found = kinds.map((k) => searchCandidates(db, k, q, SEARCH_CANDIDATES));
    const ranked = rankCandidates(
      found.map((f) => f.candidates),
      terms,
    );
    return { ranked, capped: found.some((f) => f.capped), anyWord: any };
  };
  const all = run(false);
  if (all.ranked.length === 0 && terms.length > 1) {
    const wider = run(true);
    if (wider.ranked.length > 0) return wider;
  }
  return all;
}

/** A result: the best row of one turn, and how many rows of each kind matched there. */
export interface TurnResult {
  hit: SearchHit;
  matched: { kind: SearchKind; label: string; rows: number }[];
}

/** The best `limit` turns for the terms (docs/search.md, "One result per turn"), with whether more matched. */
export function searchTurns(
  db: Database,
  scope: Scope,
  terms: readonly string[],
  kinds: readonly SearchKind[],
  limit: number,
): { results: TurnResult[]; more: boolean; anyWord: boolean } {
  const { ranked, capped, anyWord } = rankedMatches(db, scope, terms, kinds);
  const groups = groupByTurn(ranked);
  const shown = groups.slice(0, limit);
  const hits = new Map<string, SearchHit>();
  for (const k of kinds)
    for (const h of searchHits(
      db,
      k,
      shown.filter((g) => g.best.kind === k).map((g) => g.best),
    ))
      hits.set(`${h.kind}:${h.id}`, h);
  const results: TurnResult[] = [];
  for (const g of shown) {
    const hit = hits.get(`${g.best.kind}:${g.best.id}`);
    if (!hit) continue;
    const matched: TurnResult["matched"] = [];
    for (const m of g.members) {
      const same = matched.find((x) => x.kind === m.kind && x.label === m.label);
      if (same) same.rows++;
      else matched.push({ kind: m.kind, label: m.label, rows: 1 });
    }
    results.push({ hit, matched });
  }
  return { results, more: groups.length > limit || capped, anyWord };
}

/** `L3 tool_output Bash ×2`: what else matched in a result's turn. */
function alsoMatched(r: TurnResult): string | null {
  const rest = r.matched
    .map((m, i) => ({ ...m, rows: i === 0 ? m.rows - 1 : m.rows }))
    .filter((m) => m.rows > 0)
    .map((m) => `${KIND_LABEL[m.kind]} ${m.label}${m.rows > 1 ? ` ×${m.rows}` : ""}`);
  return rest.length > 0 ? rest.join(", ") : null;
}

export default defineCommand({
  meta: {
    name: "search",
    description:
      "Ranked full-text search over every turn's text (L2), details (L3) and activity events (read-only)",
  },
  args: {
    words: { type: "positional", required: true, description: "Words or quoted phrases (all must match)" },
    session: { type: "string", description: "Only this session's chain", valueHint: "id" },
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
    const terms = words.map((w) => w.trim());
    const db = openForRead(databasePath(process.env, args.db));
    try {
      const { scope, label } = resolveScope(
        db,
        {
          ...(args.session !== undefined ? { session: args.session } : {}),
          ...(args.project !== undefined ? { project: args.project } : {}),
          ...(args.all ? { all: true } : {}),
        },
        process.cwd(),
      );
      const res = searchTurns(db, scope, terms, kinds, limit);
      const anyWord = res.anyWord;
      const query = terms.join(" ");
      const moreCommand = commandLine(
        selfInvocation(),
        "search",
        ...terms,
        ...(args.kind ? ["--kind", args.kind] : []),
        "--limit",
        String(limit * 2),
      );
      if (args.json)
        return printJson({
          schema: "throughline.search.v1",
          query,
          scope: label,
          kinds,
          limit,
          any_word: anyWord,
          more: res.more,
          more_command: res.more ? moreCommand : null,
          results: res.results.map(({ hit: h, matched }, i) => ({
            rank: i + 1,
            kind: h.kind,
            label: h.label,
            score: h.score,
            snippet: snippet(h.text, terms),
            session: h.session,
            turn_key: h.turnNumber === null ? null : `${h.origin}:${h.turnNumber}`,
            time: formatIso(h.ts),
            detail_time: formatIso(h.at),
            detail_command: detailCommand(h),
            // Every row of the turn that matched, best first: the result stands for its turn.
            matched,
          })),
        });
      const out: string[] = [`## Search: ${query}`];
      if (res.results.length === 0) {
        out.push(
          `No match in ${label}${kinds.length === 1 ? ` (--kind ${kinds[0]})` : ""}.`,
          "",
          `Try fewer or other words${scope.kind === "all" ? "" : ", or --all to search every project"}. Words shorter than 3 characters only match as part of a longer text.`,
        );
        console.log(out.join("\n"));
        return;
      }
      out.push(
        `**Scope:** ${label} · best match first${anyWord ? " · no result held every word, showing results with any of them" : ""}`,
        "",
      );
      res.results.forEach((r, i) => {
        const h = r.hit;
        const turn = h.turnNumber === null ? "" : ` · turn ${h.turnNumber}`;
        const also = alsoMatched(r);
        out.push(
          `${i + 1}. [${KIND_LABEL[h.kind]} ${h.label}] ${formatStamp(h.ts)} · session ${h.session}${turn}`,
          `   ${snippet(h.text, terms)}`,
          ...(also ? [`   also in this turn: ${also}`] : []),
          `   → ${detailCommand(h)}`,
        );
      });
      if (res.more)
        out.push(
          "",
          `*(showing ${res.results.length}; more matched: \`${moreCommand}\`${kinds.length > 1 ? ", or narrow with --kind l2|l3|events" : ""})*`,
        );
      console.log(out.join("\n"));
    } finally {
      db.close();
    }
  },
});
