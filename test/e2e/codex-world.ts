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
}

function gitProject(project: string): void {
  if (existsSync(join(project, ".git"))) return;
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], { cwd: project, stdout: "ignore", stderr: "ignore" });
  git("init", "-q");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init");
}

function writeConfig(
  codexHome: string,
  project: string,
  model: CodexStandIn,
  extra: readonly string[],
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
      "",
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
  writeConfig(codexHome, project, model, opts.config ?? []);
  const base = opts.beside?.env ?? {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    THROUGHLINE_HOME: join(root, "tl"),
    TZ: "UTC",
    NO_COLOR: "1",
  };
  const env: Record<string, string> = { ...base, CODEX_HOME: codexHome, CODEX_STANDIN_KEY: "dummy" };
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
