/**
 * README, "throughline and Claude Code's own memory": "throughline never writes `CLAUDE.md`,
 * `MEMORY.md` or transcripts". Checked the way a user lives it: install, one session's hooks through
 * the real CLI entry (start, prompt, stop, compaction, clear), the commands that read history
 * (import, doctor), uninstall. Every file of the Claude Code config directory and of the project is
 * hashed before and after: nothing is created or changed, and while installed only throughline's own
 * settings entries and slash commands differ (uninstall gives those back byte for byte).
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO, runCli, SAMPLE, tempDir } from "../harness/db.ts";
import { projectFolder } from "../src/commands/import.ts";

const SID = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13";

/** Every file under `root`, by relative path, with the hash of its bytes. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(root);
  return out;
}

/** What install adds and uninstall takes back: the settings file's entries and the slash commands. */
function withoutOurs(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).filter(
      ([p]) => p !== "settings.json" && !/^commands\/(tl|recall|sc-detail)\.md$/.test(p),
    ),
  );
}

describe("README: throughline never writes CLAUDE.md, MEMORY.md or transcripts", () => {
  test("the README section says it", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const at = readme.indexOf("\n## throughline and Claude Code's own memory\n");
    expect(at).toBeGreaterThan(0);
    const section = readme.slice(at, readme.indexOf("\n## ", at + 1));
    expect(section).toContain("throughline never writes `CLAUDE.md`, `MEMORY.md` or transcripts.");
    expect(section).toContain("`claude --bare`");
    expect(section).toContain("`/resume`");
  });

  test("install, a session's hooks, import, doctor, uninstall: no such file created or changed", () => {
    using dir = tempDir();
    const claude = join(dir.path, "claude");
    const project = join(dir.path, "todo-api");
    const folder = join(claude, "projects", projectFolder(project));
    mkdirSync(join(folder, "memory"), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(claude, "settings.json"), '{\n  "model": "opus"\n}\n');
    writeFileSync(join(claude, "CLAUDE.md"), "# Mine\nAlways use pnpm.\n");
    writeFileSync(join(project, "CLAUDE.md"), "# todo-api\nRun `bun test`.\n");
    writeFileSync(join(folder, "memory", "MEMORY.md"), "- build: pnpm build\n");
    const transcript = join(folder, `${SID}.jsonl`);
    copyFileSync(SAMPLE, transcript);
    // An older session, on disk only: import reads it.
    copyFileSync(SAMPLE, join(folder, "11111111-0000-4000-8000-000000000001.jsonl"));
    const env = {
      CLAUDE_CONFIG_DIR: claude,
      THROUGHLINE_HOME: join(dir.path, "tl"),
      THROUGHLINE_DETACH: "0",
      THROUGHLINE_FLUSH_WAIT_MS: "0",
      CLAUDE_PID: "4242",
    };
    const before = { claude: snapshot(claude), project: snapshot(project) };

    const run = (args: string[], stdin?: string) => {
      const r = runCli(args, { env, cwd: project, ...(stdin === undefined ? {} : { stdin }) });
      expect({ args, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ args, exitCode: 0, stderr: "" });
      return r;
    };
    const hook = (event: string, extra: Record<string, unknown> = {}) =>
      run(
        ["hook", event],
        JSON.stringify({
          session_id: SID,
          transcript_path: transcript,
          cwd: project,
          hook_event_name: event,
          ...extra,
        }),
      );
    expect(run(["install"]).stdout).toContain("History: 2 sessions");
    hook("session-start", { source: "startup" });
    hook("user-prompt-submit", { prompt: "Add a due date to todos in the todo API. Keep the tests green." });
    hook("stop", { stop_hook_active: false });
    hook("pre-compact", { trigger: "manual", custom_instructions: null });
    hook("session-start", { source: "compact" });
    hook("session-end", { reason: "clear" });
    // The hooks did their work: the session is in memory.
    expect(JSON.parse(run(["status", "--json"]).stdout).counts.turns).toBeGreaterThan(0);
    run(["import"]);
    run(["doctor"]);
    // While installed, only throughline's own settings entries and slash commands differ.
    expect(withoutOurs(snapshot(claude))).toEqual(withoutOurs(before.claude));
    expect(snapshot(project)).toEqual(before.project);

    run(["uninstall"]);
    expect({ claude: snapshot(claude), project: snapshot(project) }).toEqual(before);
  });
});
