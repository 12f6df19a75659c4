import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";

/**
 * `--project <dir>` is read one way by every command that takes it (src/db/project.ts
 * resolveProject; docs/project-identity.md): from the repository, a subdirectory of it, a linked
 * worktree and a symlink to it, each selects the same rows.
 */
describe("--project means one thing", () => {
  const dir = tempDir("tl-project-flag-");
  const root = realpathSync(dir.path);
  const repo = join(root, "repo");
  const sub = join(repo, "src", "deep");
  const wt = join(root, "wt-feature");
  const link = join(root, "link-to-repo");
  const db = join(root, "tl.db");
  const config = join(root, "claude");

  beforeAll(() => {
    mkdirSync(join(repo, ".git", "worktrees", "feature"), { recursive: true });
    writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(repo, ".git", "worktrees", "feature", "commondir"), "../..\n");
    mkdirSync(sub, { recursive: true });
    mkdirSync(wt, { recursive: true });
    writeFileSync(join(wt, ".git"), `gitdir: ${join(repo, ".git", "worktrees", "feature")}\n`);
    symlinkSync(repo, link);
    const b = new TranscriptBuilder("aaaaaaaa-0000-4000-8000-0000000000f1", repo, "2026-05-01T09:00:00.000Z");
    b.user("rename the zebraparser module")
      .tool("Bash", { command: "git commit -am 'zebraparser: rename'" }, "[main abc1234] zebraparser: rename")
      .say("Renamed zebraparser.");
    const other = new TranscriptBuilder(
      "aaaaaaaa-0000-4000-8000-0000000000f2",
      join(root, "elsewhere"),
      "2026-05-01T10:00:00.000Z",
    );
    other.user("zebraparser elsewhere").say("Not this project's zebraparser.");
    const t1 = join(root, "t1.jsonl");
    const t2 = join(root, "t2.jsonl");
    writeFileSync(t1, b.text());
    writeFileSync(t2, other.text());
    const w = openForWrite(db);
    replay(w, [t1, t2]);
    w.close();
  });
  afterAll(() => dir[Symbol.dispose]());

  const run = (cwd: string, args: string[]) => {
    const r = Bun.spawnSync(["bun", join(REPO, "src", "cli.ts"), ...args, "--db", db], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: config, NO_COLOR: "1" },
      cwd,
    });
    expect({ args, stderr: r.stderr.toString(), exitCode: r.exitCode }).toEqual({
      args,
      stderr: "",
      exitCode: 0,
    });
    return r.stdout.toString();
  };

  /** Where a command may be run from and what it may be given, all meaning the repository. */
  const ways: [string, string][] = [
    [repo, "."],
    [sub, "."],
    [sub, "../.."],
    [root, "repo/src/deep"],
    [root, wt],
    [wt, "."],
    [root, link],
    [link, "src"],
  ];

  test.each([
    [
      "search",
      ["search", "zebraparser", "--json"],
      (out: string) =>
        JSON.parse(out).results.map((h: { session: string; snippet: string }) => [h.session, h.snippet]),
    ],
    [
      "recall <words>",
      ["recall", "zebraparser", "--json"],
      (out: string) => JSON.parse(out).events?.map((e: { summary: string }) => e.summary) ?? JSON.parse(out),
    ],
    ["forget --dry-run", ["forget", "--dry-run", "--json"], (out: string) => JSON.parse(out).counts],
  ] as const)("%s selects the same rows from every way of naming the repository", (_name, args, pick) => {
    const seen = ways.map(([cwd, p]) => JSON.stringify(pick(run(cwd, [...args, "--project", p]))));
    for (const s of seen) expect(s).toBe(seen[0]!);
    expect(seen[0]).not.toContain("elsewhere");
    expect(seen[0]).not.toBe("[]");
  });

  test("export session-index writes the repository's index from every way of naming it", () => {
    const seen = ways.map(([cwd, p]) =>
      JSON.parse(run(cwd, ["export", "session-index", "--project", p, "--json"])),
    );
    for (const s of seen) expect(s).toEqual(seen[0]);
    expect(JSON.stringify(seen[0])).toContain("aaaaaaaa-0000-4000-8000-0000000000f1");
    expect(JSON.stringify(seen[0])).not.toContain("aaaaaaaa-0000-4000-8000-0000000000f2");
  });
});
