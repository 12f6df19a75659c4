import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { runHook } from "../../src/hooks/run.ts";

/**
 * The model's Bash knows its session (docs/hooks.md): SessionStart appends
 * `export THROUGHLINE_SESSION=<id>` to Claude Code's CLAUDE_ENV_FILE, and the reads given no
 * scope default to that session's chain; an explicit scope wins (docs/contract.md#pulls-read-only).
 */
describe("SessionStart exports the session to CLAUDE_ENV_FILE", () => {
  const start = async (env: Record<string, string>, id: string, source = "startup") =>
    runHook(
      "session-start",
      JSON.stringify({ session_id: id, transcript_path: "/nowhere/x.jsonl", cwd: "/home/dev/p", source }),
      env,
    );

  test("the line is appended once, after what the file held, and sources to the id", async () => {
    using dir = tempDir("tl-envfile-");
    const file = join(dir.path, "session-env", "sessionstart-hook-0.sh");
    mkdirSync(join(dir.path, "session-env"));
    writeFileSync(file, "export OTHER=1"); // another line, no newline at its end
    const id = "it's-a-session";
    const env = {
      ...(process.env as Record<string, string>),
      THROUGHLINE_DB: join(dir.path, "tl.db"),
      CLAUDE_ENV_FILE: file,
    };
    expect((await start(env, id)).exitCode).toBe(0);
    // A second SessionStart of the same session (compaction, a ghost start) adds nothing.
    expect((await start(env, id, "compact")).exitCode).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(
      `export OTHER=1\nexport THROUGHLINE_SESSION='it'\\''s-a-session'\n`,
    );
    // What Claude Code does with it: source it before a Bash command.
    const sh = Bun.spawnSync(["/bin/sh", "-c", `. '${file}'; printf %s "$THROUGHLINE_SESSION"`]);
    expect(sh.stdout.toString()).toBe(id);
  });

  test("a file that cannot be written never fails the hook", async () => {
    using dir = tempDir("tl-envfile-");
    const env = {
      ...(process.env as Record<string, string>),
      THROUGHLINE_DB: join(dir.path, "tl.db"),
      CLAUDE_ENV_FILE: dir.path, // a directory
    };
    const out = await start(env, "s-1");
    expect(out).toEqual({ exitCode: 0, stdout: "", stderr: "" });
  });
});

describe("reads default to THROUGHLINE_SESSION's chain", () => {
  /** Two sessions of one project: A (older, "alphaword") and B (newer, "betaword"). */
  function fixture(root: string) {
    const project = join(root, "proj");
    mkdirSync(project, { recursive: true });
    const db = join(root, "tl.db");
    const a = new TranscriptBuilder("sess-a", project, "2026-03-01T09:00:00.000Z");
    a.user("find the alphaword bug").say("fixed the alphaword bug");
    const b = new TranscriptBuilder("sess-b", project, "2026-03-01T10:00:00.000Z");
    b.user("tune the betaword cache").say("tuned the betaword cache");
    for (const t of [a, b]) {
      const file = join(root, `${t.sessionId}.jsonl`);
      writeFileSync(file, t.text());
      expect(runCli(["replay", file, "--db", db]).exitCode).toBe(0);
    }
    return { project, db };
  }
  const run = (args: string[], cwd: string, session?: string) =>
    runCli(args, { cwd, env: session ? { THROUGHLINE_SESSION: session } : {} });

  test("context, recall --l2, detail, search and activity recall pick the env's chain; explicit flags win", () => {
    using dir = tempDir("tl-envread-");
    const { project, db } = fixture(realpathSync(dir.path));
    const ctx = (session?: string, extra: string[] = []) =>
      JSON.parse(run(["context", "--db", db, "--json", ...extra], project, session).stdout).session_id;
    expect(ctx("sess-a")).toBe("sess-a");
    expect(ctx("sess-a", ["--session", "sess-b"])).toBe("sess-b");
    expect(run(["context", "--db", db], project).stderr).toContain("needs --session <id>");

    const l2 = run(
      ["recall", "--l2", "--before", "2026-03-02T00:00:00Z", "--last", "5", "--db", db],
      project,
      "sess-a",
    );
    expect(l2.stdout).toContain("alphaword");
    expect(l2.stdout).not.toContain("betaword");

    // detail: B's turn is outside A's chain; without the env the project holds both.
    const at = "10:00:01";
    expect(run(["detail", at, "--db", db], project).stdout).toContain("betaword");
    const scoped = run(["detail", at, "--db", db], project, "sess-a");
    expect(scoped.stdout).not.toContain("betaword");
    expect(scoped.stdout).toContain("session sess-a");
    expect(run(["detail", at, "--session", "sess-b", "--db", db], project, "sess-a").stdout).toContain(
      "betaword",
    );

    const hits = (session?: string, extra: string[] = []) =>
      (
        JSON.parse(run(["search", "word", "--db", db, "--json", ...extra], project, session).stdout) as {
          results: { session: string }[];
        }
      ).results
        .map((r) => r.session)
        .sort();
    expect(hits()).toEqual(["sess-a", "sess-b"]);
    expect(hits("sess-a")).toEqual(["sess-a"]);
    expect(hits("sess-a", ["--session", "sess-b"])).toEqual(["sess-b"]);
    expect(hits("sess-a", ["--project", project])).toEqual(["sess-a", "sess-b"]);
    expect(hits("sess-a", ["--all"])).toEqual(["sess-a", "sess-b"]);

    // Activity recall: the project's latest chain (B) by default, the env's chain when set.
    const label = (session?: string) =>
      (JSON.parse(run(["recall", "--db", db, "--json"], project, session).stdout) as { scope?: string })
        .scope;
    expect(label()).toContain("sess-b");
    expect(label("sess-a")).toContain("sess-a");
    // A session the database does not hold (yet) leaves the other default in place.
    expect(hits("sess-unknown")).toEqual(["sess-a", "sess-b"]);
  });
});
