import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FIXTURES, runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { projectFolder } from "../../src/commands/import.ts";
import { SCHEMA_VERSION } from "../../src/db/version.ts";
import { expectGolden } from "../helpers/golden.ts";

// The text of the admin commands, run as a user runs them in a fresh THROUGHLINE_HOME and
// CLAUDE_CONFIG_DIR. What differs per machine or per run (temp paths, Bun's version, elapsed
// milliseconds, times stamped at ingest, the schema version) becomes a placeholder; everything else is compared
// byte for byte with test/golden/admin/.

const SAMPLE_ID = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13";
const BAD_ID = "11111111-0000-4000-8000-000000000002";

function sandbox(root: string) {
  const cwd = join(root, "work");
  mkdirSync(cwd, { recursive: true });
  const env = { CLAUDE_CONFIG_DIR: join(root, "claude"), THROUGHLINE_HOME: join(root, "tl") };
  const started = Date.now() - 1000;
  const normalise = (text: string) => {
    let out = text;
    for (const p of new Set([realpathSync(root), root])) out = out.replaceAll(p, "<tmp>");
    out = out.replaceAll(dirname(process.env.HOME!), "<test-home>");
    out = out.replaceAll(`Bun ${Bun.version}`, "Bun <version>");
    // The schema moves on with migrations; doctor's line about it should not churn this golden.
    out = out.replaceAll(
      `version ${SCHEMA_VERSION} (current ${SCHEMA_VERSION})`,
      "version <schema> (current <schema>)",
    );
    out = out.replace(/\(\d+ ms\)/g, "(<n> ms)").replace(/ in \d+ ms/g, " in <n> ms");
    // Times stamped while this test ran (ingest, cursors); the transcripts' own times stay.
    return out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, (iso) =>
      Date.parse(iso) >= started ? "<now>" : iso,
    );
  };
  const run = (args: string[]) => {
    const r = runCli(args, { env, cwd });
    return { ...r, stdout: normalise(r.stdout), stderr: normalise(r.stderr) };
  };
  const transcripts = () => {
    const dir = join(root, "transcripts");
    mkdirSync(dir, { recursive: true });
    copyFileSync(SAMPLE, join(dir, `${SAMPLE_ID}.jsonl`));
    copyFileSync(join(FIXTURES, "transcripts", "bad-lines.jsonl"), join(dir, `${BAD_ID}.jsonl`));
    return dir;
  };
  return { env, run, transcripts };
}

describe("admin command text (golden)", () => {
  test("install, install again, uninstall, uninstall again", () => {
    using dir = tempDir();
    const s = sandbox(dir.path);
    const first = s.run(["install"]);
    expect(first.exitCode).toBe(0);
    // No history in CLAUDE_CONFIG_DIR: nothing is said about it.
    expect(first.stdout).not.toContain("History");
    expectGolden("admin/install.txt", first.stdout);
    expectGolden("admin/install-again.txt", s.run(["install"]).stdout);
    const removed = s.run(["uninstall"]);
    expect(removed.exitCode).toBe(0);
    expectGolden("admin/uninstall.txt", removed.stdout);
    expectGolden("admin/uninstall-nothing.txt", s.run(["uninstall"]).stdout);
  });

  test("doctor: nothing installed, then installed", () => {
    using dir = tempDir();
    const s = sandbox(dir.path);
    const fresh = s.run(["doctor"]);
    expect(fresh.exitCode).toBe(1);
    expectGolden("admin/doctor-fresh.txt", fresh.stdout);
    s.run(["install"]);
    const ok = s.run(["doctor"]);
    expect(ok.exitCode).toBe(0);
    expectGolden("admin/doctor.txt", ok.stdout);
  });

  test("replay, then doctor --session", () => {
    using dir = tempDir();
    const s = sandbox(dir.path);
    const r = s.run(["replay", s.transcripts()]);
    expect(r.exitCode).toBe(0);
    expectGolden("admin/replay.txt", r.stdout);
    const one = s.run(["doctor", "--session", SAMPLE_ID.slice(0, 8)]);
    expect(one.exitCode).toBe(0);
    expectGolden("admin/doctor-session.txt", one.stdout);
  });

  test("import", () => {
    using dir = tempDir();
    const s = sandbox(dir.path);
    const projects = join(s.env.CLAUDE_CONFIG_DIR, "projects");
    const a = join(projects, projectFolder("/home/dev/todo-api"));
    const observer = join(projects, "-home-dev--claude-mem-observer-sessions");
    mkdirSync(a, { recursive: true });
    mkdirSync(observer, { recursive: true });
    copyFileSync(SAMPLE, join(a, `${SAMPLE_ID}.jsonl`));
    copyFileSync(join(FIXTURES, "transcripts", "bad-lines.jsonl"), join(observer, `${BAD_ID}.jsonl`));
    const r = s.run(["import"]);
    expect(r.exitCode).toBe(0);
    expectGolden("admin/import.txt", r.stdout);
    expectGolden("admin/import-again.txt", s.run(["import", "--no-default-excludes"]).stdout);
  });

  // Day one (README, "throughline and Claude Code's own memory"): install ends with the history it
  // found. The estimate is computed from a constant speed (src/capture/history.ts), so it is the same
  // on every machine and needs no placeholder.
  test("install on a config directory holding transcripts: the sessions not in memory yet", () => {
    using dir = tempDir();
    const s = sandbox(dir.path);
    const projects = join(s.env.CLAUDE_CONFIG_DIR, "projects");
    const a = join(projects, projectFolder("/home/dev/todo-api"));
    const b = join(projects, projectFolder("/home/dev/other"));
    const observer = join(projects, "-home-dev--claude-mem-observer-sessions");
    for (const d of [a, b, observer]) mkdirSync(d, { recursive: true });
    copyFileSync(SAMPLE, join(a, `${SAMPLE_ID}.jsonl`));
    copyFileSync(join(FIXTURES, "transcripts", "bad-lines.jsonl"), join(b, `${BAD_ID}.jsonl`));
    // A subagent's file counts with its session; an observer's session is not the user's (import skips it).
    mkdirSync(join(a, SAMPLE_ID, "subagents"), { recursive: true });
    copyFileSync(SAMPLE, join(a, SAMPLE_ID, "subagents", "agent-1.jsonl"));
    copyFileSync(SAMPLE, join(observer, "33333333-0000-4000-8000-000000000003.jsonl"));
    const r = s.run(["install"]);
    expect(r.exitCode).toBe(0);
    expectGolden("admin/install-history.txt", r.stdout);
    const json = JSON.parse(s.run(["install", "--json"]).stdout).history;
    expect(json).toMatchObject({ sessions: 2, not_in_memory: 2 });
    // Counted, never imported: the database holds no turn yet.
    expect(JSON.parse(s.run(["status", "--json"]).stdout).counts.turns).toBe(0);
    // Once import has read them, install says nothing about history.
    expect(s.run(["import"]).exitCode).toBe(0);
    expect(s.run(["install"]).stdout).not.toContain("History");
  });

  test("doctor: history on disk and in memory, auto memory, --bare", () => {
    using dir = tempDir();
    const s = sandbox(dir.path);
    const projects = join(s.env.CLAUDE_CONFIG_DIR, "projects");
    const a = join(projects, projectFolder("/home/dev/todo-api"));
    const b = join(projects, projectFolder("/home/dev/other"));
    for (const d of [a, b]) mkdirSync(d, { recursive: true });
    copyFileSync(SAMPLE, join(a, `${SAMPLE_ID}.jsonl`));
    copyFileSync(join(FIXTURES, "transcripts", "bad-lines.jsonl"), join(b, `${BAD_ID}.jsonl`));
    s.run(["install"]);
    // One of the two sessions in memory; auto memory turned off in the user's settings.
    expect(s.run(["replay", join(a, `${SAMPLE_ID}.jsonl`)]).exitCode).toBe(0);
    const settings = join(s.env.CLAUDE_CONFIG_DIR, "settings.json");
    writeFileSync(
      settings,
      JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), autoMemoryEnabled: false }),
    );
    const r = s.run(["doctor"]);
    expect(r.exitCode).toBe(0);
    expectGolden("admin/doctor-memory.txt", r.stdout.slice(r.stdout.indexOf("ok   history")));
  });
});
