/**
 * The system `git`, spawned (docs/sync.md): sync keeps a bare repository beside the database
 * (`<database>-sync/`) and talks to the remote only through `git fetch` and `git push`, so
 * ssh, https and file remotes work alike, with the user's own credentials. Every failure is one
 * line naming what to do.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { oneLine, ThroughlineError } from "../errors.ts";

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** The last meaningful line git printed on stderr (its `fatal:`/`error:` line). */
export function gitReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("hint:"));
  const fatal = lines.find((l) => /^(fatal|error|remote|!)/.test(l));
  return oneLine((fatal ?? lines.at(-1) ?? "no reason given").replace(/^(fatal|error): /, ""));
}

function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // Never wait on a password prompt: sync runs behind the client too.
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_AUTHOR_NAME = "throughline";
  env.GIT_AUTHOR_EMAIL = "throughline@localhost";
  env.GIT_COMMITTER_NAME = "throughline";
  env.GIT_COMMITTER_EMAIL = "throughline@localhost";
  env.LC_ALL = "C";
  return env;
}

export const NO_GIT = () =>
  new ThroughlineError(
    "E_NO_GIT",
    "sync runs the system git, and no `git` was found on PATH: install git and run `throughline sync` again; nothing was changed",
  );

/** Run git in the repository `dir` (null: anywhere). Throws only when git cannot be started. */
export function runGit(dir: string | null, args: string[], input?: Uint8Array | string): GitResult {
  let proc: ReturnType<typeof Bun.spawnSync>;
  try {
    proc = Bun.spawnSync(["git", ...(dir === null ? [] : ["--git-dir", dir]), ...args], {
      env: gitEnv(),
      stdin: input === undefined ? "ignore" : typeof input === "string" ? Buffer.from(input) : input,
      stdout: "pipe",
      stderr: "pipe",
    });
  } catch {
    throw NO_GIT();
  }
  return { code: proc.exitCode ?? 1, stdout: proc.stdout as Buffer, stderr: proc.stderr?.toString() ?? "" };
}

/** Run git and fail with `what` and git's reason on a non-zero exit. */
export function git(dir: string | null, args: string[], what: string, input?: Uint8Array | string): Buffer {
  const r = runGit(dir, args, input);
  if (r.code !== 0) throw new ThroughlineError("E_SYNC_GIT", `${what}: ${gitReason(r.stderr)}`);
  return r.stdout;
}

/** The bare repository sync works in, made on first use. */
export function mirrorOf(dbPath: string): string {
  const dir = `${dbPath}-sync`;
  if (!existsSync(join(dir, "HEAD"))) git(null, ["init", "--bare", "-q", dir], `cannot create ${dir}`);
  return dir;
}

/** Write a blob into the repository; returns its id. */
export function writeBlob(dir: string, data: Uint8Array): string {
  return git(dir, ["hash-object", "-w", "--stdin"], "cannot write to the sync repository", data)
    .toString()
    .trim();
}

/** A tree of `name → blob id` entries (one level), and of subtrees. */
export function writeTree(
  dir: string,
  blobs: Map<string, string>,
  trees: Map<string, string> = new Map(),
): string {
  const lines = [
    ...[...blobs].map(([name, id]) => `100644 blob ${id}\t${name}`),
    ...[...trees].map(([name, id]) => `040000 tree ${id}\t${name}`),
  ];
  return git(dir, ["mktree"], "cannot write to the sync repository", `${lines.join("\n")}\n`)
    .toString()
    .trim();
}

/** Every file of a commit's tree: path → blob id. */
export function listTree(dir: string, commit: string): Map<string, string> {
  const out = git(dir, ["ls-tree", "-r", "-z", commit], "cannot read the sync repository").toString();
  const files = new Map<string, string>();
  for (const entry of out.split("\0")) {
    if (entry === "") continue;
    const tab = entry.indexOf("\t");
    const [, type, id] = entry.slice(0, tab).split(" ");
    if (type === "blob" && id) files.set(entry.slice(tab + 1), id);
  }
  return files;
}

/**
 * Blobs by id, through one `git cat-file --batch` per group of ids (a first sync reads
 * thousands of chunks: one process each would cost more than reading them).
 */
export function readBlobs(dir: string, ids: readonly string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let i = 0; i < ids.length; i += 64) {
    const group = ids.slice(i, i + 64);
    const buf = git(dir, ["cat-file", "--batch"], "cannot read the sync repository", `${group.join("\n")}\n`);
    let at = 0;
    for (const id of group) {
      const nl = buf.indexOf(10, at);
      const head = buf.subarray(at, nl).toString().split(" ");
      if (head[1] !== "blob")
        throw new ThroughlineError("E_SYNC_CORRUPT", `object ${id} is missing from the sync repository`);
      const size = Number(head[2]);
      out.set(id, Buffer.from(buf.subarray(nl + 1, nl + 1 + size)));
      at = nl + 1 + size + 1;
    }
  }
  return out;
}

/** The sync refs the mirror holds: machine → commit. */
export function remoteRefs(dir: string): Map<string, string> {
  const out = git(
    dir,
    ["for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/tl/"],
    "cannot read the sync repository",
  ).toString();
  const refs = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [name, id] = line.split(" ");
    if (name && id) refs.set(name.slice("refs/remotes/tl/".length), id);
  }
  return refs;
}
