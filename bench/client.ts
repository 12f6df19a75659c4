/**
 * What a user waits for in the real client (issue 24, part 5): the time from the Enter key to
 * the model request reaching the model, for a steady prompt and for the push (the first prompt
 * after /clear in a session with turns), on each pinned Claude Code version, three ways:
 *
 * - `none`: no hooks registered;
 * - `no-op`: the compiled floor (bench/lib.ts buildFloor) registered for exactly the events,
 *   matchers, async flags and timeouts throughline registers (the same `mergeHooks` over the
 *   one table, src/core/hook-table.ts, that `install` writes, with the floor as the program);
 * - `throughline`: the compiled binary, registered by its own `install`, as a user would;
 * - `no-op printing` (opt-in, `printingFloorBin`): the no-op, except that at the push its
 *   UserPromptSubmit prints as many characters as throughline's push did: what the client's own
 *   handling of a hook's output costs, apart from what computing it costs (buildPrintingFloor).
 *
 * Each configuration has its own isolated home and interactive session (harness/e2e/driver.ts: a
 * private tmux, the stand-in model); the three are driven in turn, round by round, with the order
 * rotated each round, so a shared machine's drift falls on all three alike. The time is one
 * clock in this process: `performance.now()` just before `tmux send-keys Enter`, and the
 * stand-in's `arrivedAt` (same clock) for the main request carrying that prompt. Nothing blocks
 * the event loop between the two (no screen capture until the request is in), so the server
 * stamps the request when it comes. What tmux itself adds is in every cell and cancels in the
 * "added" figures.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import {
  createHome,
  type E2EHome,
  queryDb,
  REPO_ROOT,
  runShell,
  settingsPath,
  TmuxClaude,
  waitUntil,
} from "../harness/e2e/driver.ts";
import { turnStored } from "../harness/e2e/scenario.ts";
import { lastPrompt, lastUserMessage, messageText, type RecordedRequest } from "../harness/e2e/stand-in.ts";
import { shellQuote } from "../src/core/invocation.ts";
import { PUSH_HEADING } from "../src/core/search.ts";
import { mergeHooks } from "../src/core/settings.ts";
import { median, PRINTING_FLOOR_FILE, round } from "./lib.ts";

export const CLIENT_CONFIGS = ["none", "no-op", "throughline"] as const;
export type ClientConfig = (typeof CLIENT_CONFIGS)[number] | "no-op printing";
export const CLIENT_MOMENTS = ["steady", "push"] as const;
export type ClientMoment = (typeof CLIENT_MOMENTS)[number];

/** The pinned client versions (.e2e/, as CI installs them). */
export const CLIENT_VERSIONS = ["2.1.332", "2.1.197"] as const;

export function pinnedClaude(version: string): string {
  return join(REPO_ROOT, ".e2e", `claude-${version}`, "node_modules", ".bin", "claude");
}

/** The goal: throughline adds at most this many times what the no-op hook adds. */
export const CLIENT_GOAL = 1.2;

export interface ClientSample {
  ms: number;
  prompt: string;
  /** The request carried throughline's resume context (the push). */
  pushed: boolean;
  /** Throughline's push came from the rehearsal (docs/hooks.md, "The push printed ahead"). */
  ahead?: boolean;
}

export interface ClientCell {
  config: ClientConfig;
  moment: ClientMoment;
  samples: ClientSample[];
  median_ms: number;
  /**
   * Lower quartile: context, not the goal's figure. On a loaded machine the upper half is other
   * processes' bursts; the lower quartile stays nearer what the client and the hook cost alone.
   */
  q1_ms: number;
}

export interface ClientMomentResult {
  none_ms: number;
  /** no-op median − none median. */
  noop_added_ms: number;
  /** throughline median − none median. */
  throughline_added_ms: number;
  /** throughline added / no-op added; null when the no-op added nothing measurable (≤ 0). */
  ratio: number | null;
  met: boolean | null;
  /** The same from the lower quartiles (context). */
  q1: { none_ms: number; noop_added_ms: number; throughline_added_ms: number; ratio: number | null };
}

export interface ClientVersionReport {
  version: string;
  claude: string;
  /** Why this version was not measured. */
  skipped?: string;
  rounds: number;
  /** 1-minute load average before and after the version's run: how busy the shared machine was. */
  load?: [number, number];
  cells: ClientCell[];
  moments: Partial<Record<ClientMoment, ClientMomentResult>>;
  /** With `no-op printing`: at the push, what it added, and throughline's added over it. */
  printing?: { push_chars: number; added_ms: number; ratio: number | null };
}

export interface ClientBenchOptions {
  /** The compiled floor (bench/lib.ts buildFloor). */
  floorBin: string;
  /** The compiled throughline (bench/lib.ts buildBinary). */
  bin: string;
  /** The printing floor (bench/lib.ts buildPrintingFloor): adds the `no-op printing` configuration. */
  printingFloorBin?: string;
  /** Measured rounds (each: one steady prompt, /clear, one push per configuration); default 10. */
  rounds?: number;
  /** Versions and their CLIs; default both pinned ones under .e2e/. */
  clients?: { version: string; claude: string }[];
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

/** After a reply, before the next measured key: lets the turn's async hooks and the TUI settle. */
const SETTLE_MS = 300;
/** After /clear: SessionEnd and SessionStart(clear) run around it. */
const CLEAR_SETTLE_MS = 500;

interface Session {
  config: ClientConfig;
  h: E2EHome;
  tmux: TmuxClaude;
  /** The reply the screen shows last (what /clear removes). */
  lastReply: string;
}

/**
 * The push is in this prompt's own turn (its UserPromptSubmit output), not an earlier one: in
 * the messages after the last assistant message. Which message holds it differs by version
 * (2.1.197 sends the hook output, with the agent and skill listings, as a `system`-role message
 * after the prompt), so every role but the assistant's counts.
 */
function pushed(req: RecordedRequest): boolean {
  const msgs = req.body?.messages ?? [];
  const lastAssistant = msgs.findLastIndex((m) => m.role === "assistant");
  return msgs.slice(lastAssistant + 1).some((m) => messageText(m).includes(PUSH_HEADING));
}

function reply(prompt: string): string {
  return `Noted: ${prompt}`;
}

/** Register the configuration's hooks in the home's settings.json (none: nothing). */
function configure(h: E2EHome, config: ClientConfig, opts: ClientBenchOptions): void {
  if (config === "none") return;
  if (config === "no-op" || config === "no-op printing") {
    // What install writes, with the floor as the program: same events, matchers, async flags,
    // timeouts and command shape (the floor ignores `hook <sub>`).
    const floor = config === "no-op" ? opts.floorBin : opts.printingFloorBin!;
    const settings = mergeHooks({}, shellQuote(floor));
    writeFileSync(settingsPath(h), `${JSON.stringify(settings, null, 2)}\n`);
    return;
  }
  const r = runShell(h, `${shellQuote(opts.bin)} install`);
  if (r.exitCode !== 0)
    throw new Error(`throughline install failed (${r.exitCode}): ${r.stderr || r.stdout}`);
}

/**
 * Type `text`, then time Enter → the main request carrying it, then wait for the reply (and,
 * with throughline, for its Stop to have stored the turn, so its worker is not running during
 * the next measurement).
 */
async function timedPrompt(s: Session, text: string): Promise<{ ms: number; req: RecordedRequest }> {
  const { h, tmux } = s;
  tmux.typeText(text);
  await tmux.waitForScreen((sc) => sc.includes(text.slice(0, 40)), `typed text "${text}" on screen`, 10_000);
  const since = h.standIn.requests.length;
  let req: RecordedRequest | undefined;
  const t0 = performance.now();
  tmux.keys("Enter");
  // Polls the in-memory log with sleeps only: the server's handler runs the moment it can.
  await h.standIn.waitFor(
    (reqs) => {
      req = reqs
        .slice(since)
        .find((r) => r.kind === "main" && r.body && messageText(lastUserMessage(r.body)).includes(text));
      return req !== undefined;
    },
    30_000,
    `the model request for "${text}" (${s.config})`,
  );
  const found = req!;
  const ms = found.arrivedAt - t0;
  await tmux.waitForScreen((sc) => sc.includes(reply(text)), `the reply to "${text}" (${s.config})`);
  s.lastReply = reply(text);
  if (s.config === "throughline" && found.sessionId) {
    const sid = found.sessionId;
    await waitUntil(() => turnStored(h, sid, text, reply(text)), `turn "${text}" stored`, 15_000).catch(
      () => {},
    );
  }
  await Bun.sleep(SETTLE_MS);
  return { ms, req: found };
}

async function clear(s: Session): Promise<void> {
  await s.tmux.clear(s.lastReply);
  await Bun.sleep(CLEAR_SETTLE_MS);
}

function added(cells: ClientCell[], moment: ClientMoment, stat: "median_ms" | "q1_ms") {
  const at = (c: ClientConfig) => cells.find((x) => x.config === c && x.moment === moment)![stat];
  const none = at("none");
  const noop = at("no-op") - none;
  const tl = at("throughline") - none;
  return {
    none_ms: round(none, 1),
    noop_added_ms: round(noop, 1),
    throughline_added_ms: round(tl, 1),
    ratio: noop > 0 ? round(tl / noop) : null,
  };
}

function momentResult(cells: ClientCell[], moment: ClientMoment): ClientMomentResult {
  const m = added(cells, moment, "median_ms");
  return { ...m, met: m.ratio === null ? null : m.ratio <= CLIENT_GOAL, q1: added(cells, moment, "q1_ms") };
}

function quartile1(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const at = (s.length - 1) * 0.25;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

/** At the push: what the printing no-op added, and throughline's added over that. */
function printingResult(
  cells: ClientCell[],
  pushChars: number,
): NonNullable<ClientVersionReport["printing"]> {
  const at = (c: ClientConfig) => cells.find((x) => x.config === c && x.moment === "push")!.median_ms;
  const printing = at("no-op printing") - at("none");
  const tl = at("throughline") - at("none");
  return {
    push_chars: pushChars,
    added_ms: round(printing, 1),
    ratio: printing > 0 ? round(tl / printing) : null,
  };
}

/** The size of the newest push in the home's database (`injections.total_chars`). */
function lastPushChars(h: E2EHome): number | undefined {
  return queryDb(h, (db) =>
    db.query<{ n: number }, []>("SELECT total_chars AS n FROM injections ORDER BY id DESC LIMIT 1").get(),
  )?.n;
}

/** Text of `chars` characters shaped like a push's turn lines (what the printing no-op prints). */
function pushLike(chars: number): string {
  const line = "[12:00] [assistant]: the module was updated and its tests pass, as the turn before said.\n";
  return `# Resume context (bench)\n${line.repeat(Math.ceil(chars / line.length))}`.slice(0, chars);
}

/** Whether the newest push recorded in the home's database was printed ahead (`injections.prepared` = 2). */
function printedAhead(h: E2EHome): boolean {
  return (
    queryDb(h, (db) =>
      db.query<{ p: number }, []>("SELECT prepared AS p FROM injections ORDER BY id DESC LIMIT 1").get(),
    )?.p === 2
  );
}

/** Why the client part cannot run at all here, or null. */
export function clientSkipReason(): string | null {
  if (!Bun.which("tmux")) return "tmux is not installed";
  if (!Bun.which("git")) return "git is not installed";
  return null;
}

async function benchVersion(
  version: string,
  claude: string,
  opts: ClientBenchOptions,
): Promise<ClientVersionReport> {
  const rounds = Math.max(1, opts.rounds ?? 10);
  const log = opts.log ?? ((l: string) => console.error(l));
  const base: ClientVersionReport = { version, claude, rounds, cells: [], moments: {} };
  if (!existsSync(claude)) return { ...base, skipped: `no Claude Code CLI at ${claude}` };
  const why = clientSkipReason();
  if (why) return { ...base, skipped: why };

  const loadBefore = round(loadavg()[0] ?? 0);
  const homes: E2EHome[] = [];
  const sessions: Session[] = [];
  try {
    const configs: ClientConfig[] = [
      ...CLIENT_CONFIGS,
      ...(opts.printingFloorBin ? ["no-op printing" as const] : []),
    ];
    for (const config of configs) {
      const h = await createHome({ script: (_r, body) => reply(lastPrompt(body)) });
      homes.push(h);
      configure(h, config, opts);
      const tmux = await TmuxClaude.start(h, { claude });
      sessions.push({ config, h, tmux, lastReply: "" });
    }
    for (const s of sessions) await s.tmux.waitReady(60_000);

    const samples = new Map<string, ClientSample[]>();
    const key = (c: ClientConfig, m: ClientMoment) => `${c}/${m}`;
    for (const c of configs) for (const m of CLIENT_MOMENTS) samples.set(key(c, m), []);
    const tag = Math.random().toString(36).slice(2, 6);

    // Round 0 warms every session up (its first prompt, first /clear, first push) unmeasured.
    for (const s of sessions) await timedPrompt(s, `warm-up ${tag} ${s.config} first`);
    // What the printing no-op prints at the push: as many characters as throughline's last push.
    let pushChars = 0;
    const printFile = (h: E2EHome) => join(h.configDir, PRINTING_FLOOR_FILE);
    for (let r = 0; r <= rounds; r++) {
      if (r > 0) log(`  ${version}: round ${r}/${rounds}`);
      const order = configs.map((_, i) => sessions[(i + r) % sessions.length]!);
      for (const s of order) {
        const prompt = `steady ${tag} ${s.config} round ${r}`;
        const { ms, req } = await timedPrompt(s, prompt);
        if (r > 0) samples.get(key(s.config, "steady"))!.push({ ms, prompt, pushed: pushed(req) });
      }
      for (const s of order) {
        await clear(s);
        const prompt = `push ${tag} ${s.config} round ${r}`;
        if (s.config === "no-op printing") writeFileSync(printFile(s.h), pushLike(pushChars || 5500));
        const { ms, req } = await timedPrompt(s, prompt);
        if (s.config === "no-op printing") rmSync(printFile(s.h), { force: true });
        if (s.config === "throughline") pushChars = lastPushChars(s.h) ?? pushChars;
        const ahead = s.config === "throughline" ? printedAhead(s.h) : undefined;
        if (r > 0)
          samples
            .get(key(s.config, "push"))!
            .push({ ms, prompt, pushed: pushed(req), ...(ahead === undefined ? {} : { ahead }) });
      }
    }

    const cells: ClientCell[] = [];
    for (const config of configs)
      for (const moment of CLIENT_MOMENTS) {
        const xs = samples.get(key(config, moment))!;
        const ms = xs.map((x) => x.ms);
        cells.push({
          config,
          moment,
          samples: xs,
          median_ms: round(median(ms), 1),
          q1_ms: round(quartile1(ms), 1),
        });
      }
    return {
      ...base,
      load: [loadBefore, round(loadavg()[0] ?? 0)],
      cells,
      moments: { steady: momentResult(cells, "steady"), push: momentResult(cells, "push") },
      ...(opts.printingFloorBin ? { printing: printingResult(cells, pushChars) } : {}),
    };
  } finally {
    for (const s of sessions) await s.tmux.close();
    for (const h of homes) await h[Symbol.asyncDispose]();
  }
}

/** Every pinned version (or `opts.clients`), one after the other; absent CLIs are skipped with a reason. */
export async function benchClient(opts: ClientBenchOptions): Promise<ClientVersionReport[]> {
  const clients =
    opts.clients ?? CLIENT_VERSIONS.map((version) => ({ version, claude: pinnedClaude(version) }));
  const out: ClientVersionReport[] = [];
  for (const { version, claude } of clients) out.push(await benchVersion(version, claude, opts));
  return out;
}

/** The section's table, for `bun run bench`. */
export function renderClient(reports: ClientVersionReport[]): string {
  const lines: string[] = [
    `in the client: Enter → model request (median ms; "added" = minus none; goal: throughline added ≤ ${CLIENT_GOAL}× no-op added)`,
  ];
  for (const r of reports) {
    if (r.skipped) {
      lines.push(`  Claude Code ${r.version}: skipped (${r.skipped})`);
      continue;
    }
    const n = r.cells[0]?.samples.length ?? 0;
    lines.push(`  Claude Code ${r.version} (median of ${n}; load average ${r.load?.[0]} → ${r.load?.[1]})`);
    lines.push(
      `    ${"moment".padEnd(8)} ${"none".padStart(8)} ${"no-op".padStart(8)} ${"throughline".padStart(12)} ${"+no-op".padStart(8)} ${"+throughline".padStart(13)} ${"ratio".padStart(7)}  goal`,
    );
    const num = (x: number, w: number) => x.toFixed(1).padStart(w);
    const ratio = (x: number | null) => (x === null ? "-" : `${x}×`).padStart(7);
    for (const m of CLIENT_MOMENTS) {
      const res = r.moments[m];
      if (!res) continue;
      const cell = (c: ClientConfig) => r.cells.find((x) => x.config === c && x.moment === m)!;
      const pushed = cell("throughline").samples.filter((s) => s.pushed).length;
      const verdict = res.met === null ? "n/a (no-op added ≤ 0)" : res.met ? "met" : "MISSED";
      const ahead = cell("throughline").samples.filter((s) => s.ahead).length;
      const push =
        m === "push"
          ? `  (push text in ${pushed}/${cell("throughline").samples.length}, printed ahead in ${ahead})`
          : "";
      lines.push(
        `    ${m.padEnd(8)} ${num(cell("none").median_ms, 8)} ${num(cell("no-op").median_ms, 8)} ${num(cell("throughline").median_ms, 12)} ${num(res.noop_added_ms, 8)} ${num(res.throughline_added_ms, 13)} ${ratio(res.ratio)}  ≤ ${CLIENT_GOAL}× ${verdict}${push}`,
      );
      lines.push(
        `    ${"  q1".padEnd(8)} ${num(cell("none").q1_ms, 8)} ${num(cell("no-op").q1_ms, 8)} ${num(cell("throughline").q1_ms, 12)} ${num(res.q1.noop_added_ms, 8)} ${num(res.q1.throughline_added_ms, 13)} ${ratio(res.q1.ratio)}  (lower quartile, context)`,
      );
    }
  }
  for (const r of reports)
    if (r.printing)
      lines.push(
        `  Claude Code ${r.version}, push: a no-op printing ${r.printing.push_chars} characters adds ${r.printing.added_ms} ms; throughline's added over that: ${r.printing.ratio === null ? "-" : `${r.printing.ratio}×`}`,
      );
  return lines.join("\n");
}
