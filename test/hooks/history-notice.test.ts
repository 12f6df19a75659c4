/**
 * The first SessionStart tells the user, once, what history is not in memory yet, as the hook's
 * JSON `systemMessage` (shown to the user, not given to the model: docs/hooks.md); later starts say
 * nothing and scan nothing (src/hooks/history-notice.ts).
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_INVOCATION, runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { projectFolder } from "../../src/commands/import.ts";

const SAMPLE_ID = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13";

function world(root: string) {
  const env = {
    CLAUDE_CONFIG_DIR: join(root, "claude"),
    THROUGHLINE_HOME: join(root, "tl"),
    CLAUDE_PID: "4242",
  };
  const projects = join(env.CLAUDE_CONFIG_DIR, "projects");
  const addTranscript = (folder: string, id: string) => {
    const dir = join(projects, folder);
    mkdirSync(dir, { recursive: true });
    copyFileSync(SAMPLE, join(dir, `${id}.jsonl`));
  };
  const start = (session: string, source = "startup") =>
    runCli(["hook", "session-start"], {
      env,
      stdin: JSON.stringify({
        session_id: session,
        source,
        cwd: root,
        transcript_path: join(root, `${session}.jsonl`),
        hook_event_name: "SessionStart",
      }),
    });
  return { env, projects, addTranscript, start, marker: join(env.THROUGHLINE_HOME, "history-notice") };
}

describe("SessionStart: the history not in memory yet, said once", () => {
  test("the first start says it as a systemMessage, the second says nothing", () => {
    using dir = tempDir();
    const w = world(dir.path);
    w.addTranscript(projectFolder("/home/dev/todo-api"), SAMPLE_ID);
    w.addTranscript(projectFolder("/home/dev/other"), "22222222-0000-4000-8000-000000000002");
    // Not the user's sessions: import skips an observer's folder, and so does the count.
    w.addTranscript("-home-dev--claude-mem-observer-sessions", "33333333-0000-4000-8000-000000000003");
    // An older client's flat subagent file is not a session of its own.
    w.addTranscript(projectFolder("/home/dev/todo-api"), `${SAMPLE_ID}.sub-agent-1`);
    const first = w.start("aaaaaaaa-0000-4000-8000-000000000001");
    expect(first.stderr).toBe("");
    expect(first.exitCode).toBe(0);
    // The whole stdout is one JSON object: Claude Code parses it instead of adding it to the context.
    expect(JSON.parse(first.stdout)).toEqual({
      systemMessage: `throughline: 2 sessions (26 KB) in ${w.projects} are not in memory yet: \`${CLI_INVOCATION} import\` adds them (under a second at import's measured 8 MB/s)`,
    });
    expect(existsSync(w.marker)).toBe(true);
    const second = w.start("aaaaaaaa-0000-4000-8000-000000000002");
    expect(second).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
  });

  test("after install (which said it) the first start says nothing", () => {
    using dir = tempDir();
    const w = world(dir.path);
    w.addTranscript(projectFolder("/home/dev/todo-api"), SAMPLE_ID);
    const install = runCli(["install"], { env: w.env });
    expect(install.stdout).toContain("History: 1 session (13 KB)");
    expect(w.start("aaaaaaaa-0000-4000-8000-000000000001")).toMatchObject({ exitCode: 0, stdout: "" });
  });

  test("no history: nothing said, and no scan on later starts (history added after is not counted)", () => {
    using dir = tempDir();
    const w = world(dir.path);
    expect(w.start("aaaaaaaa-0000-4000-8000-000000000001")).toMatchObject({ exitCode: 0, stdout: "" });
    expect(existsSync(w.marker)).toBe(true);
    w.addTranscript(projectFolder("/home/dev/todo-api"), SAMPLE_ID);
    expect(w.start("aaaaaaaa-0000-4000-8000-000000000002")).toMatchObject({ exitCode: 0, stdout: "" });
  });

  test("sessions already in memory are not counted; a compaction's start leaves the notice for a plain one", () => {
    using dir = tempDir();
    const w = world(dir.path);
    w.addTranscript(projectFolder("/home/dev/todo-api"), SAMPLE_ID);
    w.addTranscript(projectFolder("/home/dev/other"), "22222222-0000-4000-8000-000000000002");
    const held = join(w.projects, projectFolder("/home/dev/todo-api"), `${SAMPLE_ID}.jsonl`);
    expect(runCli(["replay", held], { env: w.env }).exitCode).toBe(0);
    // source compact: stdout is the push for the model (here: no transcript, nothing), never the notice.
    const compact = w.start("aaaaaaaa-0000-4000-8000-000000000001", "compact");
    expect(compact.stdout).not.toContain("systemMessage");
    expect(existsSync(w.marker)).toBe(false);
    const first = w.start("aaaaaaaa-0000-4000-8000-000000000001", "resume");
    expect(JSON.parse(first.stdout).systemMessage).toStartWith(
      `throughline: 1 session (13 KB) in ${w.projects} is`,
    );
  });

  test("a paused project's sessions are not counted (the never list, as import)", () => {
    using dir = tempDir();
    const w = world(dir.path);
    w.addTranscript(projectFolder("/home/dev/todo-api"), SAMPLE_ID);
    mkdirSync(w.env.THROUGHLINE_HOME, { recursive: true });
    writeFileSync(join(w.env.THROUGHLINE_HOME, "never"), `session ${SAMPLE_ID}\n`);
    expect(w.start("aaaaaaaa-0000-4000-8000-000000000001")).toMatchObject({ exitCode: 0, stdout: "" });
  });
});
