/**
 * Simulated machines for the sync tests (docs/sync.md): each its own THROUGHLINE_HOME, database
 * and HOME (git reads no real config: GIT_CONFIG_GLOBAL and the system file are off), one bare
 * repository in a temp dir as the remote, and transcripts written the way Claude Code does.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { memoryHash, runCli } from "../../harness/db.ts";

export interface Machine {
  name: string;
  home: string;
  db: string;
  env: Record<string, string>;
}

export function gitEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
}

export function machine(root: string, name: string): Machine {
  const home = join(root, name);
  mkdirSync(join(home, "claude"), { recursive: true });
  writeFileSync(join(home, ".gitconfig"), "");
  const env = {
    ...gitEnv(home),
    THROUGHLINE_HOME: join(home, "throughline"),
    CLAUDE_CONFIG_DIR: join(home, "claude"),
  };
  return { name, home, db: join(home, "throughline", "throughline.db"), env };
}

export function sh(cmd: string[], env: Record<string, string>, cwd?: string): string {
  const p = Bun.spawnSync(cmd, { env: { ...process.env, ...env }, cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

export function bareRepo(root: string, env: Record<string, string>): string {
  const dir = join(root, "remote.git");
  sh(["git", "init", "--bare", "-q", dir], env);
  return dir;
}

export function tl(m: Machine, args: string[], cwd?: string) {
  return runCli(args, { env: m.env, ...(cwd ? { cwd } : {}) });
}

/** A transcript of `turns` (prompt, reply) in `cwd`, replayed into the machine's database. */
export function capture(
  m: Machine,
  session: string,
  cwd: string,
  turns: [string, string][],
  startMs = Date.UTC(2026, 4, 1, 9),
): void {
  const lines: string[] = [];
  let parent: string | null = null;
  turns.forEach(([prompt, reply], i) => {
    const t = (k: number) => new Date(startMs + i * 60_000 + k * 1000).toISOString();
    const u = `${session.slice(0, 8)}-u${i}`;
    const a = `${session.slice(0, 8)}-a${i}`;
    const base = { isSidechain: false, userType: "external", cwd, sessionId: session, version: "2.1.90" };
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid: parent,
        type: "user",
        uuid: u,
        timestamp: t(0),
        message: { role: "user", content: prompt },
      }),
    );
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid: u,
        type: "assistant",
        uuid: a,
        timestamp: t(1),
        requestId: `req_${a}`,
        message: {
          id: `msg_${a}`,
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: reply }],
          stop_reason: "end_turn",
        },
      }),
    );
    parent = a;
  });
  const dir = join(m.home, "claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${session}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  const r = tl(m, ["replay", file]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
}

/** A client-shaped session id: machine `m`'s session `n`. */
export const sid = (m: number, n: number) =>
  `${String(m).repeat(8)}-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** `fn` over machine `m`'s database, opened read-only. */
export function read<T>(m: Machine, fn: (db: Database) => T): T {
  const db = new Database(m.db, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** What machine `m`'s memory holds, as one hash (equal on machines that hold the same). */
export const hash = (m: Machine) => read(m, memoryHash);

/** `throughline sync` on `m`, which must succeed. */
export function sync(m: Machine, args: string[] = [], cwd?: string) {
  const r = tl(m, ["sync", ...args], cwd);
  if (r.exitCode !== 0) throw new Error(`${m.name}: ${r.stderr}`);
  return r;
}

/** `count` machines (desk, laptop, server) under `root/name`, and a bare repository as their remote. */
export function world(
  root: string,
  name: string,
  count = 3,
): { machines: Machine[]; remote: string; dir: string } {
  const dir = join(root, name);
  const machines = Array.from({ length: count }, (_, i) => machine(dir, ["desk", "laptop", "server"][i]!));
  return { machines, remote: bareRepo(dir, machines[0]!.env), dir };
}
