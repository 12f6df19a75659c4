/**
 * Drives the real Claude Code CLI against the stand-in (stand-in.ts) in an isolated home:
 * `claude -p` runs, interactive sessions in a private tmux server, hook registration, and
 * read-only access to what the run left behind (database, transcripts, recorded hook payloads).
 * Every wait polls a file, the screen or the stand-in's request log; nothing sleeps blindly.
 */
import { Database } from "bun:sqlite";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SETTINGS_HOOKS } from "../../src/core/hook-table.ts";
import { shellQuote } from "../../src/core/invocation.ts";
import { USER_PATH } from "../db.ts";
import { type StandIn, type StandInOptions, startStandIn } from "./stand-in.ts";

/** The checkout this harness belongs to (never hard-coded). */
export const REPO_ROOT = resolve(import.meta.dir, "../..");
export const CLI_ENTRY = join(REPO_ROOT, "src/cli.ts");
export const HOOK_RECORDER = join(import.meta.dir, "hook-recorder.ts");

/** Time to first token of the stand-in model (see createHome). */
export const DEFAULT_MODEL_LATENCY_MS = 250;

/** Any string works; Claude Code only checks it against `customApiKeyResponses.approved`. */
export const DUMMY_API_KEY = "sk-ant-api03-e2e-stand-in-0000000000000000000000000000-offlineKEY";

export function claudeBinary(): string {
  return process.env.THROUGHLINE_E2E_CLAUDE || join(REPO_ROOT, "node_modules/.bin/claude");
}

export function bunBinary(): string {
  return process.execPath;
}

/** Why the suite cannot run here, or null when it can. */
export function e2eSkipReason(): string | null {
  if (process.env.THROUGHLINE_SKIP_E2E === "1") return "THROUGHLINE_SKIP_E2E=1";
  if (!existsSync(claudeBinary())) return `no Claude Code CLI at ${claudeBinary()} (run bun install)`;
  if (!Bun.which("tmux")) return "tmux is not installed";
  if (!Bun.which("git")) return "git is not installed";
  return null;
}

export async function waitUntil<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(intervalMs);
  }
}

export interface E2EHome {
  /** Temp root holding everything below; removed on dispose unless E2E_KEEP=1. */
  root: string;
  home: string;
  configDir: string;
  throughlineHome: string;
  dbPath: string;
  /** Where hook-recorder.ts saves payloads. */
  hookLogDir: string;
  /** Default working directory of the sessions (trusted, a fresh git repository). */
  project: string;
  standIn: StandIn;
  /** The complete environment of every process the harness starts. */
  env: Record<string, string>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface E2EHomeOptions extends StandInOptions {
  /** Extra trusted project directories (created), besides the default one. */
  extraProjects?: string[];
}

/**
 * A fresh, isolated world: temp HOME with a pre-accepted `.claude.json`, the stand-in on a
 * random loopback port, and an environment that keeps Claude Code off the network. Use with
 * `await using h = await createHome()`.
 */
export async function createHome(opts: E2EHomeOptions = {}): Promise<E2EHome> {
  // realpath: on macOS the temp dir is behind a symlink and Claude Code records the real cwd.
  const root = realpathSync(mkdtempSync(join(tmpdir(), "throughline-e2e-")));
  const home = join(root, "home");
  const configDir = join(home, ".claude");
  const throughlineHome = join(root, "throughline");
  const hookLogDir = join(root, "hook-log");
  const project = join(root, "project");
  for (const d of [home, configDir, hookLogDir, project]) mkdirSync(d, { recursive: true });
  const projects = [project, ...(opts.extraProjects ?? []).map((p) => join(root, p))];
  for (const p of projects) mkdirSync(p, { recursive: true });

  const logDir = opts.logDir ?? (process.env.E2E_LOG_REQUESTS === "1" ? join(root, "requests") : undefined);
  if (logDir) mkdirSync(logDir, { recursive: true });
  // Claude Code writes the transcript on a short timer: a model that answers faster than that
  // lets Stop fire before the transcript file exists (seen as "transcript not found" from
  // throughline's Stop). A real model never answers that fast, so the stand-in waits like one;
  // E2E_MODEL_LATENCY_MS=0 brings the race back on purpose.
  const latencyMs = opts.latencyMs ?? Number(process.env.E2E_MODEL_LATENCY_MS ?? DEFAULT_MODEL_LATENCY_MS);
  const standIn = await startStandIn({ ...opts, logDir, latencyMs });

  // Claude Code reads its global config from `$CLAUDE_CONFIG_DIR/.claude.json` when that
  // variable is set (and `$HOME/.claude.json` otherwise): write both, so either layout works.
  const globalConfig = `${JSON.stringify(
    {
      hasCompletedOnboarding: true,
      // Claude Code stores (and compares) the last 20 characters of an approved API key.
      customApiKeyResponses: { approved: [DUMMY_API_KEY.slice(-20)], rejected: [] },
      projects: Object.fromEntries(
        projects.map((p) => [p, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }]),
      ),
    },
    null,
    2,
  )}\n`;
  writeFileSync(join(home, ".claude.json"), globalConfig);
  writeFileSync(join(configDir, ".claude.json"), globalConfig);
  writeFileSync(
    join(home, ".gitconfig"),
    "[user]\n\tname = E2E Test\n\temail = e2e@example.invalid\n[init]\n\tdefaultBranch = main\n",
  );

  // Built from scratch: nothing of the outer environment (a real API key, CLAUDECODE when the
  // suite runs inside Claude Code, a real HOME) may reach the CLI.
  const env: Record<string, string> = {
    // A user's PATH: throughline is not on it and neither is node_modules/.bin, so a printed
    // command that works here works for a user too.
    PATH: USER_PATH,
    HOME: home,
    USER: process.env.USER ?? "e2e",
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    TZ: "UTC",
    SHELL: "/bin/sh",
    TMPDIR: root,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: standIn.url,
    ANTHROPIC_API_KEY: DUMMY_API_KEY,
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    THROUGHLINE_HOME: throughlineHome,
    NO_COLOR: "1",
  };

  return {
    root,
    home,
    configDir,
    throughlineHome,
    dbPath: join(throughlineHome, "throughline.db"),
    hookLogDir,
    project,
    standIn,
    env,
    async [Symbol.asyncDispose]() {
      await standIn.stop();
      if (process.env.E2E_KEEP === "1") console.error(`e2e: kept ${root}`);
      else rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Claude Code hook events throughline registers in settings (the one table, src/core/hook-table.ts). */
export const HOOK_EVENTS = SETTINGS_HOOKS.map((h) => ({ event: h.event, cli: h.sub, async: h.async }));

/**
 * - `manual`: the harness writes settings.json itself, pointing every event at
 *   `bun <repo>/src/cli.ts hook <event>` (what install is specified to write for a checkout).
 * - `install`: run the real `throughline install`, so the scenarios prove the real install path.
 * - `auto`: `install` as soon as the command exists, `manual` until then.
 */
export type HookMode = "manual" | "install" | "auto";

interface HookEntry {
  type: "command";
  command: string;
  timeout?: number;
  async?: boolean;
}
interface HookGroup {
  matcher?: string;
  hooks: HookEntry[];
}
type Settings = { hooks?: Record<string, HookGroup[]> } & Record<string, unknown>;

function addGroup(hooks: Record<string, HookGroup[]>, event: string, entry: HookEntry): void {
  const groups = hooks[event] ?? [];
  groups.push({ hooks: [entry] });
  hooks[event] = groups;
}

export function settingsPath(h: E2EHome): string {
  return join(h.configDir, "settings.json");
}

export function readSettings(h: E2EHome): Settings {
  const p = settingsPath(h);
  return existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as Settings) : {};
}

function writeSettings(h: E2EHome, s: Settings): void {
  writeFileSync(settingsPath(h), `${JSON.stringify(s, null, 2)}\n`);
}

/**
 * Run a command line exactly as printed, through `sh -c` in the harness environment (a user's
 * PATH), from the project directory: what Claude Code's Bash tool does with it.
 */
export function runShell(h: E2EHome, command: string, cwd = h.project) {
  const r = Bun.spawnSync(["/bin/sh", "-c", command], { cwd, env: h.env, stdout: "pipe", stderr: "pipe" });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** Run `throughline <args>` in the harness environment. */
export function runThroughline(
  h: E2EHome,
  args: string[],
  cwd = h.project,
): { exitCode: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync([bunBinary(), CLI_ENTRY, ...args], {
    cwd,
    env: h.env,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/**
 * Register throughline's hooks for the isolated home. With `record` (default true), a
 * hook-recorder entry is registered first for every event, so scenarios can read the payloads
 * (`readHookLog`); it is a separate entry, so throughline's own command and its latency stay
 * exactly what a user would have.
 *
 * `auto` runs the real `throughline install` on top of the recorder entries (which also proves
 * install keeps foreign hooks); it falls back to `manual` only in a checkout without the
 * install command. The harness was written before install existed: `manual` writes what
 * docs/contract.md#hooks says install writes for a checkout, and can be deleted once nobody needs to test
 * a tree without install.
 */
export function installHooks(h: E2EHome, mode: HookMode = "auto", opts: { record?: boolean } = {}): HookMode {
  const record = opts.record ?? true;
  // `auto` is the real install: a broken install must fail the scenario, not fall back.
  const resolved: HookMode = mode === "auto" ? "install" : mode;
  const settings = readSettings(h);
  const hooks: Record<string, HookGroup[]> = settings.hooks ?? {};
  // The recorder copies each event's async flag: in `claude -p` a synchronous Stop hook makes
  // the CLI wait for the Stop hooks, an all-async set does not, so a synchronous recorder would
  // change the very behaviour under test.
  if (record)
    for (const { event, async } of HOOK_EVENTS) {
      const entry: HookEntry = {
        type: "command",
        command: [bunBinary(), HOOK_RECORDER, h.hookLogDir].map(shellQuote).join(" "),
        timeout: 30,
      };
      if (async) entry.async = true;
      addGroup(hooks, event, entry);
    }
  if (resolved === "manual") {
    for (const { event, cli, async } of HOOK_EVENTS) {
      const entry: HookEntry = {
        type: "command",
        command: [bunBinary(), CLI_ENTRY, "hook", cli].map(shellQuote).join(" "),
        timeout: 30,
      };
      if (async) entry.async = true;
      addGroup(hooks, event, entry);
    }
    writeSettings(h, { ...settings, hooks });
    return "manual";
  }
  writeSettings(h, { ...settings, hooks });
  const r = runThroughline(h, ["install"]);
  if (r.exitCode !== 0)
    throw new Error(`throughline install failed (${r.exitCode}): ${r.stderr || r.stdout}`);
  return "install";
}

/** Remove throughline's hooks again with the real `uninstall`. */
export function uninstallHooks(h: E2EHome): void {
  const r = runThroughline(h, ["uninstall"]);
  if (r.exitCode !== 0)
    throw new Error(`throughline uninstall failed (${r.exitCode}): ${r.stderr || r.stdout}`);
}

export interface HookRecord {
  event: string;
  at: number;
  payload: Record<string, unknown>;
}

/** Every payload hook-recorder saw, in firing order. */
export function readHookLog(h: E2EHome): HookRecord[] {
  if (!existsSync(h.hookLogDir)) return [];
  return readdirSync(h.hookLogDir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => {
      try {
        return JSON.parse(readFileSync(join(h.hookLogDir, f), "utf8")) as HookRecord;
      } catch {
        return null; // still being written
      }
    })
    .filter((r): r is HookRecord => r !== null)
    .sort((a, b) => a.at - b.at);
}

export function hookEvents(h: E2EHome, event: string, sessionId?: string): HookRecord[] {
  return readHookLog(h).filter(
    (r) => r.event === event && (sessionId === undefined || r.payload.session_id === sessionId),
  );
}

export interface PrintResult {
  exitCode: number;
  sessionId: string;
  result: string;
  /** The final `result` object (`--output-format json`, or the last stream-json event). */
  json: Record<string, unknown>;
  /** Every stream-json event, when the run was held (`holdUntil`). */
  events: Record<string, unknown>[];
  stdout: string;
  stderr: string;
}

export interface PrintOptions {
  resume?: string;
  allowedTools?: string[];
  cwd?: string;
  extraArgs?: string[];
  timeoutMs?: number;
  /**
   * Keep the CLI alive after its reply until this holds (polled), then let it exit.
   *
   * Why: when `claude -p` has printed its result it cancels every async hook still running
   * (Claude Code 2.1.197 kills them ~50 ms after Stop fires) and then skips SessionEnd. Our
   * Stop hook is async, so a plain `-p` run captures its last turn only if the hook wins that
   * race. A held run uses `--input-format stream-json`, which waits on stdin for more prompts:
   * the hooks finish as they would in an interactive session, deterministically.
   */
  holdUntil?: (sessionId: string) => boolean | Promise<boolean>;
  holdTimeoutMs?: number;
  /** Extra text for the error when `holdUntil` never holds (what the database saw, say). */
  explainHold?: (sessionId: string) => string;
}

function printArgs(opts: PrintOptions): string[] {
  const args: string[] = [];
  if (opts.resume) args.push("--resume", opts.resume);
  if (opts.allowedTools?.length) args.push("--allowedTools", opts.allowedTools.join(","));
  args.push(...(opts.extraArgs ?? []));
  return args;
}

/** `claude -p <prompt> --output-format json`: one headless turn, with its session id. */
export async function runPrint(h: E2EHome, prompt: string, opts: PrintOptions = {}): Promise<PrintResult> {
  if (opts.holdUntil) return runPrintHeld(h, prompt, opts);
  const proc = Bun.spawn([claudeBinary(), "-p", prompt, "--output-format", "json", ...printArgs(opts)], {
    cwd: opts.cwd ?? h.project,
    env: h.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs ?? 90_000,
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`claude -p printed no JSON (exit ${exitCode}):\n${stdout}\n${stderr}`);
  }
  return {
    exitCode,
    sessionId: String(json.session_id ?? ""),
    result: String(json.result ?? ""),
    json,
    events: [],
    stdout,
    stderr,
  };
}

async function runPrintHeld(h: E2EHome, prompt: string, opts: PrintOptions): Promise<PrintResult> {
  const proc = Bun.spawn(
    [
      claudeBinary(),
      "-p",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--verbose",
      ...printArgs(opts),
    ],
    {
      cwd: opts.cwd ?? h.project,
      env: h.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      timeout: opts.timeoutMs ?? 90_000,
    },
  );
  const stderrText = new Response(proc.stderr).text();
  proc.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: prompt } })}\n`);
  await proc.stdin.flush();

  const events: Record<string, unknown>[] = [];
  let stdout = "";
  let buf = "";
  let result: Record<string, unknown> | undefined;
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  while (!result) {
    const { value, done } = await reader.read();
    if (done) break;
    const chunk = decoder.decode(value, { stream: true });
    stdout += chunk;
    buf += chunk;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      const ev = JSON.parse(line) as Record<string, unknown>;
      events.push(ev);
      if (ev.type === "result") result = ev;
    }
  }
  if (!result) {
    proc.kill();
    throw new Error(`claude -p (stream-json) ended without a result:\n${stdout}\n${await stderrText}`);
  }
  const sessionId = String(result.session_id ?? "");
  try {
    await waitUntil(
      () => opts.holdUntil!(sessionId),
      "the held claude -p condition",
      opts.holdTimeoutMs ?? 30_000,
    );
  } catch (err) {
    const more = opts.explainHold?.(sessionId);
    throw new Error(`${(err as Error).message} (session ${sessionId})${more ? `\n${more}` : ""}`);
  } finally {
    proc.stdin.end();
    // Drain the rest so the process can exit.
    void (async () => {
      for (;;) if ((await reader.read()).done) break;
    })().catch(() => {});
  }
  const exitCode = await proc.exited;
  return {
    exitCode,
    sessionId,
    result: String(result.result ?? ""),
    json: result,
    events,
    stdout,
    stderr: await stderrText,
  };
}

/** `~/.claude/projects/<encoded cwd>/<session>.jsonl`, found by name (no reliance on the encoding). */
export function findTranscript(h: E2EHome, sessionId: string): string | null {
  const base = join(h.configDir, "projects");
  if (!existsSync(base)) return null;
  for (const dir of readdirSync(base)) {
    const p = join(base, dir, `${sessionId}.jsonl`);
    if (existsSync(p)) return p;
  }
  return null;
}

export type TranscriptEntry = Record<string, unknown> & { type?: string };

export function readTranscript(path: string): TranscriptEntry[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TranscriptEntry);
}

/** Read-only view of the throughline database (never creates or migrates it). */
export function openDb(h: E2EHome): Database {
  const db = new Database(h.dbPath, { readonly: true });
  // A hook may be creating the schema or holding the WAL lock right now: wait, do not fail.
  db.run("PRAGMA busy_timeout = 5000");
  return db;
}

export function dbExists(h: E2EHome): boolean {
  return existsSync(h.dbPath);
}

/** Number of stored turns whose origin is `sessionId`, or 0 when there is no database yet. */
export function turnCount(h: E2EHome, sessionId: string): number {
  return (
    queryDb(
      h,
      (db) =>
        (
          db.query("SELECT count(*) AS n FROM turns WHERE origin_session_id = ?").get(sessionId) as {
            n: number;
          }
        ).n,
    ) ?? 0
  );
}

/**
 * Run a read against the database, or return undefined while it does not exist yet or its
 * schema is still being created by the first hook (what a poll wants).
 */
export function queryDb<T>(h: E2EHome, read: (db: Database) => T): T | undefined {
  if (!dbExists(h)) return undefined;
  const db = openDb(h);
  try {
    return read(db);
  } catch (err) {
    if (/no such table/.test(String(err))) return undefined;
    throw err;
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Interactive sessions in tmux

let tmuxSeq = 0;

/**
 * The line under an idle input box: "? for shortcuts" (2.1.197), the permission-mode line
 * "⏵⏵ auto mode on (shift+tab to cycle)" or "? for shortcuts" again in default mode (2.1.332).
 */
export const INPUT_READY = /\? for shortcuts|shift\+tab to cycle/;

/** What runs in a TmuxPane, and where. */
export interface TmuxPaneOptions {
  root: string;
  env: Record<string, string>;
  cwd: string;
  argv: string[];
  /** Names the socket and the session. */
  prefix: string;
  width?: number | undefined;
  height?: number | undefined;
  screenTimeoutMs: number;
}

/**
 * A program in a private tmux server (its own socket under a temp root), so the harness never
 * touches a tmux the developer is running: what TmuxClaude and the Codex TUI driver share.
 */
export class TmuxPane {
  readonly env: Record<string, string>;
  readonly socket: string;
  readonly name: string;
  /** How long waitForScreen waits by default (a client's first launch differs). */
  protected readonly screenTimeoutMs: number;

  protected constructor(opts: TmuxPaneOptions) {
    this.env = opts.env;
    this.socket = join(opts.root, `tmux-${opts.prefix}-${++tmuxSeq}.sock`);
    this.name = `${opts.prefix}${tmuxSeq}`;
    this.screenTimeoutMs = opts.screenTimeoutMs;
    const cmd = opts.argv.map(shellQuote).join(" ");
    // The tmux server is started by this call and inherits env, so the program sees exactly it.
    const r = Bun.spawnSync(
      [
        "tmux",
        "-S",
        this.socket,
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        this.name,
        "-x",
        String(opts.width ?? 160),
        "-y",
        String(opts.height ?? 50),
        "-c",
        opts.cwd,
        cmd,
      ],
      { env: opts.env, stdout: "pipe", stderr: "pipe" },
    );
    if (r.exitCode !== 0) throw new Error(`tmux new-session failed: ${r.stderr.toString()}`);
    // Keep the pane after the program exits, so a crash is visible in capture() instead of vanishing.
    this.tmux("set-option", "-t", this.name, "remain-on-exit", "on");
  }

  tmux(...args: string[]): string {
    const r = Bun.spawnSync(["tmux", "-S", this.socket, ...args], {
      env: this.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
    return r.stdout.toString();
  }

  /** The visible screen, as plain text. */
  capture(): string {
    return this.tmux("capture-pane", "-p", "-t", this.name);
  }

  /** Named keys (`Enter`, `Escape`, `C-c`) as tmux understands them. */
  keys(...keys: string[]): void {
    this.tmux("send-keys", "-t", this.name, ...keys);
  }

  /** Literal text, without pressing Enter. */
  typeText(text: string): void {
    this.tmux("send-keys", "-t", this.name, "-l", text);
  }

  async waitForScreen(
    pred: RegExp | ((screen: string) => boolean),
    what: string,
    timeoutMs = this.screenTimeoutMs,
  ): Promise<string> {
    const test = typeof pred === "function" ? pred : (s: string) => pred.test(s);
    let last = "";
    try {
      return await waitUntil(
        () => {
          last = this.capture();
          return test(last) ? last : null;
        },
        what,
        timeoutMs,
        100,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${last}`);
    }
  }

  /** Whether the program in the pane has exited (the pane stays: remain-on-exit). */
  exited(): boolean {
    try {
      return this.tmux("display-message", "-p", "-t", this.name, "#{pane_dead}").trim() === "1";
    } catch {
      return true;
    }
  }

  /** Stop the private tmux server, and the program with it. */
  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // Already gone.
    }
  }
}

/** One interactive `claude` in a private tmux server. */
export class TmuxClaude extends TmuxPane {
  readonly h: E2EHome;

  private constructor(h: E2EHome, opts: TmuxPaneOptions) {
    super(opts);
    this.h = h;
  }

  static async start(
    h: E2EHome,
    opts: { cwd?: string; args?: string[]; width?: number; height?: number; claude?: string } = {},
  ): Promise<TmuxClaude> {
    // `claude`: another CLI than claudeBinary() (bench/client.ts runs both pinned versions).
    return new TmuxClaude(h, {
      root: h.root,
      env: h.env,
      cwd: opts.cwd ?? h.project,
      argv: [opts.claude ?? claudeBinary(), ...(opts.args ?? [])],
      prefix: "e2e",
      width: opts.width,
      height: opts.height,
      screenTimeoutMs: 30_000,
    });
  }

  /** Wait until the input box is up (the first launch takes a moment). */
  async waitReady(timeoutMs = 30_000): Promise<void> {
    // Not "❯" alone: the trust and API-key dialogs draw it too.
    await this.waitForScreen(INPUT_READY, "the Claude Code input prompt", timeoutMs);
  }

  /**
   * Type a line and submit it. The text is typed, then Enter is sent once the text shows on
   * screen, so a fast Enter is never swallowed by Ink's paste detection.
   */
  async submit(text: string): Promise<void> {
    this.typeText(text);
    const probe = text.slice(0, 40);
    await this.waitForScreen((s) => s.includes(probe), `typed text "${probe}" on screen`, 10_000);
    this.keys("Enter");
  }

  /**
   * Type `/clear` and wait until the screen no longer shows `previousText` (something of the
   * cleared conversation) and the input prompt is back. Claude Code then has a new session
   * id; with the recorder installed, `hookEvents(h, "SessionStart")` shows source `clear`.
   */
  async clear(previousText: string): Promise<void> {
    await this.submit("/clear");
    await this.waitForScreen(
      (s) => !s.includes(previousText) && INPUT_READY.test(s),
      "the screen to clear after /clear",
    );
  }

  /**
   * Leave the way a user does (`/exit`), so SessionEnd and every hook finish before the temp
   * root is removed, then stop the private tmux server. A session that does not exit within
   * `timeoutMs` is killed.
   */
  async close(timeoutMs = 15_000): Promise<void> {
    try {
      if (!this.exited()) {
        await this.submit("/exit");
        await waitUntil(() => this.exited(), "claude to exit after /exit", timeoutMs, 100);
      }
    } catch {
      // Fall through to the kill: a stuck UI must not keep the suite waiting.
    } finally {
      this.kill();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
