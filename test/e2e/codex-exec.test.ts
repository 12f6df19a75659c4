/**
 * Codex as a second host, end to end (docs/hosts.md): the real Codex CLI (`@openai/codex`,
 * pinned in devDependencies) run offline with `codex exec` against the project's own loopback
 * stand-in of the Responses API (codex-stand-in.ts). Skipped only when the binary is absent.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../harness/e2e/driver.ts";
import { CodexStandIn } from "./codex-stand-in.ts";

const REPO = join(import.meta.dir, "..", "..");
const CODEX = process.env.THROUGHLINE_E2E_CODEX || join(REPO, "node_modules", ".bin", "codex");
const SKIP =
  process.env.THROUGHLINE_SKIP_E2E === "1"
    ? "THROUGHLINE_SKIP_E2E=1"
    : existsSync(CODEX)
      ? null
      : `no codex at ${CODEX}`;

interface CodexWorld extends AsyncDisposable {
  root: string;
  project: string;
  codexHome: string;
  env: Record<string, string>;
  model: CodexStandIn;
}

async function codexWorld(): Promise<CodexWorld> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tl-codex-e2e-")));
  const project = join(root, "proj");
  const codexHome = join(root, "codex");
  mkdirSync(project, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], { cwd: project, stdout: "ignore", stderr: "ignore" });
  git("init", "-q");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init");
  const model = new CodexStandIn();
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      'model = "gpt-5.5"',
      'model_provider = "standin"',
      "check_for_update_on_startup = false",
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
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    CODEX_HOME: codexHome,
    THROUGHLINE_HOME: join(root, "tl"),
    CODEX_STANDIN_KEY: "dummy",
    TZ: "UTC",
    NO_COLOR: "1",
  };
  return {
    root,
    project,
    codexHome,
    env,
    model,
    async [Symbol.asyncDispose]() {
      await model[Symbol.asyncDispose]();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function throughline(w: CodexWorld, args: string[]) {
  const p = Bun.spawnSync([process.execPath, join(REPO, "src", "cli.ts"), ...args], {
    env: w.env,
    cwd: w.project,
  });
  return { exitCode: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

async function codexExec(
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

function query<T>(w: CodexWorld, read: (db: Database) => T): T | null {
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

const turnTexts = (w: CodexWorld) =>
  query(
    w,
    (db) =>
      db
        .query(
          "SELECT s.host, t.origin_session_id AS session, b.text FROM turns t JOIN sessions s ON s.id = t.origin_session_id JOIN bodies b ON b.turn_id = t.id AND b.role = 'user' ORDER BY t.started_at",
        )
        .all() as { host: string | null; session: string; text: string }[],
  ) ?? [];

describe.skipIf(SKIP !== null)("codex exec (real Codex CLI, offline)", () => {
  test("install, three turns with a shell call, /tl, a new session: its first request carries the push, the pull it prints returns a pre-clear turn, uninstall restores the files", async () => {
    await using w = await codexWorld();
    const configBefore = readFileSync(join(w.codexHome, "config.toml"), "utf8");
    const installed = throughline(w, ["install", "codex"]);
    expect(installed.exitCode).toBe(0);
    expect(installed.stdout).toContain("Trusted exactly these 5 hooks for Codex");

    const marker = `marker-${Date.now().toString(36)}`;
    const first = await codexExec(w, ["first turn TAG:a1"]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("[a1] done");
    await codexExec(w, ["resume", "--last", "second turn TAG:a2"]);
    const third = await codexExec(w, ["resume", "--last", `third turn TAG:a3 RUN:echo ${marker}`]);
    expect(third.stdout).toContain("[a3] done (tool output seen)");
    // Every turn captured by its own Stop (a detached worker), marked with its host.
    const captured = await waitUntil(
      () => turnTexts(w).length === 3 && turnTexts(w),
      "three codex turns",
      20_000,
    );
    expect(captured.map((t) => t.host)).toEqual(["codex", "codex", "codex"]);
    const oldSession = captured[0]!.session;
    const shell = query(w, (db) =>
      db
        .query(
          "SELECT input, output FROM details WHERE kind IN ('tool_input','tool_output') AND tool_name = 'Bash' ORDER BY id",
        )
        .all(),
    ) as { input: string | null; output: string | null }[];
    expect(shell[0]!.input).toContain(`echo ${marker}`);
    expect(shell[1]!.output).toContain(marker);

    // /tl leaves a baton; the next new session in the project takes it and gets the push.
    await codexExec(w, ["resume", "--last", "/tl"]);
    await waitUntil(
      () => query(w, (db) => db.query("SELECT 1 FROM handoff_batons").get()),
      "the baton",
      10_000,
    );
    const before = w.model.requests.length;
    const next = await codexExec(w, ["continue PULL TAG:b1"]);
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toContain("[b1] done (tool output seen)");
    const firstRequest = w.model.requests[before]!;
    const push = firstRequest.developer.find(
      (d) => d.includes(`--session ${oldSession}`) || d.includes("recall --l2"),
    );
    expect(push).toBeDefined();
    // Whole: under Codex's ~10,000-character cut, nothing elided in the middle.
    expect(push!.length).toBeLessThanOrEqual(9_500);
    expect(push).not.toContain("tokens truncated");
    expect(push).toContain("third turn TAG:a3");
    // The stand-in model ran the push's `detail` pull with Codex's shell tool; its output, in
    // the next request, is the pre-clear turn with its shell call.
    const followUp = w.model.requests[before + 1]!;
    expect(followUp.toolOutputs).toHaveLength(1);
    expect(followUp.toolOutputs[0]).toContain("third turn TAG:a3");
    expect(followUp.toolOutputs[0]).toContain(`echo ${marker}`);
    expect(followUp.toolOutputs[0]).toContain("Process exited with code 0");
    // What throughline injected is not captured as the new session's turn.
    await waitUntil(
      () => turnTexts(w).some((t) => t.text === "continue PULL TAG:b1"),
      "the new turn",
      20_000,
    );
    const stored = query(w, (db) =>
      db.query("SELECT count(*) AS n FROM bodies WHERE text LIKE '%recall --l2%'").get(),
    ) as { n: number };
    expect(stored.n).toBe(0);

    const un = throughline(w, ["uninstall", "codex"]);
    expect(un.exitCode).toBe(0);
    expect(existsSync(join(w.codexHome, "hooks.json"))).toBe(false);
    expect(readFileSync(join(w.codexHome, "config.toml"), "utf8")).toBe(configBefore);
  }, 120_000);
});
