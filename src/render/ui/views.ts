/**
 * The web view's pages (docs/ui.md): view model in, HTML string out. Every value from the
 * database goes through the escape helper (`html` / `esc`, src/render/html.ts).
 */
import type { ContextStats } from "../../core/context.ts";
import type { ConversationItem } from "../../core/conversation.ts";
import { nearList, type Unheld } from "../../core/did-you-mean.ts";
import { assistantName, hostMark } from "../../core/host.ts";
import type { SearchHit } from "../../core/search.ts";
import type { MonitorRow } from "../../core/usage.ts";
import type { ProjectRow, UiSessionRow } from "../../db/queries/ui.ts";
import { type Html, highlight, href, html } from "../html.ts";
import { CHAIN_CUTS, type Cuts, prose, replyItems, TURN_CUTS } from "./conversation.ts";
import { chars, command, page, pager, titleOf, when } from "./layout.ts";
import { type AxisEvent, timelineSvg } from "./timeline.ts";

/** Turns per page of a chain: a turn with its calls weighs more than a row of a list. */
export const CHAIN_PAGE_SIZE = 20;

type Links = { prev: number | null; next: number | null };

export interface ProjectsView {
  rows: ProjectRow[];
  page: number;
  links: Links;
}

export function projectsPage(v: ProjectsView): string {
  const rows = v.rows.map(
    (
      r,
    ) => html`<tr><td><a href="${href("/project", { p: r.project ?? "" })}">${r.project ?? "(no project)"}</a></td>
<td class="n">${r.sessions}</td><td class="n">${r.chains}</td><td class="n">${r.turns}</td><td class="n">${chars(r.chars)}</td><td>${when(r.last)}</td></tr>`,
  );
  return page(
    "Projects",
    "projects",
    html`<h1>Projects</h1>
${
  v.rows.length === 0
    ? html`<p class="empty">No session recorded yet.</p>`
    : html`<table class="list"><thead><tr><th>project</th><th>sessions</th><th>chains</th><th>turns</th><th>size (L2)</th><th>last activity (UTC)</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
${pager("/", {}, v.links, "projects")}`,
  );
}

export interface ProjectView {
  project: string | null;
  chains: {
    id: string;
    sessions: number;
    turns: number;
    created_at: number;
    updated_at: number;
    fork: number;
    last: number | null;
    title: string | null;
    first_prompt: string | null;
  }[];
  links: Links;
  pauseCommand: string | null;
}

export function projectPage(v: ProjectView): string {
  const rows = v.chains.map(
    (
      c,
    ) => html`<tr><td><a class="chain-title" href="${href("/chain", { s: c.id })}">${titleOf(c.title, c.first_prompt)}</a>${c.fork ? html` <span class="tag">fork</span>` : ""} <code class="id">${c.id.slice(0, 8)}</code></td>
<td class="n">${c.sessions}</td><td class="n">${c.turns}</td><td>${when(c.created_at)}</td><td>${when(c.last ?? c.updated_at)}</td>
<td><a href="${href("/push", { s: c.id })}">push</a></td></tr>`,
  );
  return page(
    v.project ?? "(no project)",
    "projects",
    html`<p class="crumbs"><a href="/">Projects</a> /</p><h1>${v.project ?? "(no project)"}</h1>
<table class="list"><thead><tr><th>chain (its first prompt, or its title)</th><th>sessions</th><th>turns</th><th>started</th><th>last activity (UTC)</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>
${pager("/project", { p: v.project ?? "" }, v.links, "chains")}
${v.pauseCommand ? html`<h2>Stop capturing this project</h2><p>The web view changes nothing. To pause capture here, run:</p>${command(v.pauseCommand)}` : ""}`,
  );
}

export interface TurnView {
  id: number;
  origin: string;
  /** `sessions.host` of the turn's session ('codex', or null for Claude Code). */
  host?: string | null;
  number: number;
  startedAt: number;
  endedAt: number;
  user: string;
  /** The reply's text and the turn's rows, in the order they happened. */
  items: ConversationItem[];
  summary: string | null;
  events: AxisEvent[];
  detailCommand: string;
}

/** ` <span class="tag host">codex</span>` beside a turn's session, nothing for Claude Code. */
function hostSpan(stored: string | null | undefined): Html | "" {
  const mark = hostMark(stored);
  return mark === null ? "" : html` <span class="tag host">${mark}</span>`;
}

function anchorOf(t: { origin: string; number: number }): string {
  return `turn-${t.origin.slice(0, 8)}-${t.number}`;
}

/** A turn as a conversation: the prompt, then the reply's text and tool calls as they happened. */
export function turnArticle(t: TurnView, project: string | null, cut: Cuts): Html {
  return html`<article class="turn" id="${anchorOf(t)}" tabindex="-1">
<header class="turn-head">${cut.whole ? html`<a href="${cut.whole}">Turn ${t.number}</a>` : html`Turn ${t.number}`} <time datetime="${new Date(t.startedAt).toISOString()}">${when(t.startedAt)}</time> <span class="origin">${t.origin.slice(0, 8)}</span>${hostSpan(t.host)}${t.summary ? html` <span class="summary">${t.summary}</span>` : ""}</header>
<section class="msg user"><h3 class="who">Prompt</h3>${prose(t.user, cut)}</section>
<section class="msg assistant"><h3 class="who">${assistantName(t.host)}</h3>${t.items.length > 0 ? replyItems(t.items, project, cut) : html`<p class="muted">(no reply)</p>`}</section>
</article>`;
}

export interface ChainView {
  live: string;
  project: string | null;
  /** The client's title of the chain, or null: then its first prompt names it. */
  title: string | null;
  sessions: UiSessionRow[];
  total: number;
  page: number;
  /** The page holding the newest turn. */
  lastPage: number;
  turns: TurnView[];
  links: Links;
  forgetCommand: string;
}

function sessionList(sessions: readonly UiSessionRow[]): Html {
  if (sessions.length < 2) return html``;
  return html`<details class="sessions"><summary>${sessions.length} sessions in this chain</summary><ol>${sessions.map(
    (s) =>
      html`<li>${titleOf(s.title, s.first_prompt)} <code class="id">${s.id.slice(0, 8)}</code> <span class="muted">${s.turns} turn${s.turns === 1 ? "" : "s"}, from ${when(s.created_at)}</span></li>`,
  )}</ol></details>`;
}

export function chainPage(v: ChainView): string {
  const axis = timelineSvg(
    v.turns.map((t) => ({ startedAt: t.startedAt, label: `turn ${t.number}`, anchor: anchorOf(t) })),
    v.turns.flatMap((t) => t.events),
  );
  const from = (v.page - 1) * CHAIN_PAGE_SIZE + 1;
  const title = titleOf(v.title, v.sessions[0]?.first_prompt ?? null);
  const newest = `${href("/chain", { s: v.live, page: v.lastPage > 1 ? v.lastPage : null })}#newest`;
  const words: [string, string] = ["← earlier turns", "later turns →"];
  return page(
    title,
    "projects",
    html`<p class="crumbs"><a href="/">Projects</a> / <a href="${href("/project", { p: v.project ?? "" })}">${v.project ?? "(no project)"}</a> /</p>
<h1 class="chain-title">${title}</h1>
<p class="meta"><code class="id">${v.live}</code> · ${v.total} turn${v.total === 1 ? "" : "s"} in ${v.sessions.length} session${v.sessions.length === 1 ? "" : "s"} · <a href="${href("/push", { s: v.live })}">the push it would get now</a> · <a class="jump" href="${newest}">jump to the newest ↓</a></p>
${sessionList(v.sessions)}
${axis}
<p class="keys">Turns ${v.turns.length > 0 ? `${from}–${from + v.turns.length - 1}` : ""} of ${v.total}, oldest first · keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous turn, <kbd>G</kbd> the newest, <kbd>o</kbd> open or close the calls of the turn</p>
${pager("/chain", { s: v.live }, v.links, "turns", words)}
<div class="conversation">${v.turns.map((t) => turnArticle(t, v.project, { ...CHAIN_CUTS, whole: href("/turn", { id: t.id }) }))}</div>
${v.page === v.lastPage ? html`<p id="newest" class="end">The newest turn · <a href="#top">back to the top</a></p>` : ""}
${pager("/chain", { s: v.live }, v.links, "turns", words)}
<h2>Forget this chain</h2><p>The web view changes nothing. To delete this session's memory for good, run:</p>${command(v.forgetCommand)}`,
  );
}

export function turnPage(t: TurnView, live: string, project: string | null): string {
  return page(
    `turn ${t.number}`,
    "projects",
    html`<p class="crumbs"><a href="/">Projects</a> / <a href="${href("/chain", { s: live })}">chain ${live.slice(0, 8)}</a> /</p>
<h1>Turn ${t.number} of <code>${t.origin}</code></h1>
<div class="conversation">${turnArticle(t, project, { ...TURN_CUTS, whole: null })}</div>
<p>In the terminal:</p>${command(t.detailCommand)}`,
  );
}

export interface PushView {
  live: string;
  text: string;
  stats: ContextStats;
  command: string;
}

export function pushPage(v: PushView): string {
  const s = v.stats;
  const used = Math.min(1, s.total_chars / s.budget);
  return page(
    `push ${v.live.slice(0, 8)}`,
    "projects",
    html`<p class="crumbs"><a href="/">Projects</a> / <a href="${href("/chain", { s: v.live })}">chain ${v.live.slice(0, 8)}</a> /</p>
<h1>The push if this chain were continued now</h1>
<svg class="budget" viewBox="0 0 400 16" width="400" height="16" role="img" aria-label="budget use"><rect class="budget-all" x="0" y="0" width="400" height="16"></rect><rect class="budget-used" x="0" y="0" width="${(used * 400).toFixed(1)}" height="16"></rect></svg>
<table class="stats"><tbody>
<tr><th>characters</th><td>${s.total_chars.toLocaleString("en-US")} of ${s.budget.toLocaleString("en-US")} (${Math.round(used * 100)} %)</td></tr>
<tr><th>turns pushed whole</th><td>${s.injected_turns}${s.truncated_newest ? " (the newest cut)" : ""}</td></tr>
<tr><th>in brief</th><td>${s.brief_turns}</td></tr>
<tr><th>window turns left to pull</th><td>${s.remaining_turns}</td></tr>
<tr><th>older turns</th><td>${s.older_turns} (${s.older_summarized} summarized)</td></tr>
<tr><th>boundary</th><td>${s.boundary ?? "—"}</td></tr>
</tbody></table>
<pre class="push">${v.text}</pre>
<p>The same text in the terminal:</p>${command(v.command)}`,
  );
}

export interface SearchResultView {
  hit: SearchHit;
  terms: string[];
  windows: { label: string; text: string }[];
  link: string | null;
}

export interface SearchPageView {
  query: string;
  terms: string[];
  results: SearchResultView[];
  more: boolean;
  error: string | null;
  /** The rank of the first result shown (1 on the first page). */
  first: number;
  links: Links;
  /** Typed words no row holds, with the nearest words memory holds (docs/search.md, "Nearest words"). */
  unheld: Unheld[];
  /** The query again with those nearest words, or null when none has one. */
  retry: string | null;
}

/** What `search` prints as "No row holds" and "also try", as a line and a link. */
function unheldNote(v: SearchPageView): Html | string {
  if (v.unheld.length === 0) return "";
  const words = v.unheld.map((u) =>
    u.near.length === 0 ? html`<b>${u.term}</b>` : html`<b>${u.term}</b> (nearest here: ${nearList(u.near)})`,
  );
  const retry = v.retry
    ? html` Also try: <a class="retry" href="${href("/search", { q: v.retry })}">${v.retry}</a>`
    : "";
  return html`<p class="unheld">No row holds: ${words.map((w, i) => html`${i > 0 ? "; " : ""}${w}`)}.${retry}</p>`;
}

export function searchPage(v: SearchPageView): string {
  const results = v.results.map(
    (
      r,
    ) => html`<li class="result"><p><a href="${r.link ?? "#"}">${when(r.hit.at)} · turn ${r.hit.turnNumber ?? "—"}</a> <span class="origin">${r.hit.session.slice(0, 8)}</span>${hostSpan(r.hit.host)} <span class="tag">${r.hit.label}</span></p>
${r.windows.map((w) => html`<pre class="snippet"><span class="muted">${w.label}:</span> ${highlight(w.text, v.terms)}</pre>`)}</li>`,
  );
  return page(
    v.query ? `search ${v.query}` : "search",
    "search",
    html`<h1>Search</h1>
<form class="search" action="/search" method="get"><input type="search" name="q" value="${v.query}" aria-label="words" autofocus> <button type="submit">search</button></form>
${v.error ? html`<p class="error">${v.error}</p>` : ""}
${unheldNote(v)}
${v.query && !v.error ? html`<p>${v.results.length === 0 ? "No result" : `Results ${v.first}–${v.first + v.results.length - 1}`}${v.more ? ", more on the next page" : ""}</p>` : ""}
<ol class="results" start="${v.first}">${results}</ol>
${pager("/search", { q: v.query }, v.links, "results", ["← better matches", "more →"])}`,
  );
}

export interface LivePageView {
  rows: MonitorRow[];
  idleHidden: number;
  idleMinutes: number;
  now: number;
}

export function livePage(v: LivePageView): string {
  const rows = v.rows.map((r) => {
    const share = r.used === null ? null : r.used / r.window;
    return html`<tr><td><code>${r.sessionId.slice(0, 8)}</code></td><td>${r.project}</td><td>${r.model ?? "—"}</td>
<td class="n">${r.used === null ? "—" : `${r.used.toLocaleString("en-US")} / ${r.window.toLocaleString("en-US")}`}</td>
<td><svg class="gauge" viewBox="0 0 100 10" width="100" height="10" role="img" aria-label="context use"><rect class="budget-all" x="0" y="0" width="100" height="10"></rect><rect class="budget-used" x="0" y="0" width="${((share ?? 0) * 100).toFixed(1)}" height="10"></rect></svg> ${share === null ? "" : `${Math.round(share * 100)} %`}</td>
<td>${when(r.lastActivity)}</td></tr>`;
  });
  return page(
    "Live sessions",
    "live",
    html`<h1>Live sessions</h1>
<p>Sessions in memory whose transcript records activity in the last ${v.idleMinutes} minutes, as <code>monitor --all</code> shows them${v.idleHidden > 0 ? ` (${v.idleHidden} idle left out)` : ""}. Reload to refresh.</p>
${v.rows.length === 0 ? html`<p class="empty">No live session.</p>` : html`<table class="list"><thead><tr><th>session</th><th>project</th><th>model</th><th>context used</th><th></th><th>last activity (UTC)</th></tr></thead><tbody>${rows}</tbody></table>`}`,
  );
}

export function errorPage(status: number, message: string): string {
  return page(
    String(status),
    null,
    html`<h1>${status}</h1><p class="error">${message}</p><p><a href="/">Projects</a></p>`,
  );
}
