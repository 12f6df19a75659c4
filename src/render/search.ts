/**
 * Output of `throughline search` (docs/search.md): the Markdown a model reads, and the
 * `throughline.search.v1` JSON. Pure: a view model in, text out.
 *
 * Other tools read the text: a result's first line matches `^\d+\. \[.*· turn (\d+)\s*$` (the
 * turn number last) and its `detail` command is the whole of a line `   → <command>`. Keep both.
 */
import { formatStamp } from "../core/activity-query.ts";
import { formatIso } from "../core/clock.ts";
import { nearList } from "../core/did-you-mean.ts";
import { hostField, hostTag } from "../core/host.ts";
import type { SearchHit, SearchKind } from "../core/search.ts";
import { snippet, type Term } from "../core/snippet.ts";
import { fit, plural, utf8Length } from "../core/text.ts";
import { PULL_MAX_BYTES } from "../core/turn-block.ts";

const KIND_LABEL: Record<SearchKind, string> = { l2: "L2", l3: "L3", events: "event" };

/** A line of context around matched terms. */
export interface SearchWindow {
  kind: SearchKind;
  label: string;
  /** Cut from the result's own row (the one its heading names). */
  own: boolean;
  text: string;
}

export interface SearchResultView {
  hit: SearchHit;
  /** How many rows of each kind matched in the turn, best first (the first is the hit's). */
  matched: { kind: SearchKind; label: string; rows: number }[];
  /** The query's terms the turn holds. */
  terms: string[];
  windows: SearchWindow[];
  detailCommand: string;
  /** A tool call's row: the command that shows that row whole (`detail --item`). */
  itemCommand?: string;
}

export interface SearchView {
  query: string;
  /** The words searched for, as typed (stop words out; a phrase or identifier's words apart). */
  terms: string[];
  /** The terms with their forms (core/query.ts), for snippets; `terms` when absent. */
  matchTerms?: readonly Term[];
  scopeLabel: string;
  /** The scope is every project already (no `--all` to suggest). */
  scopeAll: boolean;
  kinds: readonly SearchKind[];
  limit: number;
  /** No result holds every term. */
  anyWord: boolean;
  more: boolean;
  moreCommand: string;
  /** Typed words no row of the scope holds, each with the words near it that the scope holds. */
  unheld?: readonly { term: string; near: readonly { word: string; count: number }[] }[];
  /** The query with each unheld word replaced by its nearest (`unheld`), when one has any. */
  retryCommand?: string;
  /**
   * Nothing matched in this scope, or a word no row here holds, and other projects hold them: the
   * query with `--all`.
   */
  widerCommand?: string;
  results: SearchResultView[];
}

/** The query as echoed in the heading, and an `also` line, are cut here. */
const ECHO_MAX = 300;

/** A row's label with its place in the turn: `tool_output Bash · call 3 of 7`. */
export function placeLabel(h: SearchHit): string {
  return h.call ? `${h.label} · call ${h.call.n} of ${h.call.of}` : h.label;
}

/** `L3 tool_output Bash ×2`: what else matched in a result's turn. */
function alsoMatched(r: SearchResultView): string | null {
  const rest = r.matched
    .map((m, i) => ({ ...m, rows: i === 0 ? m.rows - 1 : m.rows }))
    .filter((m) => m.rows > 0)
    .map((m) => `${KIND_LABEL[m.kind]} ${m.label}${m.rows > 1 ? ` ×${m.rows}` : ""}`);
  return rest.length > 0 ? fit(rest.join(", "), ECHO_MAX) : null;
}

function resultLines(
  r: SearchResultView,
  n: number,
  terms: readonly string[],
  windows: number,
  matchTerms: readonly Term[] = terms,
): string[] {
  const h = r.hit;
  const turn = h.turnNumber === null ? "" : ` · turn ${h.turnNumber}`;
  const lines = [
    `${n}. [${KIND_LABEL[h.kind]} ${placeLabel(h)}]${hostTag(h.host)} ${formatStamp(h.ts)} · session ${h.session}${turn}`,
  ];
  const shown = r.windows.slice(0, windows);
  if (shown.length === 0) lines.push(`   ${snippet(h.text, matchTerms)}`);
  for (const w of shown) lines.push(`   ${w.own ? "" : `[${KIND_LABEL[w.kind]} ${w.label}] `}${w.text}`);
  const missing = terms.filter((t) => !r.terms.includes(t));
  if (missing.length > 0 && r.terms.length > 0)
    lines.push(
      `   not in this turn: ${fit(missing.join(", "), ECHO_MAX)} (${r.terms.length} of ${terms.length} words)`,
    );
  const also = alsoMatched(r);
  if (also) lines.push(`   also in this turn: ${also}`);
  lines.push(`   → ${r.detailCommand}`);
  if (r.itemCommand) lines.push(`   → ${r.itemCommand}`);
  return lines;
}

/**
 * The results as Markdown, at most `max` UTF-8 bytes with its newline (PULL_MAX_BYTES: Claude
 * Code shows a longer Bash output as a preview only). Whole results are kept, best first; one
 * that does not fit with all its windows is shown with its first, and the list stops at the
 * first that does not fit even so, saying how many were left out.
 */
export function renderSearch(v: SearchView, max = PULL_MAX_BYTES): string {
  const head = [`## Search: ${fit(v.query, ECHO_MAX)}`];
  const onlyKind = v.kinds.length === 1 ? ` (--kind ${v.kinds[0]})` : "";
  if (v.results.length === 0)
    return [
      ...head,
      `No match in ${v.scopeLabel}${onlyKind}.`,
      ...unheldLines(v),
      ...(v.widerCommand ? ["Other projects hold a match:", `   → ${v.widerCommand}`] : []),
      "",
      `Try fewer or other words${v.scopeAll || v.widerCommand ? "" : ", or --all to search every project"}. Words shorter than 3 characters only match as part of a longer text.`,
    ].join("\n");
  head.push(
    `**Scope:** ${v.scopeLabel} · best match first${v.anyWord ? " · no result held every word, showing results with any of them" : ""}`,
    ...unheldLines(v),
    "",
  );
  const narrow = v.kinds.length > 1 ? ", or narrow with --kind l2|l3|events" : "";
  const footer = (shown: number, cut: boolean): string[] => {
    if (cut)
      return [
        "",
        `*(showing ${shown} of ${plural(v.results.length, "result")}: the output stops at ${max} bytes; use more precise words${narrow})*`,
      ];
    if (!v.more) return [];
    const line = `*(showing ${shown}; more matched: \`${v.moreCommand}\`${narrow})*`;
    return [
      "",
      line.length <= ECHO_MAX * 4 ? line : `*(showing ${shown}; more matched: raise --limit${narrow})*`,
    ];
  };
  const size = (lines: readonly string[]) => lines.reduce((n, l) => n + utf8Length(l) + 1, 0);
  const out = [...head];
  let used = size(head);
  // Room for the longest footer, whichever is printed.
  const reserve = Math.max(size(footer(v.results.length, true)), size(footer(v.results.length, false)));
  let shown = 0;
  for (const r of v.results) {
    const n = shown + 1;
    let block = resultLines(r, n, v.terms, r.windows.length, v.matchTerms);
    if (used + size(block) + reserve > max) block = resultLines(r, n, v.terms, 1, v.matchTerms);
    if (used + size(block) + reserve > max) break;
    out.push(...block);
    used += size(block);
    shown++;
  }
  out.push(...footer(shown, shown < v.results.length));
  return out.join("\n");
}

/**
 * The typed words no row holds, with the nearest words the scope holds and the query again with
 * them: a typo (`refrshToken`) is one command away from what the memory calls it.
 */
function unheldLines(v: SearchView): string[] {
  const unheld = v.unheld ?? [];
  if (unheld.length === 0) return [];
  const words = unheld.map((u) =>
    u.near.length === 0 ? u.term : `${u.term} (nearest here: ${nearList(u.near)})`,
  );
  const lines = [`**No row holds:** ${fit(words.join("; "), ECHO_MAX)}`];
  if (v.retryCommand && v.retryCommand.length <= ECHO_MAX * 2) lines.push(`   → also try: ${v.retryCommand}`);
  if (v.widerCommand && v.results.length > 0) lines.push(`   → other projects hold them: ${v.widerCommand}`);
  return lines;
}

/** `throughline.search.v1`: fields are added, never removed (docs/contract.md). */
export function searchJson(v: SearchView): Record<string, unknown> {
  return {
    schema: "throughline.search.v1",
    query: v.query,
    scope: v.scopeLabel,
    kinds: v.kinds,
    limit: v.limit,
    any_word: v.anyWord,
    more: v.more,
    more_command: v.more ? v.moreCommand : null,
    terms: v.terms,
    // Typed words no row of the scope holds, with the words near them that it holds.
    unheld: (v.unheld ?? []).map((u) => ({ term: u.term, nearest: u.near })),
    also_try_command: v.retryCommand ?? null,
    // Nothing matched here, or a word no row here holds, and other projects do: the query with --all.
    wider_command: v.widerCommand ?? null,
    results: v.results.map((r, i) => {
      const h = r.hit;
      return {
        rank: i + 1,
        kind: h.kind,
        label: h.label,
        score: h.score,
        // The hit's own row around the longest term (before windows, the one line of context).
        snippet: snippet(h.text, v.matchTerms ?? v.terms),
        session: h.session,
        ...hostField(h.host),
        turn_key: h.turnNumber === null ? null : `${h.origin}:${h.turnNumber}`,
        time: formatIso(h.ts),
        detail_time: formatIso(h.at),
        detail_command: r.detailCommand,
        // The hit's own row whole (a tool call's input or output), when it is one.
        item_command: r.itemCommand ?? null,
        call: h.call ?? null,
        // Every row of the turn that matched, best first: the result stands for its turn.
        matched: r.matched,
        // The terms the turn holds (across all its rows), and the text around each.
        terms_matched: r.terms,
        windows: r.windows.map((w) => ({ kind: w.kind, label: w.label, text: w.text })),
      };
    }),
  };
}
