/**
 * `import` leaves out the sessions other tools run in the background: throughline's own
 * summarizer folder always, the known observer folders by default, and whatever --exclude
 * names; its summary line says what it skipped.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { projectFolderName } from "../../src/capture/import-exclude.ts";

/** A history with the user's project, our summarizer's folder and claude-mem's observer folder. */
function history(root: string) {
  const projects = join(root, "claude", "projects");
  const tlHome = join(root, "tl-home");
  /** A one-turn session of its own id (the id inside the file is what import stores). */
  const put = (folder: string, id: string) => {
    mkdirSync(join(projects, folder), { recursive: true });
    writeFileSync(
      join(projects, folder, `${id}.jsonl`),
      new TranscriptBuilder(id).user(`summarise ${id}`).say("A summary.").text(),
    );
  };
  mkdirSync(join(projects, projectFolderName("/home/dev/todo-api")), { recursive: true });
  copyFileSync(
    SAMPLE,
    join(projects, projectFolderName("/home/dev/todo-api"), "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13.jsonl"),
  );
  const summarizer = projectFolderName(join(tlHome, "summarizer"));
  put(summarizer, "aaaaaaaa-0000-4000-8000-000000000001");
  put(summarizer, "aaaaaaaa-0000-4000-8000-000000000002");
  const observer = projectFolderName("/home/dev/.claude-mem/observer-sessions");
  put(observer, "bbbbbbbb-0000-4000-8000-000000000001");
  put("-home-dev-scratch", "cccccccc-0000-4000-8000-000000000001");
  return {
    env: {
      CLAUDE_CONFIG_DIR: join(root, "claude"),
      THROUGHLINE_HOME: tlHome,
      THROUGHLINE_DB: join(root, "tl.db"),
    },
    summarizer,
    observer,
  };
}

describe("import: folders left out", () => {
  test("skips our summarizer's folder and the claude-mem observer folder, and says so", () => {
    using dir = tempDir();
    const h = history(dir.path);
    expect(h.observer).toBe("-home-dev--claude-mem-observer-sessions");
    const r = runCli(["import"], { env: h.env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toStartWith("Imported 2 transcripts (2 sessions, 2 new):");
    expect(r.stdout).toContain(
      `Skipped 2 folders (3 transcripts): ${h.observer} (default exclude *-claude-mem-observer-sessions), ${h.summarizer} (throughline summarizer).`,
    );
    const j = JSON.parse(runCli(["import", "--json"], { env: h.env }).stdout);
    expect(j.totals.files).toBe(2);
    expect(j.skipped_folders).toEqual([
      { folder: h.observer, reason: "default exclude *-claude-mem-observer-sessions", transcripts: 1 },
      { folder: h.summarizer, reason: "throughline summarizer", transcripts: 2 },
    ]);
    // What was skipped is not in memory: only the two imported folders' sessions.
    const status = JSON.parse(runCli(["status", "--json"], { env: h.env }).stdout);
    expect(status.counts.sessions).toBe(2);
    expect(
      runCli(["status", "--session", "aaaaaaaa-0000-4000-8000-000000000001"], { env: h.env }).stderr,
    ).toContain("no session aaaaaaaa-0000-4000-8000-000000000001");
  });

  test("--exclude adds globs; --no-default-excludes imports the observer folder; the summarizer's stays out", () => {
    using dir = tempDir();
    const h = history(dir.path);
    const r = JSON.parse(
      runCli(["import", "--json", "--exclude", "*-scratch,*nothing*"], { env: h.env }).stdout,
    );
    expect(r.totals.files).toBe(1);
    expect(r.skipped_folders.map((s: { reason: string }) => s.reason)).toEqual([
      "default exclude *-claude-mem-observer-sessions",
      "--exclude *-scratch",
      "throughline summarizer",
    ]);
    using dir2 = tempDir();
    const h2 = history(dir2.path);
    const all = JSON.parse(runCli(["import", "--json", "--no-default-excludes"], { env: h2.env }).stdout);
    expect(all.totals.files).toBe(3);
    expect(all.skipped_folders).toEqual([
      { folder: h2.summarizer, reason: "throughline summarizer", transcripts: 2 },
    ]);
  });

  test("--help lists the default excludes; an empty --exclude is one clear line", () => {
    using dir = tempDir();
    const h = history(dir.path);
    expect(runCli(["import", "--help"], { env: h.env }).stdout).toContain("*-claude-mem-observer-sessions");
    const bad = runCli(["import", "--exclude", " , "], { env: h.env });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe("throughline: --exclude: give a folder glob, e.g. '*-scratch'\n");
  });
});
