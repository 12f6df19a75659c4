import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { trustHash } from "../../src/commands/_codex-install.ts";
import { CODEX_HOOKS, trustIdentity } from "../../src/core/codex-hooks.ts";

// `install codex` / `uninstall codex` / doctor's Codex lines (docs/hosts.md), on a CODEX_HOME of
// the test's own: never ~/.codex.

function codexEnv(home: string) {
  return { CODEX_HOME: home, THROUGHLINE_HOME: join(home, "..", "tl") };
}

describe("install codex", () => {
  test("registers the five hooks, records their trust and says so; Claude Code's settings are untouched", () => {
    using d = tempDir();
    const home = join(d.path, "codex");
    const env = { ...codexEnv(home), CLAUDE_CONFIG_DIR: join(d.path, "claude") };
    const r = runCli(["install", "codex"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`Registered 5 hooks in ${join(home, "hooks.json")}`);
    expect(r.stdout).toContain("Trusted exactly these 5 hooks for Codex");
    const hooks = JSON.parse(readFileSync(join(home, "hooks.json"), "utf8")).hooks;
    expect(Object.keys(hooks)).toEqual(CODEX_HOOKS.map((h) => h.event));
    const config = readFileSync(join(home, "config.toml"), "utf8");
    for (const spec of CODEX_HOOKS) {
      const h = hooks[spec.event][0].hooks[0];
      expect(config).toContain(
        `[hooks.state."${join(home, "hooks.json")}:${spec.snake}:0:0"]\ntrusted_hash = "${trustHash(spec.snake, h.command, h.timeout)}"`,
      );
    }
    expect(existsSync(join(d.path, "claude", "settings.json"))).toBe(false);
  });

  test("the trust hash is sha256 of the hook's canonical identity (keys sorted, no spaces)", () => {
    expect(trustIdentity("stop", "tl hook stop", 30)).toBe(
      '{"event_name":"stop","hooks":[{"async":false,"command":"tl hook stop","timeout":30,"type":"command"}]}',
    );
    // The harness recipe's value (Python's json.dumps with sort_keys and tight separators), which
    // Codex 0.171's hooks/list reported as currentHash for every hook it checked (docs/hosts.md).
    expect(trustHash("stop", "tl hook stop", 30)).toBe(
      "sha256:e3c29e4dcca710e176650320f1b6206c693fb176c99de964736f34df953acbd3",
    );
  });

  test("a user's own hooks keep their place; ours come after them and their trust keys say so", () => {
    using d = tempDir();
    const home = join(d.path, "codex");
    mkdirSync(home, { recursive: true });
    const mine = { hooks: { Stop: [{ hooks: [{ type: "command", command: "my-notify", timeout: 5 }] }] } };
    writeFileSync(join(home, "hooks.json"), `${JSON.stringify(mine, null, 2)}\n`);
    expect(runCli(["install", "codex"], { env: codexEnv(home) }).exitCode).toBe(0);
    const hooks = JSON.parse(readFileSync(join(home, "hooks.json"), "utf8")).hooks;
    expect(hooks.Stop[0]).toEqual(mine.hooks.Stop[0]);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain(`hooks.json:stop:1:0"]`);
  });

  test("install twice changes nothing the second time; uninstall gives back the files byte for byte", () => {
    using d = tempDir();
    const home = join(d.path, "codex");
    mkdirSync(home, { recursive: true });
    const hooksBefore = `{\n    "hooks": {\n        "Stop": [\n            {\n                "hooks": [\n                    {\n                        "type": "command",\n                        "command": "my-notify"\n                    }\n                ]\n            }\n        ]\n    }\n}`;
    const configBefore = 'model = "gpt-5.5"\n\n[tui]\nscreen_reader_detection_done = true';
    writeFileSync(join(home, "hooks.json"), hooksBefore);
    writeFileSync(join(home, "config.toml"), configBefore);
    expect(runCli(["install", "codex"], { env: codexEnv(home) }).exitCode).toBe(0);
    const once = [
      readFileSync(join(home, "hooks.json"), "utf8"),
      readFileSync(join(home, "config.toml"), "utf8"),
    ];
    const again = runCli(["install", "codex"], { env: codexEnv(home) });
    expect(again.stdout).toContain("Hooks already up to date");
    expect(again.stdout).toContain("(already recorded)");
    expect([
      readFileSync(join(home, "hooks.json"), "utf8"),
      readFileSync(join(home, "config.toml"), "utf8"),
    ]).toEqual(once);
    const un = runCli(["uninstall", "codex"], { env: codexEnv(home) });
    expect(un.exitCode).toBe(0);
    expect(un.stdout).toContain("Removed their trust from");
    expect(readFileSync(join(home, "hooks.json"), "utf8")).toBe(hooksBefore);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(configBefore);
  });

  test("uninstall removes the files install created, and a second uninstall finds nothing", () => {
    using d = tempDir();
    const home = join(d.path, "codex");
    runCli(["install", "codex"], { env: codexEnv(home) });
    expect(runCli(["uninstall", "codex"], { env: codexEnv(home) }).exitCode).toBe(0);
    expect(existsSync(join(home, "hooks.json"))).toBe(false);
    expect(existsSync(join(home, "config.toml"))).toBe(false);
    const twice = runCli(["uninstall", "codex"], { env: codexEnv(home) });
    expect(twice.stdout).toContain("No throughline hooks in");
  });

  test("an unknown host is refused with nothing written", () => {
    using d = tempDir();
    const r = runCli(["install", "cursor"], { env: codexEnv(join(d.path, "codex")) });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('unknown host "cursor"');
    expect(existsSync(join(d.path, "codex"))).toBe(false);
  });

  test("doctor says the Codex hooks are trusted, and names the ones whose trust no longer matches", () => {
    using d = tempDir();
    const home = join(d.path, "codex");
    runCli(["install", "codex"], { env: codexEnv(home) });
    const ok = runCli(["doctor"], { env: codexEnv(home) });
    expect(ok.stdout).toMatch(/ok +codex hooks: 5 in /);
    expect(ok.stdout).toMatch(/ok +codex trust: every hook trusted/);
    // An edited command invalidates its hash: Codex would skip it silently.
    const path = join(home, "hooks.json");
    writeFileSync(path, readFileSync(path, "utf8").replace("hook stop", "hook stop "));
    const bad = runCli(["doctor"], { env: codexEnv(home) });
    expect(bad.stdout).toMatch(/codex trust: 1 hook\(s\) not trusted \(Stop\)/);
  });
});

describe("import and codex", () => {
  test("import reads $CODEX_HOME/sessions beside Claude Code's history, and a second import finds nothing new", () => {
    using d = tempDir();
    const home = join(d.path, "codex");
    const day = join(home, "sessions", "2026", "12", "06");
    mkdirSync(day, { recursive: true });
    const fixture = join(import.meta.dir, "..", "fixtures", "codex");
    for (const f of readdirSync(fixture)) writeFileSync(join(day, f), readFileSync(join(fixture, f)));
    const env = { ...codexEnv(home), CLAUDE_CONFIG_DIR: join(d.path, "claude-none") };
    const r = runCli(["import", "--json"], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).totals.new_turns).toBe(7);
    const again = JSON.parse(runCli(["import", "--json"], { env }).stdout);
    expect(again.totals.new_turns).toBe(0);
  });
});
