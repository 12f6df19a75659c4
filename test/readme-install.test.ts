/**
 * Every install line of README's "Use it with Claude Code" runs as written, from this checkout,
 * in a scratch HOME / CLAUDE_CONFIG_DIR / THROUGHLINE_HOME with a user's PATH, and `doctor`
 * (run with the same program) then finds no problem. A line this test does not know fails it:
 * none is skipped silently. The plugin line needs the pinned Claude Code CLI (`bun install`).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { REPO, tempDir, USER_PATH } from "../harness/db.ts";

interface InstallLine {
  kind: "checkout" | "binary" | "plugin";
  line: string;
  /** What the line installs with, to run `doctor` the same way. */
  program: string;
}

/** The command lines of the first `sh` block of the section, comments removed. */
function installLines(): InstallLine[] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Use it with Claude Code"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README: no sh block under 'Use it with Claude Code'");
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#\s.*$/, "").trim())
    .filter(Boolean)
    .map((line): InstallLine => {
      // The plugin has no install of ours: doctor runs from the checkout.
      if (line.startsWith("claude plugin ")) return { kind: "plugin", line, program: "bun src/cli.ts" };
      const m = /(?:^|&& )(\S+(?: src\/cli\.ts)?) install$/.exec(line);
      if (!m) throw new Error(`README install line this test does not know how to run: ${line}`);
      return { kind: line.startsWith("bun install") ? "checkout" : "binary", line, program: m[1]! };
    });
}

function run(command: string, env: Record<string, string>) {
  const r = Bun.spawnSync(["/bin/sh", "-c", command], { cwd: REPO, env, stdin: "ignore" });
  return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

interface ScratchEnv extends Record<string, string> {
  HOME: string;
  CLAUDE_CONFIG_DIR: string;
  THROUGHLINE_HOME: string;
}

function scratch(root: string): ScratchEnv {
  const env = {
    PATH: USER_PATH,
    HOME: join(root, "home"),
    CLAUDE_CONFIG_DIR: join(root, "home", ".claude"),
    THROUGHLINE_HOME: join(root, "home", ".throughline"),
    TZ: "UTC",
    NO_COLOR: "1",
  };
  mkdirSync(env.HOME, { recursive: true });
  return env;
}

const LINES = installLines();
/** The pinned Claude Code CLI (a devDependency). */
const CLAUDE = join(REPO, "node_modules", ".bin", "claude");

describe("README install lines", () => {
  test("the section has a checkout line, a binary line and the plugin lines", () => {
    expect(LINES.map((l) => l.kind)).toEqual(["checkout", "binary", "plugin"]);
  });

  for (const l of LINES.filter((x) => x.kind !== "plugin"))
    test(`${l.kind}: \`${l.line}\` installs, then \`${l.program} doctor\` reports no problem`, () => {
      using dir = tempDir("tl-readme-");
      const env = scratch(dir.path);
      const install = run(l.line, env);
      expect(install.stderr).not.toContain("error:");
      expect(install.exitCode).toBe(0);
      expect(existsSync(join(env.CLAUDE_CONFIG_DIR, "settings.json"))).toBe(true);
      expect(existsSync(join(env.THROUGHLINE_HOME, "throughline.db"))).toBe(true);
      const doctor = run(`${l.program} doctor`, env);
      expect(doctor.stdout).toContain("No problems found.");
      expect(doctor.exitCode).toBe(0);
      // The hooks call what was installed, by absolute path: no PATH lookup of `throughline`.
      const settings = readFileSync(join(env.CLAUDE_CONFIG_DIR, "settings.json"), "utf8");
      expect(settings).toContain(
        l.kind === "binary" ? join(REPO, "dist", "throughline") : join(REPO, "src", "cli.ts"),
      );
    }, 180_000); // The binary line compiles once (this file's only build).

  test.skipIf(!existsSync(CLAUDE))(
    "plugin: the marketplace line installs the plugin with the real `claude`, then doctor reports no problem",
    () => {
      using dir = tempDir("tl-readme-");
      const env = scratch(dir.path);
      // A user has `claude` on PATH: here the pinned CLI, alone in a directory of its own.
      const bin = join(dir.path, "bin");
      mkdirSync(bin);
      symlinkSync(CLAUDE, join(bin, "claude"));
      env.PATH = `${bin}:${env.PATH}`;
      const plugin = LINES.find((l) => l.kind === "plugin")!;
      const install = run(plugin.line, env);
      expect(install.stdout + install.stderr).toContain(
        "Successfully installed plugin: throughline@throughline",
      );
      expect(install.exitCode).toBe(0);
      const doctor = run(`${plugin.program} doctor`, env);
      expect(doctor.stdout).toContain("ok   plugin: throughline@throughline registers the hooks");
      expect(doctor.stdout).toContain("No problems found.");
      expect(doctor.exitCode).toBe(0);
    },
    60_000,
  );

  test("README says bunx needs publishing first, and package.json is ready for it", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    expect(readme).toMatch(/`bunx throughline install` will work[\s\S]*?once the package is published/);
    expect(readme).toContain("it is not published yet");
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    expect(pkg.name).toBe("throughline");
    expect(pkg.bin.throughline).toBe("./src/cli.ts");
    expect(pkg.files).toContain("src");
    expect(pkg.scripts.prepublishOnly).toContain("bun run build");
  });
});
