import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO, runCli, tempDir } from "../harness/db.ts";
import { commands } from "../src/commands/index.ts";
import { shellQuote } from "../src/core/invocation.ts";
import { VERSION } from "../src/version.ts";

describe("CLI shell", () => {
  test("--version prints the package version", async () => {
    const pkg = await Bun.file(join(REPO, "package.json")).json();
    expect(VERSION).toBe(pkg.version);
    expect(runCli(["--version"])).toEqual({ exitCode: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  test("--help lists every command", () => {
    const r = runCli(["--help"]);
    expect(r.exitCode).toBe(0);
    for (const name of Object.keys(commands)) expect(r.stdout).toContain(name);
    expect(r.stdout).not.toContain("\u001b["); // no colour when stdout is not a TTY
  });

  test("help follows the same colour decision: FORCE_COLOR=1 colours a pipe, FORCE_COLOR=0 does not", () => {
    const env = { CI: "", TEST: "", TERM: "xterm", NO_COLOR: "" };
    const forced = runCli(["--help"], { env: { ...env, FORCE_COLOR: "1" } });
    const off = runCli(["--help"], { env: { ...env, FORCE_COLOR: "0" } });
    expect(off.stdout).toContain("USAGE");
    expect(off.stdout).not.toContain("\u001b[");
    expect(Bun.stripANSI(forced.stdout)).toBe(off.stdout);
    expect(forced.stdout).toContain("\u001b[");
  });

  test("colour follows stdout alone: a terminal gets it; a pipe does not, even with stderr on the terminal", () => {
    // `script` (util-linux) runs the command on a pseudo-terminal. `doctor` is coloured by our
    // own decision (render/tty.ts); `--help` is citty's, which also turns colour off under CI,
    // TEST or TERM=dumb, so it would make this test depend on the machine's environment.
    using dir = tempDir();
    const cli = `${shellQuote(process.execPath)} ${shellQuote(join(REPO, "src", "cli.ts"))} doctor`;
    const env = {
      ...process.env,
      THROUGHLINE_HOME: dir.path,
      CLAUDE_CONFIG_DIR: join(dir.path, "claude"),
    } as Record<string, string>;
    delete env.NO_COLOR;
    delete env.FORCE_COLOR;
    const onTty = (cmd: string) =>
      Bun.spawnSync(["script", "-qc", cmd, "/dev/null"], { env }).stdout.toString();
    const tty = onTty(cli);
    expect(tty).toContain("bun: Bun");
    expect(tty).toContain("\u001b[");
    const piped = onTty(`${cli} | cat`);
    expect(piped).toContain("bun: Bun");
    expect(piped).not.toContain("\u001b[");
  });

  for (const name of Object.keys(commands))
    test(`${name} --help explains the command`, () => {
      const r = runCli([name, "--help"]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain(`throughline ${name}`);
      expect(r.stdout).toContain("USAGE");
    });

  test("an unknown command is one line naming it, and exits 1", () => {
    const r = runCli(["frobnicate"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^throughline: unknown command "frobnicate"\. Run `.* --help`\.\n$/);
  });

  test("a read command on a missing database: exit 1, clear message, nothing created", () => {
    using dir = tempDir();
    const db = join(dir.path, "nope", "throughline.db");
    const r = runCli(["status", "--db", db]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `throughline: no throughline database at ${db}; run \`throughline install\` or \`throughline import\`\n`,
    );
    expect(existsSync(db)).toBe(false);
    expect(existsSync(join(dir.path, "nope"))).toBe(false);
  });
});
