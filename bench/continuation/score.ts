/**
 * The stand-in model's reading of the product's output, and the tallies: which commands the push
 * prints, which search hit it follows, what Claude Code's Bash tool shows of an output, why a
 * fact was missed, and the totals over cuts. Pure; the process-running half is continuation.ts.
 */
import type { Fact, FactKind, FactStats } from "./facts.ts";
import { cpHead, cpLength, round4, strip, WS } from "./text.ts";

/** Claude Code 2.1: "Output too large … Preview (first 2KB)". */
export const PREVIEW_CHARS = 2000;
/** Outputs longer than this reach the model as their first PREVIEW_CHARS only (Claude Code's Bash tool). */
export const BASH_VIEW_LIMIT = 30_000;

const BQ_CMD = /`([^`\n]+)`/g;

/** The first backquoted `recall --l2`, `recall --l1` and `… search <words>` commands of the push. */
export function printedCommands(push: string): {
  l2: string | null;
  l1: string | null;
  search: string | null;
} {
  let l2: string | null = null;
  let l1: string | null = null;
  let search: string | null = null;
  for (const [, c] of push.matchAll(BQ_CMD)) {
    if (c!.includes(" recall --l2 ") && l2 === null) l2 = c!;
    else if (c!.includes(" recall --l1 ") && l1 === null) l1 = c!;
    else if (c!.endsWith(" search <words>") && search === null) search = c!;
  }
  return { l2, l1, search };
}

/** What Claude Code's Bash tool shows the model of an output (2.1.x persists long ones). */
export function bashView(out: string, limit: number): { view: string; cut: boolean } {
  if (limit && cpLength(out) > limit) return { view: cpHead(out, PREVIEW_CHARS), cut: true };
  return { view: out, cut: false };
}

// Python's `^`/`$` under re.M and its `.`: lines end at `\n` only.
const SEARCH_HIT = new RegExp(`(?<![^\\n])\\d+\\. \\[[^\\n]*· turn (\\d+)[${WS}]*?(?=\\n|$)`, "gu");
const DETAIL_LINE = new RegExp(`(?<![^\\n])[${WS}]*→ ([^\\n]+ detail [^\\n]+)(?=\\n|$)`, "u");
const DETAIL_TURN = /· turn \S+:(\d+) ===/g;

/** Turn numbers of the search hits, in rank order (`1. [when · where] … · turn 12`). */
export const searchTurns = (out: string): number[] =>
  Array.from(out.matchAll(SEARCH_HIT), (m) => Number(m[1]));
/** The `→ … detail …` command printed under the top search hit. */
export const detailCommand = (out: string): string | null => {
  const m = DETAIL_LINE.exec(out);
  return m ? strip(m[1]!) : null;
};
/** Turn numbers a `detail` output shows (`=== … · turn <session>:12 ===`). */
export const detailTurns = (out: string): Set<number> =>
  new Set(Array.from(out.matchAll(DETAIL_TURN), (m) => Number(m[1])));

/** The push's `detail <HH:MM:SS…>` form with the latest prompt's time: a 4th call, outside the headline. */
export function whatIfCommand(push: string): string | null {
  const wf = /`([^`\n]* detail <HH:MM:SS[^>`]*>[^`]*)`/.exec(push);
  const wt = /(?<![^\n])Latest prompt \[(\d\d:\d\d:\d\d)\]/.exec(push);
  if (!wf || !wt) return null;
  return wf[1]!.replace(/<HH:MM:SS[^>]*>/g, wt[1]!);
}

export type Call = {
  step: string;
  skipped?: string;
  cmd?: string;
  rc?: number;
  stdout_chars?: number;
  stderr_chars?: number;
  out_chars?: number;
  error?: boolean;
  stderr_head?: string;
  view_cut?: boolean;
  secs?: number;
};
export type Loc = [number | null, "L2final" | "L2" | "L3" | "event"];
export type ScoredFact = Fact & {
  found_at: number | null;
  cut_from?: string[];
  stored: string[];
  in_newest_turn: boolean;
  reason?: string;
};
export const COVERAGE_KEYS = ["push", "c1", "c2", "c3", "c3_raw", "c4_detail_newest", "stored"] as const;
export type CoverageKey = (typeof COVERAGE_KEYS)[number];
export type Row = {
  file: string;
  corpus: string;
  session_id: string;
  k: number;
  turns_total: number;
  next_prompt: string;
  fact_stats: FactStats & { eligible_cuts: number; eligible_without_facts: number };
  turns_replayed?: number | null;
  turns_match?: boolean;
  calls?: Call[];
  facts?: ScoredFact[];
  n_facts?: number;
  coverage?: Record<CoverageKey, number | null>;
  found?: Record<CoverageKey, number>;
  error?: string;
  [more: string]: unknown;
};

/** Why a fact the 3 calls did not bring was missed: where it is stored, and what search did. */
export function missReason(
  locs: Loc[],
  gotRaw: boolean[],
  pushed: Set<number>,
  l2Range: Set<number>,
  older: Set<number>,
  calls: Call[],
  searchNums: number[],
  detailNums: Set<number>,
): string {
  if (locs.length === 0) return "not_stored";
  if (gotRaw.some(Boolean)) return "bash_view_cut";
  const nums = new Set(locs.map(([n]) => n));
  if ([...nums].some((n) => n !== null && detailNums.has(n))) return "detail_cut";
  const srch = calls.find((c) => c.step === "search");
  let s: string;
  if (srch === undefined) s = "search_not_run";
  else if (srch.skipped) s = "search_no_words";
  else if (searchNums.length === 0) s = "search_no_hit";
  else if ([...nums].some((n) => n !== null && searchNums.includes(n))) s = "search_hit_not_top";
  else s = "search_missed_turn";
  const lay = new Map<string, Set<string>>();
  for (const [n, l] of locs) {
    const where =
      n !== null && pushed.has(n)
        ? "pushed"
        : n !== null && l2Range.has(n)
          ? "window"
          : n !== null && older.has(n)
            ? "older"
            : "other";
    if (!lay.has(where)) lay.set(where, new Set());
    lay.get(where)!.add(l);
  }
  for (const where of ["pushed", "window", "older", "other"]) {
    const ls = lay.get(where);
    if (!ls) continue;
    const text = ls.has("L2final") || ls.has("L2");
    let base: string;
    if (where === "pushed") base = text ? "pushed_turn_nonfinal_text" : "pushed_turn_tool_io";
    else if (where === "window") base = text ? "window_turn_text_not_pulled" : "window_turn_tool_io";
    else if (where === "older") base = text ? "older_turn_text" : "older_turn_tool_io";
    else base = ls.has("event") || nums.has(null) ? "event_or_unattached" : "other";
    return `${base}|${s}`;
  }
  return `other|${s}`;
}

const mean = (xs: (number | null | undefined)[]): number | null => {
  const ys = xs.filter((x): x is number => typeof x === "number");
  return ys.length ? round4(ys.reduce((a, b) => a + b, 0) / ys.length) : null;
};

export type Totals = { cuts: number; facts: number } & Record<string, number | null>;

/** Macro (mean over cuts) and micro (over all facts) coverage for every key. */
export function totals(rows: Row[]): Totals {
  const ok = rows.filter((r) => r.n_facts);
  const facts = ok.reduce((a, r) => a + r.n_facts!, 0);
  const out: Totals = { cuts: ok.length, facts };
  for (const key of COVERAGE_KEYS) {
    out[`macro_${key}`] = mean(ok.map((r) => r.coverage![key]));
    out[`micro_${key}`] = facts ? round4(ok.reduce((a, r) => a + r.found![key], 0) / facts) : null;
  }
  return out;
}

export type KindTally = { facts: number; push: number; c3: number; stored: number };
export type CallTally = {
  run: number;
  skipped: number;
  errors: number;
  view_cut: number;
  median_out_chars: number | null;
  max_out_chars: number | null;
};
export type Summary = {
  all: Totals;
  kinds: Partial<Record<FactKind, KindTally>>;
  miss_reasons: Record<string, number>;
  miss_reasons_detail: Record<string, number>;
  calls: Record<string, CallTally>;
  /** Printed commands run whose output was over the view limit, all steps together. */
  calls_over_view_limit: number;
  view_cut_by_call: Record<string, number>;
  cuts_with_error: number;
  errors: string[];
  turn_count_mismatch: number;
  sessions_read: number;
  sessions_skipped: number;
  missed: number;
  missed_in_newest_turn: number;
  facts_only_in_tool_output: number;
  missed_only_in_tool_output: number;
  bash_view_limit: number;
  seconds: number;
  worst: {
    file: string;
    k: number;
    facts: number;
    push: number | null;
    c3: number | null;
    missing: string[];
  }[];
};

const byCountDesc = (m: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...m].sort((a, b) => b[1] - a[1]));
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function aggregateSummary(
  rows: Row[],
  info: { sessionsRead: number; sessionsSkipped: number; seconds: number; bashViewLimit: number },
): Summary {
  const good = rows.filter((r) => r.n_facts);
  const errs = rows.filter((r) => r.error);
  const allFacts = good.flatMap((r) => r.facts!);
  const kinds: Summary["kinds"] = {};
  for (const f of allFacts) {
    const k = kinds[f.kind] ?? { facts: 0, push: 0, c3: 0, stored: 0 };
    kinds[f.kind] = k;
    k.facts++;
    k.push += Number(f.found_at === 0);
    k.c3 += Number(f.found_at !== null);
    k.stored += Number(f.stored.length > 0);
  }
  const reasons = new Map<string, number>();
  const coarse = new Map<string, number>();
  for (const f of allFacts)
    if (f.reason) {
      bump(reasons, f.reason);
      bump(coarse, f.reason.split("|")[0]!);
    }
  const calls: Record<string, CallTally & { out: number[] }> = {};
  for (const r of good)
    for (const c of r.calls ?? []) {
      const s = calls[c.step] ?? {
        run: 0,
        skipped: 0,
        errors: 0,
        view_cut: 0,
        median_out_chars: null,
        max_out_chars: null,
        out: [],
      };
      calls[c.step] = s;
      if (c.skipped) {
        s.skipped++;
        continue;
      }
      s.run++;
      s.errors += Number(Boolean(c.error));
      s.view_cut += Number(Boolean(c.view_cut));
      s.out.push(c.out_chars!);
    }
  const callTallies: Record<string, CallTally> = {};
  for (const [step, { out, ...s }] of Object.entries(calls)) {
    const oc = out.sort((a, b) => a - b);
    callTallies[step] = {
      ...s,
      median_out_chars: oc[oc.length >> 1] ?? null,
      max_out_chars: oc.at(-1) ?? null,
    };
  }
  const missed = allFacts.filter((f) => f.found_at === null);
  const viewCut = new Map<string, number>();
  for (const f of missed) for (const st of new Set(f.cut_from ?? [])) bump(viewCut, st);
  const onlyToolOut = (f: Fact) => f.earlier_in?.length === 1 && f.earlier_in[0] === "tool_out";
  const worst = [...good]
    .sort(
      (a, b) =>
        a.coverage!.c3! - b.coverage!.c3! ||
        b.n_facts! - a.n_facts! ||
        (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
        a.k - b.k,
    )
    .slice(0, 10)
    .map((r) => ({
      file: r.file,
      k: r.k,
      facts: r.n_facts!,
      push: r.coverage!.push,
      c3: r.coverage!.c3,
      missing: r
        .facts!.filter((f) => f.found_at === null)
        .slice(0, 4)
        .map((f) => `${f.fact} (${f.kind}; ${f.reason})`),
    }));
  return {
    all: totals(good),
    kinds,
    miss_reasons: byCountDesc(coarse),
    miss_reasons_detail: byCountDesc(reasons),
    calls: callTallies,
    calls_over_view_limit: Object.values(callTallies).reduce((a, c) => a + c.view_cut, 0),
    view_cut_by_call: Object.fromEntries(viewCut),
    cuts_with_error: errs.length,
    errors: errs.map((r) => `${r.file} k=${r.k}: ${r.error}`),
    turn_count_mismatch: rows.filter((r) => r.turns_match === false).length,
    sessions_read: info.sessionsRead,
    sessions_skipped: info.sessionsSkipped,
    missed: missed.length,
    missed_in_newest_turn: missed.filter((f) => f.in_newest_turn).length,
    facts_only_in_tool_output: allFacts.filter(onlyToolOut).length,
    missed_only_in_tool_output: missed.filter(onlyToolOut).length,
    bash_view_limit: info.bashViewLimit,
    seconds: Math.round(info.seconds * 10) / 10,
    worst,
  };
}

const pct = (x: number | null | undefined): string =>
  typeof x === "number" ? `${(100 * x).toFixed(1)}%`.padStart(6) : "    - ";

/** The summary as the reference prints it: headline rows, by kind, calls, misses by reason. */
export function renderSummary(s: Summary): string {
  const t = s.all;
  const lines = [
    "== continuation recall (facts turn k+1 needs from turns <= k) ==",
    `${"cuts".padStart(5)} ${"facts".padStart(6)} | avg     push 1 call 2 calls 3 calls |  3 raw +detail stored`,
  ];
  for (const avg of ["macro", "micro"]) {
    const v = (k: string) => pct(t[`${avg}_${k}`]);
    lines.push(
      `${(avg === "macro" ? String(t.cuts) : "").padStart(5)} ${(avg === "macro" ? String(t.facts) : "").padStart(6)} | ${avg} ${v("push")} ${v("c1")} ${v("c2").padStart(7)} ${v("c3").padStart(7)} | ${v("c3_raw")} ${v("c4_detail_newest").padStart(7)} ${v("stored")}`,
    );
  }
  lines.push(
    `(macro = mean over cuts, micro = over all facts; right of |, not the stand-in's score: '3 raw' = the same 3 calls if outputs over ${s.bash_view_limit} chars were shown whole, '+detail' = a 4th call, detail of the newest turn, 'stored' = anywhere in the database)`,
  );
  const kinds = Object.entries(s.kinds).sort((a, b) => b[1].facts - a[1].facts);
  lines.push(
    `by kind:  ${kinds.map(([k, v]) => `${k} ${v.facts}: push ${pct(v.push / v.facts).trim()}, 3 calls ${pct(v.c3 / v.facts).trim()}`).join("  ")}`,
  );
  lines.push(
    `calls:    ${Object.entries(s.calls)
      .map(
        ([k, v]) =>
          `${k}: ${v.run} run, ${v.skipped} skipped, ${v.errors} errors, ${v.view_cut} over view limit, median ${v.median_out_chars} chars, max ${v.max_out_chars}`,
      )
      .join("  ")}`,
  );
  lines.push(
    `printed commands whose output was over the view limit (${s.bash_view_limit}): ${s.calls_over_view_limit}`,
  );
  lines.push(
    `missed after 3 calls: ${s.missed} facts; ${s.missed_in_newest_turn} of them stored in the newest turn (k); ${s.missed_only_in_tool_output} were only ever in tool outputs before (all facts: ${s.facts_only_in_tool_output} of ${t.facts})`,
  );
  lines.push(
    `  of the facts cut from what Claude Code shows, in the output of: ${Object.entries(s.view_cut_by_call)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  const list = (m: Record<string, number>, n = Infinity) =>
    Object.entries(m)
      .slice(0, n)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
  lines.push(`missed after 3 calls, by where the fact is stored: ${list(s.miss_reasons)}`);
  lines.push(`  detail: ${list(s.miss_reasons_detail, 12)}`);
  lines.push(
    `cuts with an error: ${s.cuts_with_error}; replayed turn count != k: ${s.turn_count_mismatch}; sessions read ${s.sessions_read}, without a cut ${s.sessions_skipped}; ${s.seconds}s`,
  );
  for (const e of s.errors.slice(0, 5)) lines.push(`  error: ${e}`);
  return lines.join("\n");
}
