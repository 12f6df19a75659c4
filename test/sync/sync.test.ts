/**
 * `throughline sync` (docs/sync.md) between simulated machines: each its own home and database,
 * one bare repository in a temp dir as the remote. Every machine ends with every turn; applying
 * twice changes nothing; machines syncing at once all succeed; a sync killed at random moments
 * converges; the same repository at different paths is one project; a baton goes desk → laptop.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rowsOutsideSpans } from "../helpers/spans.ts";
import { capture, gitEnv, hash, type Machine, read, sh, sid, sync, tl, world } from "../helpers/sync.ts";

const root = mkdtempSync(join(tmpdir(), "tl-sync-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const turns = (m: Machine) =>
  read(m, (db) => (db.query("SELECT count(*) AS n FROM turns").get() as { n: number }).n);

describe("sync between machines", () => {
  test("every machine ends with every turn; a second sync and a chunk applied twice change nothing", () => {
    const { machines, remote } = world(root, "roundtrip");
    machines.forEach((m, i) => {
      capture(m, sid(i + 1, 1), `/srv/p${i}`, [
        [`prompt of machine ${i} about walrus${i}`, `reply ${i}`],
        ["second", `second reply ${i}`],
      ]);
      capture(m, sid(i + 1, 2), `/srv/p${i}`, [[`another session ${i}`, "ok"]]);
    });
    for (const m of machines) sync(m, ["--remote", remote]);
    for (const m of machines) sync(m);
    for (const m of machines) expect(turns(m)).toBe(9);
    const hashes = machines.map(hash);
    expect(new Set(hashes).size).toBe(1);
    for (const m of machines) {
      const s = tl(m, ["search", "walrus2", "--all"]);
      expect(s.stdout).toContain("walrus2");
      // Rows taken in from another machine lie within their chain's span (docs/search.md, "Scopes").
      expect(read(m, rowsOutsideSpans)).toEqual([]);
    }
    // Again: nothing to publish or take in.
    const again = JSON.parse(sync(machines[0]!, ["--json"]).stdout);
    expect(again.pushed.chunks).toBe(0);
    expect(again.pulled.files).toBe(0);
    // Every file applied once more (as after a lost record of it): the memory is the same.
    const db = new Database(machines[0]!.db);
    db.run("DELETE FROM sync_applied");
    db.close();
    const re = JSON.parse(sync(machines[0]!, ["--json"]).stdout);
    expect(re.pulled.files).toBeGreaterThan(0);
    expect(re.pulled.turns).toBe(0);
    expect(hash(machines[0]!)).toBe(hashes[0]!);
  });

  test("a turn that grew after it was published is replaced on the other machines", () => {
    const { machines, remote } = world(root, "growth", 2);
    const [a, b] = machines as [Machine, Machine];
    capture(a, sid(1, 1), "/srv/g", [["first", "short"]]);
    sync(a, ["--remote", remote]);
    sync(b, ["--remote", remote]);
    capture(a, sid(1, 1), "/srv/g", [
      ["first", "short, then much longer"],
      ["next", "more"],
    ]);
    sync(a);
    sync(b);
    expect(hash(b)).toBe(hash(a));
    expect(read(b, rowsOutsideSpans)).toEqual([]);
  });

  test("three machines syncing at once all succeed, and converge", async () => {
    const { machines, remote } = world(root, "concurrent");
    machines.forEach((m, i) => {
      capture(m, sid(i + 1, 1), `/srv/c${i}`, [[`c${i}`, "r"]]);
    });
    for (const m of machines) sync(m, ["--remote", remote]);
    machines.forEach((m, i) => {
      capture(m, sid(i + 1, 2), `/srv/c${i}`, [[`more ${i}`, "r"]]);
    });
    for (let round = 0; round < 2; round++) {
      const procs = machines.map((m) =>
        Bun.spawn(["bun", join(import.meta.dir, "..", "..", "src", "cli.ts"), "sync"], {
          env: { ...process.env, ...m.env },
          stdout: "pipe",
          stderr: "pipe",
        }),
      );
      const codes = await Promise.all(procs.map((p) => p.exited));
      const errs = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
      expect({ codes, errs }).toEqual({ codes: [0, 0, 0], errs: ["", "", ""] });
    }
    for (const m of machines) sync(m);
    expect(new Set(machines.map(hash)).size).toBe(1);
    expect(turns(machines[0]!)).toBe(6);
  });

  test("a sync killed at random moments ten times converges with integrity intact", async () => {
    const { machines, remote } = world(root, "killed", 2);
    const [a, b] = machines as [Machine, Machine];
    for (let s = 1; s <= 12; s++)
      capture(
        a,
        sid(1, s),
        "/srv/k",
        Array.from({ length: 8 }, (_, i): [string, string] => [
          `k${s} prompt ${i}`,
          `reply ${"x".repeat(4000)} ${i}`,
        ]),
      );
    sync(b, ["--remote", remote]);
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let k = 0; k < 10; k++) {
      const who = k % 2 === 0 ? a : b;
      const p = Bun.spawn(
        [
          "bun",
          join(import.meta.dir, "..", "..", "src", "cli.ts"),
          "sync",
          ...(who === a ? ["--remote", remote] : []),
        ],
        {
          env: { ...process.env, ...who.env },
          stdout: "ignore",
          stderr: "ignore",
        },
      );
      await Bun.sleep(60 + Math.floor(rand() * 500));
      p.kill("SIGKILL");
      await p.exited;
      for (const m of machines)
        expect(read(m, (db) => db.query("PRAGMA integrity_check").get())).toEqual({ integrity_check: "ok" });
    }
    sync(a, ["--remote", remote]);
    sync(b);
    expect(turns(b)).toBe(96);
    expect(hash(b)).toBe(hash(a));
    sh(["git", "--git-dir", remote, "fsck", "--no-dangling"], gitEnv(a.home));
  }, 60_000);
});

describe("one project across machines", () => {
  /** `n` machines, each with a clone of one repository at a path of its own (the layouts differ). */
  function clones(name: string, n = 2) {
    const { machines, remote } = world(root, name, n);
    const env = gitEnv(machines[0]!.home);
    const origin = join(root, name, "origin");
    sh(["git", "init", "-q", origin], env);
    sh(["git", "-C", origin, "commit", "-q", "--allow-empty", "-m", "root"], env);
    const layouts = [["code", "app"], ["src", "work", "app-copy"], ["w"]];
    const paths = machines.map((m, i) => {
      const p = join(m.home, ...layouts[i % layouts.length]!);
      sh(["git", "clone", "-q", origin, p], env);
      return sh(["pwd", "-P"], env, p).trim();
    });
    return { machines, remote, paths };
  }

  test("the same repository at three paths is one project: search --project finds the other machines' turns", () => {
    const { machines, remote, paths } = clones("identity", 3);
    expect(new Set(paths).size).toBe(3);
    const words = ["flamingo", "pelican", "heron"];
    machines.forEach((m, i) => {
      capture(m, sid(i + 1, 1), paths[i]!, [[`machine ${i} decided on ${words[i]} caching`, "ok"]]);
      sync(m, ["--remote", remote]);
    });
    for (const m of machines) sync(m); // the first machines take in what the later ones published
    machines.forEach((m, i) => {
      for (const [j, word] of words.entries()) {
        const hit = tl(m, ["search", word, "--project", paths[i]!]);
        expect(hit.stdout).toContain(word);
        const project = read(m, (db) =>
          db.query("SELECT project FROM sessions WHERE id = $s").get({ s: sid(j + 1, 1) }),
        );
        expect(project).toEqual({ project: paths[i]! });
        const events = read(m, (db) =>
          db
            .query("SELECT DISTINCT project FROM events WHERE origin_session_id = $s")
            .all({ s: sid(j + 1, 1) }),
        );
        for (const e of events) expect(e).toEqual({ project: paths[i]! });
      }
    });
  });

  test("a baton made with /tl on the desk is picked up by the laptop's next session", () => {
    const { machines, remote, paths } = clones("baton");
    const [desk, laptop] = machines as [Machine, Machine];
    capture(desk, sid(1, 1), paths[0]!, [["desk: wire the parser", "done: the parser is wired"]]);
    const transcript = join(
      desk.home,
      "claude",
      "projects",
      paths[0]!.replace(/[^A-Za-z0-9]/g, "-"),
      `${sid(1, 1)}.jsonl`,
    );
    const payload = (session: string, cwd: string, extra: Record<string, unknown>) =>
      JSON.stringify({
        session_id: session,
        transcript_path: transcript,
        cwd,
        permission_mode: "default",
        ...extra,
      });
    const tlHook = (m: Machine, event: string, body: string, cwd: string) =>
      Bun.spawnSync(["bun", join(import.meta.dir, "..", "..", "src", "cli.ts"), "hook", event], {
        env: { ...process.env, ...m.env },
        stdin: Buffer.from(body),
        cwd,
      });
    tlHook(
      desk,
      "user-prompt-submit",
      payload(sid(1, 1), paths[0]!, { hook_event_name: "UserPromptSubmit", prompt: "/tl" }),
      paths[0]!,
    );
    expect(read(desk, (db) => db.query("SELECT session_id FROM handoff_batons").all())).toEqual([
      { session_id: sid(1, 1) },
    ]);
    sync(desk, ["--remote", remote]);
    sync(laptop, ["--remote", remote], paths[1]!);
    expect(read(laptop, (db) => db.query("SELECT project, session_id FROM handoff_batons").all())).toEqual([
      { project: paths[1]!, session_id: sid(1, 1) },
    ]);
    const next = sid(2, 9);
    const lt = join(laptop.home, `${next}.jsonl`);
    const body = (extra: Record<string, unknown>) =>
      JSON.stringify({
        session_id: next,
        transcript_path: lt,
        cwd: paths[1]!,
        permission_mode: "default",
        ...extra,
      });
    tlHook(laptop, "session-start", body({ hook_event_name: "SessionStart", source: "startup" }), paths[1]!);
    Bun.sleepSync(20);
    const out = tlHook(
      laptop,
      "user-prompt-submit",
      body({ hook_event_name: "UserPromptSubmit", prompt: "go on" }),
      paths[1]!,
    );
    expect(out.stdout.toString()).toContain("the parser is wired");
    expect(read(laptop, (db) => db.query("SELECT count(*) AS n FROM handoff_batons").get())).toEqual({
      n: 0,
    });
  });
});
