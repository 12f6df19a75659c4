/**
 * An isolated world for the real Codex CLI (docs/testing.md; the recipe is
 * ../shared/docs/codex-HARNESS.md): a `$CODEX_HOME` whose config points at the loopback stand-in
 * (codex-stand-in.ts) and trusts the project, a git project, and a throughline home. Alone
 * (codex-exec.test.ts) or beside a Claude Code world, sharing its project and throughline home
 * (two-hosts.test.ts). Nothing here reads the real home.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { USER_PATH } from "../../harness/db.ts";
import { TmuxPane, waitUntil } from "../../harness/e2e/driver.ts";
import { CodexStandIn } from "./codex-stand-in.ts";

const REPO = join(import.meta.dir, "..", "..");
export const CODEX = process.env.THROUGHLINE_E2E_CODEX || join(REPO, "node_modules", ".bin", "codex");

/** Why the Codex scenarios cannot run here, or null when they can: only a missing binary. */
export function codexSkipReason(): string | null {
  if (process.env.THROUGHLINE_SKIP_E2E === "1") return "THROUGHLINE_SKIP_E2E=1";
  return existsSync(CODEX) ? null : `no codex at ${CODEX} (run bun install)`;
}

export interface CodexWorld extends AsyncDisposable {
  root: string;
  project: string;
  codexHome: string;
  env: Record<string, string>;
  model: CodexStandIn;
}

/** Where a Codex world lives when it shares another's (a Claude Code world's) project and memory. */
export interface CodexShared {
  root: string;
  project: string;
  env: Record<string, string>;
}

export interface CodexWorldOptions {
  /** Share this world's root, project and environment (its THROUGHLINE_HOME, HOME, PATH). */
  beside?: CodexShared;
  /** Top-level lines added to config.toml (`model_auto_compact_token_limit = 1000`). */
  config?: string[];
  /**
   * For the interactive TUI (TmuxCodex): pre-answer its one-time notices in config.toml, a user's
   * PATH (throughline and node_modules/.bin are not on it), and a terminal's TERM and LANG.
   */
  tui?: boolean;
}

function gitProject(project: string): void {
  if (existsSync(join(project, ".git"))) return;
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], { cwd: project, stdout: "ignore", stderr: "ignore" });
  git("init", "-q");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init");
}

/**
 * The TUI's one-time notices, answered (../shared/docs/codex-HARNESS.md): the screen-reader probe, and
 * the "Meet GPT-6 Sol" nudge, whose count is at its cap (4) so that Codex leaves the file as it is (with
 * a lower count it writes the count + 1 back at each launch), in the layout Codex writes.
 */
const TUI_NOTICES = [
  "",
  "[tui]",
  "screen_reader_detection_done = true",
  "",
  "[tui.model_availability_nux]",
  '"gpt-6.1-sol" = 4',
  "[notice.model_migrations]",
  '"gpt-5.5" = "gpt-6-sol"',
  "",
];

function writeConfig(
  codexHome: string,
  project: string,
  model: CodexStandIn,
  extra: readonly string[],
  tui: boolean,
): void {
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      'model = "gpt-5.5"',
      'model_provider = "standin"',
      "check_for_update_on_startup = false",
      ...extra,
      "",
      "[analytics]",
      "enabled = false",
      "",
      `[projects.${JSON.stringify(project)}]`,
      'trust_level = "trusted"',
      "",
      "[model_providers.standin]",
      'name = "standin"',
      `base_url = "${model.baseUrl}"`,
      'env_key = "CODEX_STANDIN_KEY"',
      'wire_api = "responses"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      ...(tui ? TUI_NOTICES : [""]),
    ].join("\n"),
  );
}

export async function codexWorld(opts: CodexWorldOptions = {}): Promise<CodexWorld> {
  const own = opts.beside === undefined;
  const root = opts.beside?.root ?? realpathSync(mkdtempSync(join(tmpdir(), "tl-codex-e2e-")));
  const project = opts.beside?.project ?? join(root, "proj");
  const codexHome = join(root, "codex");
  mkdirSync(project, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  gitProject(project);
  const model = new CodexStandIn();
  writeConfig(codexHome, project, model, opts.config ?? [], opts.tui === true);
  const base = opts.beside?.env ?? {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    THROUGHLINE_HOME: join(root, "tl"),
    TZ: "UTC",
    NO_COLOR: "1",
  };
  const env: Record<string, string> = {
    ...base,
    ...(opts.tui === true ? { PATH: USER_PATH, TERM: "xterm-256color", LANG: "C.UTF-8" } : {}),
    CODEX_HOME: codexHome,
    CODEX_STANDIN_KEY: "dummy",
  };
  return {
    root,
    project,
    codexHome,
    env,
    model,
    async [Symbol.asyncDispose]() {
      await model[Symbol.asyncDispose]();
      if (own) rmSync(root, { recursive: true, force: true });
    },
  };
}

export function throughline(w: CodexWorld, args: string[]) {
  const p = Bun.spawnSync([process.execPath, join(REPO, "src", "cli.ts"), ...args], {
    env: w.env,
    cwd: w.project,
  });
  return { exitCode: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

export async function codexExec(
  w: CodexWorld,
  args: string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const p = Bun.spawn([CODEX, "exec", ...args], {
    env: w.env,
    cwd: w.project,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { exitCode: await p.exited, stdout, stderr };
}

/** A read of the world's database, or null before it exists (or while a read fails). */
export function query<T>(w: CodexWorld, read: (db: Database) => T): T | null {
  const path = join(w.env.THROUGHLINE_HOME!, "throughline.db");
  if (!existsSync(path)) return null;
  const db = new Database(path, { readonly: true });
  try {
    return read(db);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** Every stored turn's host, origin session and prompt, oldest first. */
export const turnTexts = (w: CodexWorld) =>
  query(
    w,
    (db) =>
      db
        .query(
          "SELECT s.host, t.origin_session_id AS session, b.text FROM turns t JOIN sessions s ON s.id = t.origin_session_id JOIN bodies b ON b.turn_id = t.id AND b.role = 'user' ORDER BY t.started_at",
        )
        .all() as { host: string | null; session: string; text: string }[],
  ) ?? [];

/** Why the TUI scenarios cannot run here, or null when they can: a missing codex or tmux. */
export function codexTuiSkipReason(): string | null {
  return codexSkipReason() ?? (Bun.which("tmux") ? null : "tmux is not installed");
}

/** The footer under an idle composer (Codex 0.171): the TUI takes a prompt. */
export const CODEX_READY = /\? for shortcuts/;

/**
 * One interactive `codex --no-daemon` (the TUI, its hooks run in its own process) in a private tmux
 * server on a socket under the world's root, so a developer's own tmux is never touched.
 */
export class TmuxCodex extends TmuxPane implements AsyncDisposable {
  readonly w: CodexWorld;

  private constructor(w: CodexWorld, args: string[]) {
    super({
      root: w.root,
      env: w.env,
      cwd: w.project,
      argv: [CODEX, ...args],
      prefix: "codex",
      screenTimeoutMs: 60_000,
    });
    this.w = w;
  }

  static start(w: CodexWorld, args: string[] = ["--no-daemon"]): TmuxCodex {
    return new TmuxCodex(w, args);
  }

  /** The composer is up and idle. */
  async waitReady(timeoutMs = 60_000): Promise<void> {
    await this.waitForScreen(CODEX_READY, "the Codex composer", timeoutMs);
  }

  /**
   * Type a line and submit it: the text is typed, Enter is sent once it shows in the composer (so
   * Codex's paste-burst detection never takes the Enter for a newline), and `submitted` is polled;
   * should it not come, Enter is sent again once (a swallowed Enter leaves the text in the composer).
   */
  async submit(text: string, submitted: () => boolean, timeoutMs = 60_000): Promise<void> {
    this.typeText(text);
    await this.waitForScreen((s) => s.includes(`› ${text}`), `"${text}" in the composer`, 20_000);
    this.keys("Enter");
    try {
      await waitUntil(submitted, `"${text}" submitted`, 10_000, 100);
    } catch {
      if (this.capture().includes(`› ${text}`)) this.keys("Enter");
      await waitUntil(submitted, `"${text}" submitted`, timeoutMs, 100);
    }
  }

  /**
   * Leave the way a user does (`/exit`: SessionEnd fires for every session of the run), then stop
   * the private tmux server; a TUI that does not exit in time is killed with it.
   */
  async close(timeoutMs = 30_000): Promise<void> {
    try {
      if (!this.exited()) {
        this.typeText("/exit");
        await this.waitForScreen((s) => s.includes("› /exit"), "/exit in the composer", 10_000);
        this.keys("Enter");
        await waitUntil(() => this.exited(), "codex to exit after /exit", timeoutMs, 100);
      }
    } finally {
      this.kill();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close().catch(() => undefined);
  }
}
