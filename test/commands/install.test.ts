import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_INVOCATION, runCli, tempDir } from "../../harness/db.ts";
import {
  BUNDLE,
  buildBundle,
  outputDigest,
  PLUGIN_DIR,
  pluginFiles,
  REPO_DIR,
} from "../../scripts/build-plugin.ts";
import { selfInvocation } from "../../src/core/invocation.ts";
import {
  BACKGROUND_HEAD,
  BACKGROUND_TAIL,
  hookCommand,
  hookProgram,
  isOurCommand,
  mergeHooks,
  mergePermissions,
  missingRules,
  OUR_HOOKS,
  permissionRules,
  READ_ONLY_COMMANDS,
  removeHooks,
  removePermissions,
  TERM_SHIELD,
} from "../../src/core/settings.ts";

const FOREIGN = {
  model: "opus",
  permissions: { allow: ["Bash(git status)"], deny: ["Read(./.env)"] },
  statusLine: { type: "command", command: "~/.claude/statusline.sh", padding: 0 },
  hooks: {
    Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
    PostToolUse: [
      { matcher: "Edit|Write", hooks: [{ type: "command", command: "prettier --write", timeout: 5 }] },
    ],
  },
  env: { FOO: "1" },
};

function setup(dir: string, settings: unknown | string) {
  const claude = join(dir, "claude");
  mkdirSync(claude, { recursive: true });
  const file = join(claude, "settings.json");
  writeFileSync(file, typeof settings === "string" ? settings : JSON.stringify(settings, null, 4));
  const env = { CLAUDE_CONFIG_DIR: claude, THROUGHLINE_HOME: join(dir, "tl") };
  return { claude, file, env, read: () => JSON.parse(readFileSync(file, "utf8")) };
}

describe("install / uninstall (docs/contract.md#hooks)", () => {
  test("keeps every foreign setting and hook; twice = once; uninstall restores the original", () => {
    using dir = tempDir();
    const s = setup(dir.path, FOREIGN);
    const original = readFileSync(s.file, "utf8");
    const r = runCli(["install", "--json"], { env: s.env });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const once = s.read();
    expect(once.model).toBe("opus");
    // Foreign rules kept, in place; ours added after them.
    expect(once.permissions.deny).toEqual(FOREIGN.permissions.deny);
    expect(once.permissions.allow).toEqual([
      ...FOREIGN.permissions.allow,
      ...permissionRules(CLI_INVOCATION),
    ]);
    expect(once.statusLine).toEqual(FOREIGN.statusLine);
    expect(once.env).toEqual(FOREIGN.env);
    expect(once.hooks.Stop[0]).toEqual(FOREIGN.hooks.Stop[0]);
    expect(once.hooks.PostToolUse[0]).toEqual(FOREIGN.hooks.PostToolUse[0]);
    const events = Object.keys(once.hooks).sort();
    expect(events).toEqual([
      "PostToolUse",
      "PostToolUseFailure",
      "PreCompact",
      "SessionEnd",
      "SessionStart",
      "Stop",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
    const ours = (ev: string) =>
      once.hooks[ev]
        .flatMap((g: { hooks: { command: string; async?: boolean }[] }) => g.hooks)
        .find((h: { command: string }) => isOurCommand(h.command));
    expect(ours("Stop").async).toBe(true);
    expect(ours("PostToolUse").async).toBe(true);
    expect(ours("SubagentStop").async).toBe(true);
    expect(ours("UserPromptSubmit").async).toBeUndefined();
    expect(ours("SessionStart").command).toEndWith(" hook session-start");
    expect(readdirSync(join(s.claude, "commands")).sort()).toEqual(["recall.md", "sc-detail.md", "tl.md"]);

    const second = runCli(["install", "--json"], { env: s.env });
    expect(JSON.parse(second.stdout).settings_changed).toBe(false);
    expect(s.read()).toEqual(once);

    expect(runCli(["uninstall"], { env: s.env }).exitCode).toBe(0);
    // Byte for byte, with the file's own four-space indentation.
    expect(readFileSync(s.file, "utf8")).toBe(original);
    expect(existsSync(join(s.claude, "commands", "tl.md"))).toBe(false);
  });

  test("an older throughline entry is upgraded in place", () => {
    const old = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command: "bunx throughline@0.0.1 process-turn" },
              { type: "command", command: "other" },
            ],
          },
        ],
      },
    };
    const next = mergeHooks(old, "/opt/throughline");
    expect(next.hooks).toMatchObject({
      Stop: [
        {
          hooks: [
            {
              type: "command",
              command: `${BACKGROUND_HEAD}/opt/throughline hook stop${BACKGROUND_TAIL}`,
              async: true,
            },
            { type: "command", command: "other" },
          ],
        },
      ],
    });
    expect(removeHooks(next)).toEqual({
      hooks: { Stop: [{ hooks: [{ type: "command", command: "other" }] }] },
    });
  });

  test("the previous release's Stop entry (the shell's `exec` form) is ours: upgraded to the background form, removed by uninstall", () => {
    const previous = `${TERM_SHIELD}/opt/throughline hook stop`;
    expect(isOurCommand(previous)).toBe(true);
    expect(hookProgram(previous)).toBe("/opt/throughline hook stop");
    const current = hookCommand("/opt/throughline", "stop", "linux");
    expect(current).toBe(`${BACKGROUND_HEAD}/opt/throughline hook stop${BACKGROUND_TAIL}`);
    expect(isOurCommand(current)).toBe(true);
    expect(hookProgram(current)).toBe("/opt/throughline hook stop");
    // A foreign command that happens to end like ours in the background is not taken for ours.
    expect(isOurCommand(`${BACKGROUND_HEAD}/opt/other-tool run${BACKGROUND_TAIL}`)).toBe(false);
    const old = { hooks: { Stop: [{ hooks: [{ type: "command", command: previous, async: true }] }] } };
    const next = mergeHooks(old, "/opt/throughline");
    expect(JSON.stringify(next.hooks)).toContain(JSON.stringify(current));
    expect(JSON.stringify(next.hooks)).not.toContain(JSON.stringify(previous));
    expect(removeHooks(next)).toEqual({});
  });

  test("invalid JSON → exit 1, clear message, file untouched", () => {
    using dir = tempDir();
    const s = setup(dir.path, '{ "model": "opus", ');
    const r = runCli(["install"], { env: s.env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/settings\.json is not valid JSON .*nothing was changed/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(readFileSync(s.file, "utf8")).toBe('{ "model": "opus", ');
  });

  test("--project writes only the project file", () => {
    using dir = tempDir();
    const s = setup(dir.path, FOREIGN);
    const before = readFileSync(s.file, "utf8");
    const project = join(dir.path, "proj");
    mkdirSync(project);
    const r = runCli(["install", "--project"], { env: s.env, cwd: project });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(s.file, "utf8")).toBe(before);
    const proj = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8"));
    expect(Object.keys(proj.hooks)).toHaveLength(8);
    expect(existsSync(join(project, ".claude", "commands", "tl.md"))).toBe(true);
  });

  test("the hook command re-invokes the program that ran install", () => {
    expect(selfInvocation("/$bunfs/root/throughline", "/opt/bin/throughline")).toBe("/opt/bin/throughline");
    expect(
      selfInvocation("/tmp/bunx-1000-throughline@0.1.0/node_modules/throughline/src/cli.ts", "/usr/bin/bun"),
    ).toMatch(/^bunx throughline@\d+\.\d+\.\d+$/);
    expect(selfInvocation("/home/me/src/throughline/src/cli.ts", "/usr/bin/bun")).toBe(
      "/usr/bin/bun /home/me/src/throughline/src/cli.ts",
    );
    expect(selfInvocation("/home/me/my code/src/cli.ts", "/usr/bin/bun")).toBe(
      "/usr/bin/bun '/home/me/my code/src/cli.ts'",
    );
  });

  test("allow rules: exactly the read-only commands, foreign rules kept, twice = once, older ones upgraded", () => {
    const inv = "/usr/bin/bun /home/me/throughline/src/cli.ts";
    expect(READ_ONLY_COMMANDS).toEqual(["recall", "detail", "search", "context", "status"]);
    const rules = permissionRules(inv);
    expect(rules).toEqual(READ_ONLY_COMMANDS.map((c) => `Bash(${inv} ${c}:*)`));
    expect(rules.some((r) => /\b(note|install|uninstall|hook|import|replay|forget)\b/.test(r))).toBe(false);

    const mine = {
      permissions: { allow: ["Bash(git status)", "Bash(throughline-like thing)"], ask: ["Bash(rm:*)"] },
    };
    const once = mergePermissions(mine, inv);
    expect(once.permissions).toEqual({ allow: [...mine.permissions.allow, ...rules], ask: ["Bash(rm:*)"] });
    expect(mergePermissions(once, inv)).toEqual(once);
    expect(missingRules(once, inv)).toEqual([]);
    expect(missingRules(mine, inv)).toEqual(rules);

    // A moved checkout: the old rules are replaced where they stood.
    const moved = mergePermissions(once, "/opt/throughline");
    expect(moved.permissions).toEqual({
      allow: [...mine.permissions.allow, ...permissionRules("/opt/throughline")],
      ask: ["Bash(rm:*)"],
    });
    expect(removePermissions(moved)).toEqual(mine);
    // Nothing else of ours: the permissions object itself goes when it was ours alone.
    expect(removePermissions(mergePermissions({ model: "x" }, inv))).toEqual({ model: "x" });
    expect(removePermissions(mine)).toEqual(mine);
  });

  test("install then uninstall of a file that had no permissions gives back its bytes", () => {
    using dir = tempDir();
    const s = setup(dir.path, '{\n\t"model": "opus"\n}');
    runCli(["install"], { env: s.env });
    expect(s.read().permissions.allow).toEqual(permissionRules(CLI_INVOCATION));
    runCli(["uninstall"], { env: s.env });
    expect(readFileSync(s.file, "utf8")).toBe('{\n\t"model": "opus"\n}');
  });

  test("doctor: a fresh install is healthy; a missing hook is a problem with a fix", () => {
    using dir = tempDir();
    const s = setup(dir.path, {});
    runCli(["install"], { env: s.env });
    const ok = runCli(["doctor", "--json"], { env: s.env, cwd: dir.path });
    const report = JSON.parse(ok.stdout);
    expect(report.problems).toBe(0);
    expect(ok.exitCode).toBe(0);
    const settings = s.read();
    delete settings.hooks.Stop;
    writeFileSync(s.file, JSON.stringify(settings));
    const bad = runCli(["doctor"], { env: s.env, cwd: dir.path });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain("FAIL hook Stop: not registered");
    expect(bad.stdout).toContain(`fix: run \`${CLI_INVOCATION} install\``);
  });

  test("doctor: a Stop entry in an earlier release's form is healthy, with a hint to rewrite it", () => {
    using dir = tempDir();
    const s = setup(dir.path, {});
    runCli(["install"], { env: s.env });
    const settings = s.read();
    const entry = settings.hooks.Stop[0].hooks[0];
    expect(entry.command).toBe(hookCommand(CLI_INVOCATION, "stop"));
    entry.command = `${TERM_SHIELD}${hookProgram(entry.command)}`;
    writeFileSync(s.file, JSON.stringify(settings));
    const r = runCli(["doctor"], { env: s.env, cwd: dir.path });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split("\n");
    const at = lines.findIndex((l) => l.startsWith("ok   hook Stop: "));
    expect(lines[at]).toEndWith("(an earlier release's form: the client waits for the hand-off)");
    expect(lines[at + 1]).toBe(`     fix: run \`${CLI_INVOCATION} install\` again to rewrite the entry`);
    runCli(["install"], { env: s.env });
    expect(s.read().hooks.Stop[0].hooks[0].command).toBe(hookCommand(CLI_INVOCATION, "stop"));
  });

  test("doctor: a missing allow rule is a problem, with the install command that adds it", () => {
    using dir = tempDir();
    const s = setup(dir.path, {});
    runCli(["install"], { env: s.env });
    const settings = s.read();
    settings.permissions.allow = settings.permissions.allow.filter((r: string) => !r.includes(" search:"));
    writeFileSync(s.file, JSON.stringify(settings));
    const bad = runCli(["doctor"], { env: s.env, cwd: dir.path });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain(
      `FAIL allow rules: 1 missing, so the model's pulls wait for approval: Bash(${CLI_INVOCATION} search:*)`,
    );
    expect(bad.stdout).toContain(`fix: run \`${CLI_INVOCATION} install\``);
  });

  test("the plugin layout matches what install writes", () => {
    for (const [rel, text] of Object.entries(pluginFiles()))
      expect({ rel, text: readFileSync(join(REPO_DIR, rel), "utf8") }).toEqual({ rel, text });
    const manifest = JSON.parse(readFileSync(join(PLUGIN_DIR, ".claude-plugin", "plugin.json"), "utf8"));
    expect(manifest.hooks).toBeUndefined();
    // One hook list: the plugin registers every hook install does, plus its PreToolUse.
    const hooks = JSON.parse(readFileSync(join(PLUGIN_DIR, "hooks", "hooks.json"), "utf8")).hooks;
    expect(Object.keys(hooks).sort()).toEqual([...OUR_HOOKS.map((h) => h.event), "PreToolUse"].sort());
  });

  test("the plugin's bundle is what the sources build (a comment-only change leaves it as it is)", async () => {
    const committed = readFileSync(join(PLUGIN_DIR, BUNDLE), "utf8");
    const fresh = await buildBundle();
    const [pragma, header] = committed.split("\n", 2);
    expect(pragma).toBe("// @bun");
    // The header names the digest of the build: equal headers, equal code (then equal files).
    expect(header).toBe(fresh.split("\n", 2)[1]);
    expect(outputDigest(committed)).toBe(outputDigest(fresh));
  });

  test("the bundle's digest is of the code: a comment does not change it, a statement does", async () => {
    const digestOf = async (code: string) => {
      using dir = tempDir();
      writeFileSync(join(dir.path, "entry.ts"), code);
      const out = await Bun.build({ entrypoints: [join(dir.path, "entry.ts")], target: "bun", minify: true });
      return outputDigest(await out.outputs[0]!.text());
    };
    const base = await digestOf("export const answer = (x: number) => x + 1;\nconsole.log(answer(41));\n");
    const comment = await digestOf(
      "/** The answer. */\nexport const answer = (x: number) => x + 1; // plus one\nconsole.log(answer(41));\n",
    );
    const code = await digestOf("export const answer = (x: number) => x + 2;\nconsole.log(answer(41));\n");
    expect(comment).toBe(base);
    expect(code).not.toBe(base);
  });
});
