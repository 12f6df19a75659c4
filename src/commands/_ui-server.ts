/**
 * The web view's server (`throughline ui`, docs/ui.md): Bun.serve on 127.0.0.1, every request
 * checked (src/core/ui-guard.ts), every page rendered on the server from a read-only
 * connection opened per request the way the pulls open it (withReader), never written.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { TranscriptWatcher } from "../capture/transcript-watch.ts";
import { formatIso } from "../core/clock.ts";
import { renderContext } from "../core/context.ts";
import { conversationOf, type TurnRow } from "../core/conversation.ts";
import { withNearest } from "../core/did-you-mean.ts";
import { commandLine, selfInvocation } from "../core/invocation.ts";
import { pageLinks, parsePage } from "../core/paging.ts";
import { SEARCH_KINDS } from "../core/search.ts";
import { judge, SECURITY_HEADERS, tokenCookie } from "../core/ui-guard.ts";
import { type Database, openForRead, withReader } from "../db/open.ts";
import { countChainTurns, loadContextInput, resolveChain } from "../db/queries/chain.ts";
import {
  chainHead,
  chainSessions,
  chainsPage,
  chainTitle,
  chainTurnsPage,
  eventsOfTurns,
  projectsPage,
  sessionsWithTurns,
  turnById,
  turnIdOf,
  turnRowsOf,
  type UiTurnRow,
} from "../db/queries/ui.ts";
import { ThroughlineError } from "../errors.ts";
import { searchTurns } from "../read/search-turns.ts";
import { isClientContext } from "../render/detail.ts";
import css from "../render/ui/style.css" with { type: "text" };
import {
  CHAIN_PAGE_SIZE,
  chainPage,
  errorPage,
  livePage,
  projectPage,
  pushPage,
  projectsPage as renderProjects,
  searchPage,
  type TurnView,
  turnPage,
} from "../render/ui/views.ts";
import { buildView } from "./_monitor-watch.ts";

export interface UiOptions {
  dbPath: string;
  /** 0: any free port. */
  port: number;
  /** `$CLAUDE_CONFIG_DIR`, for the live sessions. */
  configDir: string;
  /** Tests pass their own; otherwise 32 random bytes. */
  token?: string;
  /** How the suggested commands start (default: this program's own invocation). */
  invocation?: string;
}

export interface UiServer {
  url: string;
  port: number;
  token: string;
  stop(): Promise<void>;
}

/** Results per search page. */
const SEARCH_LIMIT = 20;

/** The client script, bundled from src/render/ui/client.ts; null where Bun.build cannot run (a compiled binary). */
async function bundleClient(): Promise<string | null> {
  try {
    const out = await Bun.build({
      entrypoints: [join(import.meta.dir, "..", "render", "ui", "client.ts")],
      minify: true,
      target: "browser",
    });
    if (!out.success || !out.outputs[0]) return null;
    return await out.outputs[0].text();
  } catch {
    return null;
  }
}

/** A search box's text for `words`: searchWords reads it back, a word holding spaces quoted. */
export function searchQuery(words: readonly string[]): string {
  return words.map((w) => (/\s/.test(w) ? `"${w}"` : w)).join(" ");
}

/** Words and "quoted phrases" of a search box. */
export function searchWords(q: string): string[] {
  const out: string[] = [];
  for (const m of q.matchAll(/"([^"]+)"|(\S+)/g)) {
    const w = (m[1] ?? m[2] ?? "").trim();
    if (w) out.push(w);
  }
  return out;
}

function turnView(
  db: Database,
  inv: string,
  t: UiTurnRow,
  live: string,
  rows = turnRowsOf(db, [t.id]),
): TurnView {
  const events = eventsOfTurns(db, [{ origin: t.origin_session_id, number: t.turn_number }]);
  const turnRows: TurnRow[] = rows.map((d) => ({
    id: d.id,
    kind: d.kind,
    toolName: d.tool_name,
    toolUseId: d.tool_use_id,
    input: d.input,
    output: d.output,
    isError: d.is_error !== 0,
    textAt: d.text_at,
  }));
  return {
    id: t.id,
    origin: t.origin_session_id,
    host: t.host,
    number: t.turn_number,
    startedAt: t.started_at,
    endedAt: t.ended_at,
    user: t.user_text ?? "",
    items: conversationOf(t.assistant_text ?? "", turnRows, (r) =>
      isClientContext({ kind: r.kind, tool_name: r.toolName }),
    ),
    summary: t.summary,
    events: events.map((e) => ({ ts: e.ts, type: e.type, summary: e.summary })),
    detailCommand: commandLine(inv, "detail", formatIso(t.started_at), "--session", live),
  };
}

type Handler = (db: Database, url: URL) => string;

function routes(watcher: TranscriptWatcher, invocation: string): Record<string, Handler> {
  const inv = () => invocation;
  return {
    "/": (db, url) => {
      const page = parsePage(url.searchParams.get("page"));
      const rows = projectsPage(db, page.limit + 1, page.offset);
      return renderProjects({
        rows: rows.slice(0, page.limit),
        page: page.number,
        links: pageLinks(page, rows.length),
      });
    },
    "/project": (db, url) => {
      const p = url.searchParams.get("p");
      const project = p === null || p === "" ? null : p;
      const page = parsePage(url.searchParams.get("page"));
      const chains = chainsPage(db, project, page.limit + 1, page.offset);
      if (chains.length === 0 && page.number === 1)
        throw new ThroughlineError("E_NO_PROJECT", `no chain recorded for ${project ?? "(no project)"}`);
      return projectPage({
        project,
        chains: chains.slice(0, page.limit),
        links: pageLinks(page, chains.length),
        pauseCommand: project ? commandLine(inv(), "pause", "--project", project) : null,
      });
    },
    "/chain": (db, url) => {
      const live = resolveChain(db, url.searchParams.get("s") ?? "");
      const page = parsePage(url.searchParams.get("page"), CHAIN_PAGE_SIZE);
      const rows = chainTurnsPage(db, live, page.limit + 1, page.offset);
      const shown = rows.slice(0, page.limit);
      const details = turnRowsOf(
        db,
        shown.map((t) => t.id),
      );
      const total = countChainTurns(db, live);
      return chainPage({
        live,
        project: chainHead(db, live)?.project ?? null,
        title: chainTitle(db, live),
        sessions: chainSessions(db, live),
        total,
        page: page.number,
        lastPage: Math.max(1, Math.ceil(total / CHAIN_PAGE_SIZE)),
        turns: shown.map((t) =>
          turnView(
            db,
            inv(),
            t,
            live,
            details.filter((d) => d.turn_id === t.id),
          ),
        ),
        links: pageLinks(page, rows.length),
        forgetCommand: commandLine(inv(), "forget", "--session", live),
      });
    },
    "/turn": (db, url) => {
      const id = Number(url.searchParams.get("id"));
      const t = Number.isSafeInteger(id) ? turnById(db, id) : null;
      if (!t) throw new ThroughlineError("E_NO_TURN", "no such turn (forgotten, or never recorded)");
      return turnPage(turnView(db, inv(), t, t.live), t.live, chainHead(db, t.live)?.project ?? null);
    },
    "/push": (db, url) => {
      const live = resolveChain(db, url.searchParams.get("s") ?? "");
      const out = renderContext(loadContextInput(db, live), inv());
      return pushPage({
        live,
        text: out.text,
        stats: out.stats,
        command: commandLine(inv(), "context", "--session", live),
      });
    },
    "/search": (db, url) => {
      const query = (url.searchParams.get("q") ?? "").trim();
      const words = searchWords(query);
      if (words.length === 0)
        return searchPage({
          query,
          terms: [],
          results: [],
          more: false,
          error: null,
          first: 1,
          links: { prev: null, next: null },
          unheld: [],
          retry: null,
        });
      // Ranking is over the whole match set: page N is the best N pages' last page.
      const page = parsePage(url.searchParams.get("page"), SEARCH_LIMIT);
      const res = searchTurns(db, { kind: "all" }, words, SEARCH_KINDS, page.offset + page.limit);
      const retried = withNearest(words, res.unheld);
      return searchPage({
        query,
        terms: res.terms,
        unheld: res.unheld,
        // The same query with each word no row holds swapped for its nearest (docs/search.md, "Nearest words").
        retry: retried ? searchQuery(retried) : null,
        more: res.more,
        error: null,
        first: page.offset + 1,
        links: { prev: page.number > 1 ? page.number - 1 : null, next: res.more ? page.number + 1 : null },
        results: res.results.slice(page.offset).map((r) => {
          const id = r.hit.turnNumber === null ? null : turnIdOf(db, r.hit.origin, r.hit.turnNumber);
          return {
            hit: r.hit,
            terms: r.terms,
            windows: r.windows.map((w) => ({ label: w.label, text: w.text })),
            link: id === null ? null : `/turn?id=${id}`,
          };
        }),
      });
    },
    "/live": (db) => {
      const now = Date.now();
      // The monitor's rows (last activity by the transcripts' own times), of sessions in memory.
      const v = buildView(watcher, { all: true }, now, process.cwd());
      const held = sessionsWithTurns(
        db,
        v.rows.map((r) => r.sessionId),
      );
      const rows = v.rows.filter((r) => held.has(r.sessionId));
      return livePage({ rows, idleHidden: v.idleHidden, idleMinutes: v.idleMinutes, now });
    },
  };
}

function respond(
  body: string | null,
  status: number,
  type: string,
  extra: Record<string, string> = {},
): Response {
  return new Response(body, { status, headers: { ...SECURITY_HEADERS, "Content-Type": type, ...extra } });
}

const HTML = "text/html; charset=utf-8";

/** Start serving; resolves once the port is bound. Bad options are one-line errors. */
export async function startUi(opts: UiOptions): Promise<UiServer> {
  // Fail now, in one line, when there is no database (the pulls' own check and message).
  openForRead(opts.dbPath).close();
  const token = opts.token ?? randomBytes(32).toString("base64url");
  const client = await bundleClient();
  const watcher = new TranscriptWatcher(opts.configDir);
  const table = routes(watcher, opts.invocation ?? selfInvocation());
  let port = opts.port;
  const fetch = (req: Request): Response => {
    const url = new URL(req.url);
    const verdict = judge(
      { method: req.method, url, host: req.headers.get("host"), cookie: req.headers.get("cookie") },
      token,
      port,
    );
    if (verdict.kind === "refuse")
      return respond(`${verdict.reason}\n`, verdict.status, "text/plain; charset=utf-8");
    if (verdict.kind === "adopt")
      return respond(null, 303, "text/plain; charset=utf-8", {
        Location: verdict.location,
        "Set-Cookie": tokenCookie(token),
      });
    if (url.pathname === "/assets/style.css") return respond(css, 200, "text/css; charset=utf-8");
    if (url.pathname === "/assets/app.js")
      return respond(client ?? "", 200, "text/javascript; charset=utf-8");
    const handler = table[url.pathname];
    if (!handler) return respond(errorPage(404, `no page at ${url.pathname}`), 404, HTML);
    try {
      // A page reads one moment, as a pull does.
      return respond(
        withReader(opts.dbPath, (db) => handler(db, url)),
        200,
        HTML,
      );
    } catch (err) {
      if (err instanceof ThroughlineError) return respond(errorPage(404, err.message), 404, HTML);
      const line = String((err as Error)?.message ?? err).split("\n")[0];
      return respond(errorPage(500, `could not read the database: ${line}`), 500, HTML);
    }
  };
  let server: ReturnType<typeof Bun.serve>;
  try {
    // reusePort stays off, said explicitly: a second server must not share a port already taken
    // (Bun shares it across processes with `development: false` unless told).
    server = Bun.serve({ hostname: "127.0.0.1", port: opts.port, fetch, reusePort: false });
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    throw new ThroughlineError(
      "E_PORT",
      /in use|EADDRINUSE/i.test(msg)
        ? `port ${opts.port} is in use on 127.0.0.1; pick another with --port, or --port 0 for any free one`
        : `cannot listen on 127.0.0.1:${opts.port}: ${msg.split("\n")[0]}`,
    );
  }
  port = server.port ?? opts.port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    stop: async () => {
      await server.stop(true);
    },
  };
}
