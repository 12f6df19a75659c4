/**
 * Shared pieces of the reliability tier (docs/testing.md): the size knob, process helpers,
 * a row-by-row dump of the memory tables, and a way to run a reader that cannot write.
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CORPUS, REPO } from "../../harness/db.ts";
import { FINAL_TEXT } from "../../src/db/row-forms.ts";

/**
 * `THROUGHLINE_RELIABILITY_SCALE=N` multiplies the default sizes (N ≥ 1). The default keeps the
 * tier within CI time on two cores; larger runs are for a release check.
 */
export const SCALE = Math.max(1, Number(process.env.THROUGHLINE_RELIABILITY_SCALE ?? 1) || 1);

export const CLI = join(REPO, "src", "cli.ts");

export const CORPUS_TRANSCRIPTS = join(CORPUS, "transcripts");

/** Corpus files, smallest first, when ../shared/corpus is present; else none. */
export function corpusFiles(): string[] {
  try {
    return readdirSync(CORPUS_TRANSCRIPTS)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(CORPUS_TRANSCRIPTS, f))
      .sort((a, b) => statSync(a).size - statSync(b).size || a.localeCompare(b));
  } catch {
    return [];
  }
}

/** Environment of a child process: never the real home, detaching off. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, THROUGHLINE_DETACH: "0", THROUGHLINE_FLUSH_WAIT_MS: "0", ...extra };
}

export interface Finished {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

interface Piped {
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  exited: Promise<number>;
  exitCode: number | null;
  signalCode: NodeJS.Signals | number | null;
}

export async function finished(p: Piped): Promise<Finished> {
  const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  await p.exited;
  return {
    exitCode: p.exitCode,
    signal: p.signalCode === null ? null : String(p.signalCode),
    stdout,
    stderr,
  };
}

/** One-line contract of the hooks and the CLI: a failure prints exactly one line. */
export function isOneLine(stderr: string): boolean {
  return stderr.endsWith("\n") && stderr.indexOf("\n") === stderr.length - 1;
}

/**
 * Every memory row, without surrogate ids or processing times, grouped by table, so that two
 * databases can be compared row by row (a failure shows which rows differ).
 */
export function memoryRows(db: Database): Record<string, string[]> {
  const rows = (sql: string) => (db.query(sql).values() as unknown[][]).map((r) => JSON.stringify(r));
  return {
    turns: rows(
      "SELECT origin_session_id, turn_number, session_id, started_at, ended_at, user_chars, assistant_chars FROM turns ORDER BY 1, 2",
    ),
    bodies: rows(
      `SELECT t.origin_session_id, t.turn_number, b.role, b.text, ${FINAL_TEXT("b")} FROM bodies b JOIN turns t ON t.id = b.turn_id
       ORDER BY 1, 2, 3`,
    ),
    details: rows(
      // A turn's details are keyed on its row id (src/db/row-forms.ts): compared on their place.
      `SELECT d.origin_session_id, t.turn_number, d.source, d.ord,
              CASE WHEN d.source = 'transcript' AND d.turn_id IS NOT NULL THEN NULL ELSE d.ikey END AS k,
              d.kind, d.tool_name, d.tool_use_id, d.input, d.output, d.is_error, d.created_at
       FROM details d LEFT JOIN turns t ON t.id = d.turn_id ORDER BY 1, 2, 3, 4, 5`,
    ),
    events: rows(
      "SELECT ikey, origin_session_id, turn_number, seq, ts, type, summary, detail FROM events ORDER BY ikey",
    ),
    skeletons: rows(
      "SELECT t.origin_session_id, t.turn_number, s.summary FROM skeletons s JOIN turns t ON t.id = s.turn_id ORDER BY 1, 2",
    ),
  };
}

/** Names, sizes, times and contents of every file in a directory. */
export function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const p = join(dir, name);
      const st = statSync(p);
      const hash = st.isFile() ? Bun.hash(readFileSync(p)).toString(36) : "dir";
      return `${name} ${st.size} ${st.mtimeMs} ${st.mode.toString(8)} ${hash}`;
    });
}

/**
 * How this machine can run a process that cannot write a directory it reads: as root, drop
 * to `nobody` with setpriv (chmod does not stop root); as another user, a 0555 directory is
 * enough. Null when neither is possible: tests then check only that nothing is created.
 */
export function unprivileged(): { prefix: string[]; kind: string } | null {
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) return { prefix: [], kind: "chmod" };
  const prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
  const probeDir = mkdtempSync(join(tmpdir(), "tl-priv-"));
  try {
    const runs = Bun.spawnSync([
      ...prefix,
      "bun",
      "-e",
      "require('node:fs').readFileSync(process.argv[1])",
      CLI,
    ]);
    if (runs.exitCode !== 0) return null;
    const writes = Bun.spawnSync([
      ...prefix,
      "bun",
      "-e",
      `require('node:fs').writeFileSync(${JSON.stringify(join(probeDir, "x"))}, "x")`,
    ]);
    return writes.exitCode === 0 ? null : { prefix, kind: "setpriv nobody" };
  } catch {
    return null;
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
}

/** `cmd` run to its end, or SIGKILLed after `delayMs` if it is still going. */
export async function killAt(
  cmd: string[],
  env: Record<string, string>,
  delayMs: number,
  stdin?: string,
): Promise<Finished> {
  const p = Bun.spawn(cmd, {
    env,
    stdin: stdin ? Buffer.from(stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), delayMs);
  const r = await finished(p);
  clearTimeout(timer);
  return r;
}

/**
 * `replay` of a growing transcript (or rollout) into `dbReplay` and its `hook stop` into `dbStop`,
 * each SIGKILLed `kills` times at a random point of an unkilled run's span (timed here first, in
 * `scratch`); `grow()` appends turns 19 times along the way. Every database that exists must pass
 * `integrity_check` after each kill (`integrity` throws otherwise). Returns how many runs died.
 */
export async function killReplayAndStop(o: {
  path: string;
  payload: () => string;
  grow: () => void;
  dbReplay: string;
  dbStop: string;
  scratch: string;
  env: Record<string, string>;
  kills: number;
  r: () => number;
  integrity: (db: string) => void;
}): Promise<number> {
  const { env } = o;
  const time = (cmd: string[], e: Record<string, string>, stdin?: string) => {
    const t0 = performance.now();
    Bun.spawnSync(cmd, { env: e, stdin: stdin ? Buffer.from(stdin) : "ignore" });
    return performance.now() - t0;
  };
  const span = Math.max(
    time(["bun", CLI, "replay", o.path, "--db", join(o.scratch, "a.db")], env),
    time(["bun", CLI, "hook", "stop"], { ...env, THROUGHLINE_DB: join(o.scratch, "b.db") }, o.payload()),
  );
  let killed = 0;
  for (let k = 0; k < o.kills; k++) {
    if (k > 0 && k % Math.max(1, Math.ceil(o.kills / 19)) === 0) o.grow();
    const delay = Math.floor(o.r() * span * 1.5);
    const a = await killAt(["bun", CLI, "replay", o.path, "--db", o.dbReplay], env, delay);
    const b = await killAt(
      ["bun", CLI, "hook", "stop"],
      { ...env, THROUGHLINE_DB: o.dbStop },
      delay,
      o.payload(),
    );
    for (const x of [a, b]) if (x.signal === "SIGKILL") killed++;
    for (const db of [o.dbReplay, o.dbStop]) if (Bun.file(db).size > 0) o.integrity(db);
  }
  return killed;
}
