/**
 * Sync's size and speed (docs/sync.md, "Size and speed"): a generated heavy user's history
 * (bench/heavy.ts) imported on one machine, published to an empty bare repository, and taken in
 * by an empty second machine. Rows: MB of database per second for the first publish and for
 * the first sync of the empty machine, and remote bytes per database byte. `BENCH_ONLY=sync`
 * runs this section alone; BENCH_SYNC_SCALE=small | full (default small: 20 MB of transcripts).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { generate, SCALES, type Scale } from "./heavy.ts";
import { ROOT, round, WORK } from "./lib.ts";

const CLI = ["bun", join(ROOT, "src", "cli.ts")];

function duBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? duBytes(p) : statSync(p).size;
  }
  return n;
}

function run(args: string[], env: Record<string, string>): { seconds: number; out: string } {
  const t0 = performance.now();
  const r = Bun.spawnSync([...CLI, ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr.toString().slice(0, 500)}`);
  return { seconds: (performance.now() - t0) / 1000, out: r.stdout.toString() };
}

export interface SyncBench {
  scale: Scale;
  db_bytes: number;
  publish_seconds: number;
  publish_mb_per_s: number;
  first_sync_seconds: number;
  first_sync_mb_per_s: number;
  remote_bytes: number;
  remote_bytes_per_db_byte: number;
  turns: unknown;
  turns_equal: boolean;
}

export function benchSync(scale: Scale = (process.env.BENCH_SYNC_SCALE as Scale) ?? "small"): SyncBench {
  const work = join(WORK, "sync");
  rmSync(work, { recursive: true, force: true });
  const env = (name: string) => {
    const home = join(work, name);
    mkdirSync(home, { recursive: true });
    return {
      HOME: home,
      GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
      GIT_CONFIG_NOSYSTEM: "1",
      THROUGHLINE_HOME: join(home, "throughline"),
      CLAUDE_CONFIG_DIR: join(home, "claude"),
      THROUGHLINE_SUMMARIZER: "extractive",
      THROUGHLINE_DETACH: "0",
    };
  };
  const desk = env("desk");
  const laptop = env("laptop");
  console.error(`sync: generating the ${scale} history…`);
  generate(desk.CLAUDE_CONFIG_DIR, SCALES[scale]);
  run(["import", "--json"], desk);
  const db = join(desk.THROUGHLINE_HOME, "throughline.db");
  const dbBytes = statSync(db).size + (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);
  const remote = join(work, "remote.git");
  Bun.spawnSync(["git", "init", "--bare", "-q", remote]);
  console.error(`sync: publishing ${(dbBytes / 1e6).toFixed(1)} MB…`);
  const pub = run(["sync", "--remote", remote, "--json"], desk);
  console.error("sync: the first sync of an empty machine…");
  const first = run(["sync", "--remote", remote, "--json"], laptop);
  const turns = (e: Record<string, string>) => {
    const d = new Database(join(e.THROUGHLINE_HOME ?? "", "throughline.db"), { readonly: true });
    try {
      return d.query("SELECT count(*) AS n, sum(user_chars + assistant_chars) AS c FROM turns").get();
    } finally {
      d.close();
    }
  };
  const remoteBytes = duBytes(remote);
  return {
    scale,
    db_bytes: dbBytes,
    publish_seconds: round(pub.seconds),
    publish_mb_per_s: round(dbBytes / 1e6 / pub.seconds),
    first_sync_seconds: round(first.seconds),
    first_sync_mb_per_s: round(dbBytes / 1e6 / first.seconds),
    remote_bytes: remoteBytes,
    remote_bytes_per_db_byte: round(remoteBytes / dbBytes, 3),
    turns: turns(desk),
    turns_equal: JSON.stringify(turns(desk)) === JSON.stringify(turns(laptop)),
  };
}

export function renderSync(r: SyncBench): string {
  return [
    `sync (${r.scale}: ${(r.db_bytes / 1e6).toFixed(1)} MB database)`,
    `  first publish              ${r.publish_mb_per_s} MB/s (${r.publish_seconds} s)`,
    `  first sync, empty machine  ${r.first_sync_mb_per_s} MB/s (${r.first_sync_seconds} s)`,
    `  remote bytes per db byte   ${r.remote_bytes_per_db_byte} (${(r.remote_bytes / 1e6).toFixed(1)} MB)`,
    `  every turn on both         ${r.turns_equal ? "yes" : "NO"}`,
  ].join("\n");
}
