import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { projectFolder } from "../../src/commands/import.ts";

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

  const SAMPLE_ID = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13";
  const sessionIds = (env: Record<string, string>) =>
    (JSON.parse(runCli(["status", "--json"], { env }).stdout).recent as { id: string }[]).map((x) => x.id);

  test("45.3 import skips throughline's own export files", () => {
    using dir = tempDir();
    const env = history(dir.path);
    const projects = join(env.CLAUDE_CONFIG_DIR, "projects");
    expect(runCli(["import"], { env }).exitCode).toBe(0);
    // The session-index files land under the projects folder, where import walks.
    expect(runCli(["export", "session-index", "--session", SAMPLE_ID], { env }).exitCode).toBe(0);
    const index = readdirSync(projects, { recursive: true })
      .map(String)
      .find((f) => f.endsWith(join("session-index", SAMPLE_ID, "events.jsonl")));
    expect(index).toBeDefined();
    // An export saved into the history folder, loose and under a name a transcript could have.
    const backup = join(projects, "22222222-0000-4000-8000-000000000009.jsonl");
    expect(runCli(["export", "jsonl", "--out", backup], { env }).exitCode).toBe(0);
    for (let round = 0; round < 2; round++) {
      const r = runCli(["import"], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("Skipped 2 files:");
      expect(r.stdout).toContain(`${join(projects, index!)} (it is a throughline session index)`);
      expect(r.stdout).toContain(`${backup} (it is a throughline export: import it with --from-export)`);
      const json = JSON.parse(runCli(["import", "--json"], { env }).stdout);
      expect(json.skipped_files.map((f: { file: string }) => f.file).sort()).toEqual(
        [join(projects, index!), backup].sort(),
      );
      const ids = sessionIds(env);
      expect(ids).not.toContain("events");
      expect(ids).not.toContain("22222222-0000-4000-8000-000000000009");
      // The second round follows a forget of the other session: import does not bring back
      // what forget took (docs/memory-control.md), and throughline's own files stay skipped.
      const kept = round === 0 ? [SAMPLE_ID, "11111111-0000-4000-8000-000000000002"] : [SAMPLE_ID];
      expect(ids.sort()).toEqual(kept.sort());
      // The skipped files do not come back after a forget either (by a unique id prefix).
      if (round === 0) expect(runCli(["forget", "--session", "11111111", "--yes"], { env }).exitCode).toBe(0);
    }
    // Nor is it counted as history waiting for import.
    const doctor = runCli(["doctor"], { env }).stdout;
    expect(doctor).toContain("history: all 2 sessions in");
    expect(doctor).not.toContain("3 sessions");
    // The file's content decides, not its place: a copy elsewhere is named too.
    const copy = join(dir.path, "copy.jsonl");
    writeFileSync(copy, readFileSync(join(projects, index!)));
    const r = runCli(["replay", copy], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `throughline: ${copy} is not a Claude Code transcript: it is a throughline session index\n`,
    );
  });

  test("45.6 replay and import refuse files with no transcript entries and say which lines they skipped", () => {
    using dir = tempDir();
    const env = history(dir.path);
    const files = {
      "empty.jsonl": "",
      "notes.txt": "Remember to buy milk\nand bread\n",
      "blob.jsonl": Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)),
    };
    for (const [name, body] of Object.entries(files)) {
      const path = join(dir.path, name);
      writeFileSync(path, body);
      const r = runCli(["replay", path], { env });
      expect({ name, exitCode: r.exitCode, stdout: r.stdout }).toEqual({ name, exitCode: 1, stdout: "" });
      expect(r.stderr).toStartWith(`throughline: ${path} is not a Claude Code transcript: `);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
    expect(runCli(["replay", join(dir.path, "empty.jsonl")], { env }).stderr).toContain("it is empty");
    expect(runCli(["replay", join(dir.path, "notes.txt")], { env }).stderr).toContain(
      "none of its 2 lines is a transcript entry; line 1: not JSON",
    );
    expect(sessionIds(env)).toEqual([]);

    // import: the same files in the history are skipped and named, the others imported.
    const folder = join(env.CLAUDE_CONFIG_DIR, "projects", projectFolder("/home/dev/project"));
    copyFileSync(join(dir.path, "empty.jsonl"), join(folder, "33333333-0000-4000-8000-000000000003.jsonl"));
    copyFileSync(join(dir.path, "blob.jsonl"), join(folder, "44444444-0000-4000-8000-000000000004.jsonl"));
    const r = runCli(["import"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `Skipped 2 files: ${join(folder, "33333333-0000-4000-8000-000000000003.jsonl")} (it is empty)`,
    );
    expect(r.stdout).toContain(`${join(folder, "44444444-0000-4000-8000-000000000004.jsonl")} (`);
    expect(sessionIds(env).sort()).toEqual([SAMPLE_ID, "11111111-0000-4000-8000-000000000002"].sort());

    // Skipped lines are named with their number and why; the good lines after them are kept.
    const bad = join(folder, "11111111-0000-4000-8000-000000000002.jsonl");
    expect(r.stdout).toContain(`Skipped 1 line: ${bad} line 3 (not JSON).`);
    const mixed = join(dir.path, "55555555-0000-4000-8000-000000000005.jsonl");
    const good = readFileSync(bad, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("{"));
    const junk = ["", "[1,2]", '{"type":"user",', "nope", "42", "{bad json}", "not either"];
    writeFileSync(mixed, `${[junk[1], good[0], ...junk.slice(2), ...good.slice(1)].join("\n")}\n`);
    const replayed = runCli(["replay", mixed, "--json"], { env });
    expect(replayed.exitCode).toBe(0);
    const one = JSON.parse(replayed.stdout).sessions[0];
    expect(one).toMatchObject({ turns: 2, skipped_lines: 6 });
    expect(one.skipped.lines).toBe(6);
    expect(one.skipped.first.slice(0, 3)).toEqual([
      { line: 1, reason: "a JSON value, not an object" },
      { line: 3, reason: "cut short or malformed JSON" },
      { line: 4, reason: "not JSON" },
    ]);
    const text = runCli(["replay", mixed, "--db", join(dir.path, "other.db")], { env }).stdout;
    expect(text).toContain(
      `Skipped 6 lines: ${mixed} line 1 (a JSON value, not an object), line 3 (cut short or malformed JSON), line 4 (not JSON) and 3 more.`,
    );
  });

  test("45.7 a second import says what is new and what was already in memory", () => {
    using dir = tempDir();
    const env = history(dir.path);
    const first = runCli(["import"], { env });
    expect(first.stdout).toStartWith(
      "Imported 2 transcripts (2 sessions, 2 new): 6 new turns; 0 already in memory",
    );
    const again = runCli(["import"], { env });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toStartWith(
      "Nothing new in 2 transcripts (2 sessions): 0 new turns; 6 already in memory",
    );
    expect(again.stdout).not.toContain("Imported");
    const json = JSON.parse(runCli(["import", "--json"], { env }).stdout);
    expect(json.totals).toMatchObject({ turns: 6, new_turns: 0, new_sessions: 0 });
    // One more turn in a transcript: one new turn, the rest already there.
    const folder = join(env.CLAUDE_CONFIG_DIR, "projects", projectFolder("/home/dev/todo-api"));
    const path = join(folder, `${SAMPLE_ID}.jsonl`);
    const last = readFileSync(path, "utf8").trimEnd().split("\n").at(-1)!;
    const entry = JSON.parse(last);
    const more = [
      {
        ...entry,
        type: "user",
        uuid: "extra-u1",
        parentUuid: entry.uuid,
        message: { role: "user", content: "one more thing" },
      },
      {
        ...entry,
        type: "assistant",
        uuid: "extra-a1",
        parentUuid: "extra-u1",
        message: { role: "assistant", content: [{ type: "text", text: "done" }] },
      },
    ];
    writeFileSync(path, `${readFileSync(path, "utf8")}${more.map((m) => JSON.stringify(m)).join("\n")}\n`);
    const third = runCli(["import"], { env });
    expect(third.stdout).toStartWith(
      "Imported 2 transcripts (2 sessions, 0 new): 1 new turn; 6 already in memory",
    );
    const replay = runCli(["replay", path, "--json"], { env });
    expect(JSON.parse(replay.stdout).totals).toMatchObject({ turns: 5, new_turns: 0 });
  });

  test("a bad line in what a transcript grew by is named by its line in the whole file", () => {
    using dir = tempDir();
    const env = history(dir.path);
    const path = join(dir.path, `${SAMPLE_ID}.jsonl`);
    copyFileSync(SAMPLE, path);
    const before = readFileSync(path, "utf8").split("\n").length - 1;
    expect(JSON.parse(runCli(["replay", path, "--json"], { env }).stdout).totals.new_turns).toBe(4);
    writeFileSync(path, `${readFileSync(path, "utf8")}half a line\n`);
    const again = JSON.parse(runCli(["replay", path, "--json"], { env }).stdout).sessions[0];
    expect(again.skipped).toEqual({ lines: 1, first: [{ line: before + 1, reason: "not JSON" }] });
    expect(again.skipped_lines).toBe(1);
  });
});
