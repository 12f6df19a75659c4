import type { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { selfInvocation, shellQuote } from "../src/core/invocation.ts";
import { openForWrite } from "../src/db/open.ts";
import { FINAL_TEXT } from "../src/db/row-forms.ts";

export const REPO = join(import.meta.dir, "..");
export const FIXTURES = join(REPO, "test", "fixtures");
export const CORPUS = join(REPO, "..", "shared", "corpus");
/** The corpus's transcripts (a sub-agent's is `<session>.sub-agent-<id>.jsonl` beside its session's). */
export const CORPUS_TRANSCRIPTS = join(CORPUS, "transcripts");
/** The corpus's transcript file names, sorted; none where the corpus is absent (its suites skip). */
export function corpusTranscripts(): string[] {
  return existsSync(CORPUS_TRANSCRIPTS)
    ? readdirSync(CORPUS_TRANSCRIPTS)
        .filter((f) => f.endsWith(".jsonl"))
        .sort()
    : [];
}
/** The sample session the demo replays; it ships with the product. */
export const SAMPLE = join(REPO, "src", "sample", "todo-api-session.jsonl");

/** A temp directory removed at the end of the `using` scope. */
export function tempDir(prefix = "tl-"): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

export function tempDb(): { path: string; db: Database; dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), "tl-db-"));
  const path = join(dir, "throughline.db");
  const db = openForWrite(path);
  return {
    path,
    db,
    dir,
    [Symbol.dispose]: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Content hash of the memory tables, without surrogate ids or processing times: two
 * databases holding the same memory hash the same however they were filled.
 */
export function memoryHash(db: Database): string {
  const h = createHash("sha256");
  const dump = (sql: string) => {
    for (const row of db.query(sql).values()) h.update(`${JSON.stringify(row)}\n`);
  };
  dump(
    "SELECT origin_session_id, turn_number, session_id, started_at, ended_at, user_chars, assistant_chars FROM turns ORDER BY origin_session_id, turn_number",
  );
  dump(
    `SELECT t.origin_session_id, t.turn_number, b.role, b.text, ${FINAL_TEXT("b")} FROM bodies b JOIN turns t ON t.id = b.turn_id
     ORDER BY t.origin_session_id, t.turn_number, b.role`,
  );
  // A turn's details are keyed on its row id (schema 11), which differs between two databases
  // holding the same memory: compared on their place instead.
  dump(
    `SELECT d.origin_session_id, t.turn_number, d.source, d.ord,
            CASE WHEN d.source = 'transcript' AND d.turn_id IS NOT NULL THEN NULL ELSE d.ikey END AS k,
            d.kind, d.tool_name, d.tool_use_id, d.input, d.output, d.is_error, d.created_at
     FROM details d LEFT JOIN turns t ON t.id = d.turn_id ORDER BY 1, 2, 3, 4, 5`,
  );
  dump(
    "SELECT ikey, origin_session_id, turn_number, seq, ts, type, summary, detail FROM events ORDER BY ikey",
  );
  dump(
    "SELECT t.origin_session_id, t.turn_number, s.summary FROM skeletons s JOIN turns t ON t.id = s.turn_id ORDER BY 1, 2",
  );
  return h.digest("hex");
}

export function count(db: Database, sql: string, params: Record<string, string | number> = {}): number {
  return (db.query(sql).get(params) as { n: number }).n;
}

/**
 * What the CLI started by runCli prints as its own invocation (core/invocation.ts): the same
 * bun binary as this test process, then the absolute entry.
 */
export const CLI_INVOCATION = selfInvocation(join(REPO, "src", "cli.ts"), process.execPath);

/**
 * A PATH like a user's: system directories and where bun lives, never node_modules/.bin, so a
 * printed command that only works inside the project fails here as it would for the model.
 */
export const USER_PATH = [
  dirname(process.execPath),
  "/opt/homebrew/bin",
  "/usr/local/bin",
  "/usr/bin",
  "/bin",
].join(":");

/**
 * Run a command line exactly as printed, through `sh -c` with USER_PATH, as Claude Code's
 * Bash tool would; `extra` words are appended quoted; `cwd` is where it runs (default: here).
 */
export function runShell(
  command: string,
  opts: { env?: Record<string, string>; extra?: string[]; cwd?: string } = {},
) {
  const line = [command, ...(opts.extra ?? []).map(shellQuote)].join(" ");
  const proc = Bun.spawnSync(["/bin/sh", "-c", line], {
    env: {
      // setup.ts points these at temp dirs: the shell gets nothing else of this environment.
      HOME: process.env.HOME!,
      THROUGHLINE_HOME: process.env.THROUGHLINE_HOME!,
      CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR!,
      TZ: "UTC",
      NO_COLOR: "1",
      ...opts.env,
      PATH: USER_PATH,
    },
    stdin: "ignore",
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
  });
  return { exitCode: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** Run the CLI from source as a user would; returns exit code and both streams. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
) {
  const proc = Bun.spawnSync(["bun", join(REPO, "src", "cli.ts"), ...args], {
    env: { ...process.env, ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : Buffer.from(opts.stdin),
    cwd: opts.cwd ?? REPO,
  });
  return { exitCode: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}
