import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { transcriptFolderOf } from "../../src/core/paths.ts";
import { MIGRATIONS } from "../../src/db/schema.ts";
import { SCHEMA_VERSION } from "../../src/db/version.ts";

/**
 * Migration 7 files every session of an older database under the directory it started in
 * (docs/project-identity.md, "Where a session started"): from the transcript's first cwd when
 * the file is there, else from the transcript's folder name when it names exactly one directory
 * the database knows; else the session keeps its project.
 */
describe("migration 7: a session's project is where it started", () => {
  test("a schema-5 database filed by the newest cwd is fixed by `migrate`", () => {
    using dir = tempDir("tl-mig6-");
    const root = realpathSync(dir.path);
    const start = join(root, "Documents", "Claude");
    const repo = join(start, "agents");
    mkdirSync(join(repo, ".git"), { recursive: true });
    writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    const folder = join(root, "claude", "projects", transcriptFolderOf(start));
    mkdirSync(folder, { recursive: true });
    // A: its transcript is still there; it started in Documents/Claude, then cd-ed into agents.
    const a = join(folder, "A.jsonl");
    const b = new TranscriptBuilder("A", start);
    b.raw({ type: "summary", summary: "an older session", leafUuid: "x" });
    b.user("look").say("ok").cd(repo).user("work").say("done");
    writeFileSync(a, b.text());
    const path = join(root, "old.db");
    const raw = new Database(path);
    raw.run("PRAGMA journal_mode = WAL");
    for (let i = 0; i < 5; i++) raw.run(MIGRATIONS[i] as string);
    raw.run("PRAGMA user_version = 5");
    const rows: [string, string, string | null][] = [
      ["A", repo, null],
      // B: transcript gone, its folder names Documents/Claude, an ancestor of a known project.
      ["B", repo, join(folder, "B.jsonl")],
      // C: transcript gone and kept outside a projects folder: nothing tells where it started.
      ["C", repo, join(root, "elsewhere", "C.jsonl")],
      // D: transcript gone, its folder names no directory the database knows.
      ["D", repo, join(root, "claude", "projects", "-nowhere-known", "D.jsonl")],
    ];
    for (const [id, project, transcript] of rows)
      raw.run(
        "INSERT INTO sessions (id, project, transcript_path, created_at, updated_at) VALUES (?, ?, ?, 1, 1)",
        [id, project, transcript],
      );
    // A's path is known only from its cursor (a row written before transcript_path was kept).
    raw.run(
      "INSERT INTO ingest_cursors (transcript_path, session_id, offset, turn_offset, turn_number, size, updated_at) VALUES (?, 'A', 0, 0, 0, 0, 1)",
      [a],
    );
    for (const id of ["A", "B", "C"])
      raw.run(
        `INSERT INTO events (session_id, origin_session_id, project, seq, ts, type, summary, detail, ikey)
         VALUES (?, ?, ?, 1, 1, 'file_edit', 'edited x', '{}', ?)`,
        [id, id, repo, `k-${id}`],
      );
    raw.close();

    const out = runCli(["migrate", "--db", path]);
    expect(out.stderr).toBe("");
    expect(out.stdout).toContain(`migrated: ${path} (schema 5 → ${SCHEMA_VERSION})`);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.query("SELECT id, project FROM sessions ORDER BY id").all()).toEqual([
        { id: "A", project: start },
        { id: "B", project: start },
        { id: "C", project: repo },
        { id: "D", project: repo },
      ]);
      expect(db.query("SELECT origin_session_id AS id, project FROM events ORDER BY id").all()).toEqual([
        { id: "A", project: start },
        { id: "B", project: start },
        { id: "C", project: repo },
      ]);
    } finally {
      db.close();
    }
    // Already current: a second run changes nothing.
    expect(runCli(["migrate", "--db", path]).stdout).toContain("already_current");
  });
});
