import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { projectFolder } from "../../src/commands/import.ts";
import { FIXTURES, runCli, SAMPLE, tempDir } from "../helpers/db.ts";

describe("import (docs/contract.md#capture)", () => {
  function history(root: string) {
    const projects = join(root, "claude", "projects");
    const a = join(projects, projectFolder("/home/dev/todo-api"));
    const b = join(projects, projectFolder("/home/dev/project"));
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    copyFileSync(SAMPLE, join(a, "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13.jsonl"));
    copyFileSync(
      join(FIXTURES, "transcripts", "bad-lines.jsonl"),
      join(b, "11111111-0000-4000-8000-000000000002.jsonl"),
    );
    const old = new Date("2025-01-01T00:00:00Z");
    utimesSync(join(b, "11111111-0000-4000-8000-000000000002.jsonl"), old, old);
    return { CLAUDE_CONFIG_DIR: join(root, "claude"), THROUGHLINE_DB: join(root, "tl.db") };
  }

  test("ingests the history under $CLAUDE_CONFIG_DIR/projects; a second run changes nothing", () => {
    using dir = tempDir();
    const env = history(dir.path);
    const first = JSON.parse(runCli(["import", "--json"], { env }).stdout);
    expect(first.schema).toBe("throughline.import.v1");
    expect(first.totals).toMatchObject({ files: 2, sessions: 2, turns: 6, skipped_lines: 1 });
    const second = JSON.parse(runCli(["import", "--json"], { env }).stdout);
    expect(second.totals).toMatchObject({ files: 2, turns: 6 });
  });

  test("--project and --since narrow what is read", () => {
    using dir = tempDir();
    const env = history(dir.path);
    const byProject = JSON.parse(
      runCli(["import", "--json", "--project", "/home/dev/todo-api"], { env }).stdout,
    );
    expect(byProject.totals).toMatchObject({ files: 1, turns: 4 });
    using dir2 = tempDir();
    const env2 = history(dir2.path);
    const recent = JSON.parse(runCli(["import", "--json", "--since", "2026-01-01"], { env: env2 }).stdout);
    expect(recent.totals).toMatchObject({ files: 1, turns: 4 });
  });

  test("no history: one clear line, exit 1", () => {
    using dir = tempDir();
    const r = runCli(["import"], {
      env: { CLAUDE_CONFIG_DIR: join(dir.path, "none"), THROUGHLINE_DB: join(dir.path, "tl.db") },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`throughline: no Claude Code history at ${join(dir.path, "none", "projects")}\n`);
  });
});
