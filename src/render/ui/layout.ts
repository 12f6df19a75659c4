/** The web view's page shell: head, navigation, paging links (docs/ui.md). */
import { type Html, href, html } from "../html.ts";

export type Section = "projects" | "search" | "live";

export function page(
  title: string,
  section: Section | null,
  body: Html,
  opts: { script?: boolean } = {},
): string {
  const nav = (s: Section, path: string, label: string) =>
    html`<a href="${path}"${s === section ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · throughline</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/style.css">
${opts.script === false ? "" : html`<script src="/assets/app.js" defer></script>`}
</head>
<body>
<header id="top"><span class="brand">throughline</span> <nav>${nav("projects", "/", "Projects")} ${nav("search", "/search", "Search")} ${nav("live", "/live", "Live sessions")}</nav>
<form class="quick" action="/search" method="get"><input type="search" name="q" placeholder="search memory" aria-label="search memory"></form>
<span class="ro">read-only</span></header>
<main>
${body}
</main>
</body>
</html>
`.value;
}

/** Previous / next links of a paged list. */
export function pager(
  path: string,
  params: Record<string, string | number | null>,
  links: { prev: number | null; next: number | null },
  label: string,
  words: [string, string] = ["← newer", "older →"],
): Html {
  if (links.prev === null && links.next === null) return html``;
  return html`<nav class="pager" aria-label="${label} pages">${
    links.prev !== null
      ? html`<a rel="prev" href="${href(path, { ...params, page: links.prev })}">${words[0]}</a>`
      : ""
  } ${links.next !== null ? html`<a rel="next" href="${href(path, { ...params, page: links.next })}">${words[1]}</a>` : ""}</nav>`;
}

/** A command to copy: the only way a view suggests a change. */
export function command(text: string): Html {
  return html`<div class="cmd"><code>${text}</code><button type="button" class="copy" data-copy="${text}">copy</button></div>`;
}

/** `YYYY-MM-DD HH:MM:SS` UTC. */
export function when(ms: number | null): string {
  if (ms === null) return "—";
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

export function chars(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} M`;
  if (n >= 10_000) return `${Math.round(n / 1000)} k`;
  return n.toLocaleString("en-US");
}

/** What a chain or a session is called: the client's title, else the head of its first prompt. */
export function titleOf(title: string | null, firstPrompt: string | null): string {
  const t = (title ?? "").trim() || (firstPrompt ?? "").replace(/\s+/g, " ").trim();
  if (t === "") return "(no prompt yet)";
  return t.length > 100 ? `${t.slice(0, 99)}…` : t;
}
