/**
 * One project identity (docs/project-identity.md): the rule as a table over a described file
 * system, then the same cases on a real one, where `detail`, `recall`, `search` and the /tl
 * handoff must all land on the same project.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { normalizeProject, type ProjectFs, projectIdentity } from "../../src/core/paths.ts";
import { projectOf } from "../../src/db/project.ts";
import { HookDriver } from "../helpers/hooks.ts";

/** A file system described as paths: `.git` dirs, `.git` files (their text), other files, symlinks. */
function fakeFs(spec: {
  gitDirs?: string[];
  gitFiles?: Record<string, string>;
  files?: Record<string, string>;
  links?: Record<string, string>;
}): ProjectFs {
  return {
    realpath: (p) => {
      for (const [from, to] of Object.entries(spec.links ?? {}))
        if (p === from || p.startsWith(`${from}/`)) return to + p.slice(from.length);
      return p;
    },
    gitEntry: (dir) =>
      spec.gitDirs?.includes(dir)
        ? { kind: "dir" }
        : spec.gitFiles?.[dir] !== undefined
          ? { kind: "file", text: spec.gitFiles[dir]! }
          : null,
    readText: (p) => spec.files?.[p] ?? null,
  };
}

const REPO_FS = fakeFs({
  gitDirs: ["/src/app", "C:/work/app"],
  gitFiles: {
    "/wt/app-feature": "gitdir: /src/app/.git/worktrees/app-feature\n",
    "/wt/relative": "gitdir: ../../src/app/.git/worktrees/relative\n",
    "/src/app/vendor/lib": "gitdir: ../../.git/modules/lib\n",
    "C:/wt/app-fix": "gitdir: C:/work/app/.git/worktrees/app-fix\n",
  },
  files: {
    "/src/app/.git/worktrees/app-feature/commondir": "../..\n",
    "/src/app/.git/worktrees/relative/commondir": "../..\n",
    "C:/work/app/.git/worktrees/app-fix/commondir": "../..\n",
  },
  links: { "/home/me/app-link": "/src/app" },
});

describe("project identity: the table", () => {
  const cases: [string, string, string][] = [
    ["the repository root", "/src/app", "/src/app"],
    ["a subdirectory", "/src/app/packages/web/src", "/src/app"],
    ["a trailing slash", "/src/app/packages/", "/src/app"],
    ["a linked worktree (absolute gitdir)", "/wt/app-feature/lib", "/src/app"],
    ["a linked worktree (relative gitdir)", "/wt/relative", "/src/app"],
    ["a submodule is its own project", "/src/app/vendor/lib/src", "/src/app/vendor/lib"],
    ["a symlinked path", "/home/me/app-link/docs", "/src/app"],
    ["no repository: the directory itself", "/home/me/notes/", "/home/me/notes"],
    ["the file system root", "/", "/"],
    ["a Windows path", "C:\\work\\app\\src\\", "C:/work/app"],
    ["a lower-case drive letter", "c:\\work\\app", "C:/work/app"],
    ["a Windows worktree", "C:\\wt\\app-fix\\x", "C:/work/app"],
    ["a Windows drive root", "D:\\", "D:/"],
  ];
  for (const [what, cwd, expected] of cases)
    test(`${what}: ${cwd} → ${expected}`, () => {
      expect(projectIdentity(cwd, REPO_FS, "/home/me")).toBe(expected);
    });

  test("a repository at the home directory (dotfiles) does not swallow the projects below it", () => {
    const fs = fakeFs({ gitDirs: ["/home/me"] });
    expect(projectIdentity("/home/me/notes", fs, "/home/me")).toBe("/home/me/notes");
  });

  test("normalizeProject is idempotent on every identity", () => {
    for (const [, cwd] of cases) {
      const id = projectIdentity(cwd, REPO_FS, "/home/me");
      expect(normalizeProject(id)).toBe(id);
    }
  });
});

describe("project identity: hooks and commands agree (real file system)", () => {
  test("subdirectory, worktree, symlink and trailing slash all reach the repository's memory", async () => {
    const here = process.cwd();
    using dir = tempDir();
    const repo = join(dir.path, "repo");
    mkdirSync(join(repo, ".git", "worktrees", "feature"), { recursive: true });
    writeFileSync(join(repo, ".git", "worktrees", "feature", "commondir"), "../..\n");
    mkdirSync(join(repo, "src", "deep"), { recursive: true });
    const wt = join(dir.path, "feature");
    mkdirSync(wt);
    writeFileSync(join(wt, ".git"), `gitdir: ${join(repo, ".git", "worktrees", "feature")}\n`);
    symlinkSync(join(repo, "src"), join(dir.path, "src-link"));
    const places: [string, string][] = [
      ["subdirectory", join(repo, "src", "deep")],
      ["worktree", wt],
      ["symlinked path", join(dir.path, "src-link")],
      ["trailing slash", `${repo}/`],
    ];
    for (const [, cwd] of places) expect(projectOf(cwd, { HOME: "/nonexistent-home" })).toBe(repo);
    // A real repository's `.git` holds HEAD, which is answered without node:fs; the same places agree.
    writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    for (const [, cwd] of places) expect(projectOf(cwd, { HOME: "/nonexistent-home" })).toBe(repo);
    // The walk did not leave the process in another directory.
    expect(process.cwd()).toBe(here);

    const h = new HookDriver(dir.path);
    h.env.HOME = "/nonexistent-home";
    h.env.THROUGHLINE_PROC_ROOT = join(dir.path, "no-proc");
    delete h.env.CLAUDE_PID;
    const s1 = "11111111-aaaa-4bbb-8ccc-111111111111";
    const start = new Date(h.clock).toISOString();
    await h.fire("session-start", s1, { source: "startup" }, repo);
    h.write(new TranscriptBuilder(s1, repo, start).user("remember the zanzibar plan").say("Noted zanzibar."));
    await h.fire("user-prompt-submit", s1, { prompt: "remember the zanzibar plan" }, repo);
    await h.fire("stop", s1, {}, repo);
    await h.fire("user-prompt-submit", s1, { prompt: "/tl" }, repo);
    const hhmm = start.slice(11, 16);

    for (const [what, cwd] of places) {
      const env = { THROUGHLINE_DB: h.dbPath, HOME: "/nonexistent-home", NO_COLOR: "1", TZ: "UTC" };
      const search = runCli(["search", "zanzibar", "--json"], { cwd, env });
      expect(search.exitCode, `${what}: search ${search.stderr}`).toBe(0);
      expect(JSON.stringify(JSON.parse(search.stdout))).toContain(s1);
      const recall = runCli(["recall", "--json"], { cwd, env });
      expect(recall.exitCode, `${what}: recall ${recall.stderr}`).toBe(0);
      expect(recall.stdout).toContain(repo);
      const detail = runCli(["detail", hhmm, "--json"], { cwd, env });
      expect(detail.exitCode, `${what}: detail ${detail.stderr}`).toBe(0);
      expect(detail.stdout).toContain("zanzibar");
    }

    // The handoff: a new window in each place takes the baton /tl stored at the root.
    const s2 = "22222222-aaaa-4bbb-8ccc-222222222222";
    h.advance(60_000);
    await h.fire("session-start", s2, { source: "startup" }, places[1]![1]);
    h.advance(1000);
    const push = await h.fire("user-prompt-submit", s2, { prompt: "continue" }, places[1]![1]);
    expect(push.stdout).toContain("zanzibar");
    h.read((db) =>
      expect(db.query("SELECT DISTINCT project FROM sessions").all()).toEqual([{ project: repo }]),
    );
  }, 60_000);
});
