/**
 * What never reaches the remote, or leaves it (docs/sync.md): forget on one machine removes the
 * text from every machine's database once each syncs, and from every object reachable from the
 * remote's refs; a paused project and a secret (redacted before storage) are never published;
 * each failure is one line, changes nothing here and keeps the recorded remote.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryHash } from "../../harness/db.ts";
import { SECRETS } from "../helpers/secrets.ts";
import {
  bareRepo,
  capture,
  gitEnv,
  hash,
  type Machine,
  read,
  sh,
  sid,
  sync,
  tl,
  world,
} from "../helpers/sync.ts";

const root = mkdtempSync(join(tmpdir(), "tl-sync-forget-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const CLI = join(import.meta.dir, "..", "..", "src", "cli.ts");

/** Every blob reachable from the remote's refs, decompressed where it is a chunk or tombstone file. */
function reachableText(remote: string, env: Record<string, string>): string {
  const objects = sh(["git", "--git-dir", remote, "rev-list", "--all", "--objects"], env)
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split(" "));
  let all = "";
  for (const [id, path] of objects) {
    const type = sh(["git", "--git-dir", remote, "cat-file", "-t", id!], env).trim();
    if (type !== "blob") continue;
    const p = Bun.spawnSync(["git", "--git-dir", remote, "cat-file", "blob", id!], {
      env: { ...process.env, ...env },
    });
    const data = p.stdout as Buffer;
    all += path?.endsWith(".zst")
      ? Buffer.from(Bun.zstdDecompressSync(data)).toString("utf8")
      : data.toString("utf8");
  }
  all += sh(["git", "--git-dir", remote, "log", "--all", "-p"], env);
  return all;
}

function dbBytes(m: Machine): string {
  let s = readFileSync(m.db).toString("latin1");
  if (existsSync(`${m.db}-wal`)) s += readFileSync(`${m.db}-wal`).toString("latin1");
  return s;
}

describe("forget, pause and secrets across machines", () => {
  test("forget on one machine reaches every database and leaves no reachable object holding the text", () => {
    const { machines, remote } = world(root, "forget", 3);
    const [desk, laptop, server] = machines as [Machine, Machine, Machine];
    capture(desk, sid(1, 1), "/srv/a", [
      ["keep this one", "fine"],
      ["the okapi password plan", "noted the okapi plan"],
    ]);
    capture(laptop, sid(2, 1), "/srv/b", [
      ["laptop also mentions okapi", "yes okapi"],
      ["laptop keeps this", "fine"],
    ]);
    capture(server, sid(3, 1), "/srv/c", [["server turn", "fine"]]);
    for (const m of machines) sync(m, ["--remote", remote]);
    for (const m of machines) sync(m);
    expect(reachableText(remote, gitEnv(desk.home))).toContain("okapi");
    const f = tl(desk, ["forget", "--match", "okapi", "--yes"]);
    expect(f.exitCode).toBe(0);
    sync(desk);
    sync(laptop);
    sync(server);
    sync(desk);
    for (const m of machines) {
      expect(tl(m, ["search", "okapi", "--all"]).stdout).not.toContain("okapi plan");
      expect(read(m, (db) => db.query("SELECT count(*) AS n FROM turns").get())).toEqual({ n: 3 });
      expect(dbBytes(m)).not.toContain("okapi");
    }
    expect(new Set(machines.map(hash)).size).toBe(1);
    const text = reachableText(remote, gitEnv(desk.home));
    expect(text).toContain("laptop keeps this");
    expect(text).not.toContain("okapi");
    // A later sync of each brings nothing back.
    for (const m of machines) sync(m);
    for (const m of machines) expect(dbBytes(m)).not.toContain("okapi");
  });

  test("a paused project and a planted secret never reach the remote", () => {
    const { machines, remote } = world(root, "private", 2);
    const [desk, laptop] = machines as [Machine, Machine];
    expect(tl(desk, ["pause", "--project", "/srv/private"]).exitCode).toBe(0);
    capture(desk, sid(1, 1), "/srv/private", [["the private capybara", "kept here only"]]);
    capture(desk, sid(1, 2), "/srv/open", [
      [`deploy with ${SECRETS.github_token} now`, `used ${SECRETS.aws_access_key}`],
    ]);
    sync(desk, ["--remote", remote]);
    sync(laptop, ["--remote", remote]);
    const text = reachableText(remote, gitEnv(desk.home));
    expect(text).toContain("deploy with");
    expect(text).not.toContain("capybara");
    expect(text).not.toContain(SECRETS.github_token);
    expect(text).not.toContain(SECRETS.aws_access_key);
    expect(tl(laptop, ["search", "capybara", "--all"]).stdout).not.toContain("the private capybara");
    expect(read(laptop, (db) => db.query("SELECT count(*) AS n FROM turns").get())).toEqual({ n: 1 });
  });
});

describe("clear failures: one line, nothing changed here, the recorded remote kept", () => {
  const { machines, remote, dir } = world(root, "failures", 2);
  const [desk, laptop] = machines as [Machine, Machine];
  const env = gitEnv(desk.home);
  capture(desk, sid(1, 1), "/srv/f", [["failure world", "ok"]]);
  capture(laptop, sid(2, 1), "/srv/g", [["laptop world", "ok"]]);

  function state(m: Machine) {
    return read(m, (db) => ({
      memory: memoryHash(db),
      sync: db
        .query("SELECT key, value FROM sync_state WHERE key IN ('remote', 'last_sync') ORDER BY key")
        .all(),
      applied: db.query("SELECT count(*) AS n FROM sync_applied").get(),
    }));
  }
  function fails(m: Machine, args: string[], pattern: RegExp, extraEnv: Record<string, string> = {}) {
    const before = state(m);
    const p = Bun.spawnSync([process.execPath, CLI, "sync", ...args], {
      env: { ...process.env, ...m.env, ...extraEnv },
    });
    const err = p.stderr.toString();
    expect(p.exitCode).toBe(1);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toMatch(pattern);
    expect(state(m)).toEqual(before);
  }
  /** A branch of a made-up machine holding `files` (name → bytes) in the remote. */
  function plant(machineId: string, files: Record<string, Uint8Array>) {
    const blobs: Record<string, Map<string, string>> = { "": new Map() };
    for (const [path, data] of Object.entries(files)) {
      const tmp = join(dir, "blob");
      writeFileSync(tmp, data);
      const id = sh(["git", "--git-dir", remote, "hash-object", "-w", tmp], env).trim();
      const [d, name] = path.includes("/") ? path.split("/") : ["", path];
      blobs[d!] ??= new Map();
      blobs[d!]!.set(name!, id);
    }
    const mk = (entries: string[]) =>
      sh(
        ["bash", "-c", `printf '%s\\n' "$@" | git --git-dir '${remote}' mktree`, "_", ...entries],
        env,
      ).trim();
    const top = [...blobs[""]!].map(([n, id]) => `100644 blob ${id}\t${n}`);
    for (const [d, m] of Object.entries(blobs))
      if (d !== "") top.push(`040000 tree ${mk([...m].map(([n, id]) => `100644 blob ${id}\t${n}`))}\t${d}`);
    const commit = sh(["git", "--git-dir", remote, "commit-tree", mk(top), "-m", "planted"], env).trim();
    sh(["git", "--git-dir", remote, "update-ref", `refs/heads/throughline/${machineId}`, commit], env);
    return () =>
      sh(["git", "--git-dir", remote, "update-ref", "-d", `refs/heads/throughline/${machineId}`], env);
  }

  test("no remote recorded", () =>
    fails(desk, [], /no sync remote is recorded: run `throughline sync --remote/));

  test("set up", () => {
    sync(desk, ["--remote", remote]);
    sync(laptop, ["--remote", remote]);
    capture(desk, sid(1, 2), "/srv/f", [["new desk turn", "ok"]]);
    sync(desk);
  });

  test("no git on PATH", () =>
    fails(laptop, [], /no `git` was found on PATH: install git/, { PATH: join(dir, "empty") }));

  test("a remote that does not exist; the recorded one is kept", () =>
    fails(
      laptop,
      ["--remote", join(dir, "missing.git")],
      /cannot fetch the sync remote .*recorded remote .* is kept/,
    ));

  test("a remote that refuses the push", () => {
    const refusing = bareRepo(join(dir, "refusing"), env);
    writeFileSync(
      join(refusing, "hooks", "pre-receive"),
      "#!/bin/sh\necho 'read-only mirror' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    fails(desk, ["--remote", refusing], /refused the push .*: check that you may push to it/);
  });

  test("a damaged chunk", () => {
    const drop = plant("0badc0de0badc0de", {
      "meta.json": Buffer.from('{"format":1}'),
      [`chunks/00000001-${"ab".repeat(20)}.jsonl.zst`]: Buffer.from("not zstd at all"),
    });
    fails(
      laptop,
      [],
      /is damaged .*run `throughline sync --republish` on that machine; nothing was changed here/,
    );
    drop();
  });

  test("a remote written by a newer throughline", () => {
    const drop = plant("0000000000000099", { "meta.json": Buffer.from('{"format":99}') });
    fails(laptop, [], /newer throughline .*upgrade throughline here/);
    drop();
  });

  test("after the failures the next sync completes, and doctor shows the state", () => {
    sync(laptop);
    expect(hash(laptop)).toBe(hash(desk));
    const doctor = tl(laptop, ["doctor"]).stdout;
    expect(doctor).toMatch(
      new RegExp(
        `sync.*remote ${remote.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, machine [0-9a-f]+, last sync 20`,
      ),
    );
  });
});
