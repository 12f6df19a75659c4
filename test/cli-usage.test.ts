/**
 * Issue 45, items 4, 8 and 10: a command line with a mistake in it is a one-line error that says
 * what is wrong (never a silent guess, never an internal name), and every help fits a terminal.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commands } from "../src/commands/index.ts";
import { runCli, tempDir } from "./helpers/db.ts";

/** The words that reach a command that runs: a command with subcommands is reached through its first. */
const LEAVES: string[][] = Object.keys(commands).map((name) =>
  name === "hook" ? ["hook", "session-start"] : name === "export" ? ["export", "jsonl"] : [name],
);

/** One line on stderr, `throughline: …`, with no stack trace and no internal error name. */
function expectOneLine(stderr: string): string {
  expect(stderr).toMatch(/^throughline: [^\n]+\n$/);
  expect(stderr).not.toMatch(/CLIError|SQLiteError|ThroughlineError|TypeError|\bat .*\.ts:\d+/);
  return stderr;
}

describe("45.4 unknown flags are errors", () => {
  test("45.4 unknown flag: one line naming it, with did-you-mean", () => {
    using dir = tempDir();
    const db = join(dir.path, "throughline.db");
    const r = runCli(["search", "blocky", "--kindd", "l2", "--db", db]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(expectOneLine(r.stderr)).toMatch(
      /^throughline: unknown flag --kindd for search — did you mean --kind\? Run `.* search --help`\.\n$/,
    );
    // Refused before anything runs: no database was created or read.
    expect(existsSync(db)).toBe(false);
    const far = runCli(["status", "--frobnicate"]);
    expect(far.exitCode).toBe(1);
    expect(expectOneLine(far.stderr)).toMatch(/^throughline: unknown flag --frobnicate for status\. Run `/);
    // A word that looks like a short flag says where such a word goes.
    expect(expectOneLine(runCli(["search", "x", "-5"]).stderr)).toContain(
      "unknown flag -5 for search (a word that starts with - goes after --)",
    );
  });

  test("45.4 every command refuses an unknown flag the same way (exit 1, one line)", () => {
    using dir = tempDir();
    const env = { THROUGHLINE_HOME: dir.path, CLAUDE_CONFIG_DIR: join(dir.path, "claude") };
    for (const words of [[], ...LEAVES]) {
      const r = runCli([...words, "--definitely-not-a-flag"], { env });
      expect({ words, exitCode: r.exitCode }).toEqual({ words, exitCode: 1 });
      expect(expectOneLine(r.stderr)).toContain("unknown flag --definitely-not-a-flag");
    }
    // Nothing ran: no database, no settings were written.
    expect(existsSync(join(dir.path, "throughline.db"))).toBe(false);
    expect(existsSync(join(dir.path, "claude"))).toBe(false);
  });

  test("45.4 known flags in every form still parse: --flag=value, --no-flag, words after --", () => {
    using dir = tempDir();
    const db = join(dir.path, "none.db");
    for (const args of [
      ["search", "x", "--kind=l2", `--db=${db}`],
      ["search", "--db", db, "--", "-5", "--kindd"],
      ["status", "--no-json", "--db", db],
    ]) {
      const r = runCli(args);
      expect(r.stderr).toContain("no throughline database");
    }
  });
});

describe("45.8 plain errors, no internal names", () => {
  test("45.8 an unknown command, missing words and a file that is not a database: plain lines", () => {
    const typo = runCli(["hepl"]);
    expect(typo.exitCode).toBe(1);
    expect(expectOneLine(typo.stderr)).toMatch(
      /^throughline: unknown command "hepl" — did you mean "help"\? Run `.* --help`\.\n$/,
    );
    const words = runCli(["search"]);
    expect(words.exitCode).toBe(1);
    expect(expectOneLine(words.stderr)).toBe(
      "throughline: search needs words: throughline search <words> [options]\n",
    );
    using dir = tempDir();
    const bad = join(dir.path, "notes.db");
    writeFileSync(bad, "these are my notes, not SQLite\n".repeat(40));
    for (const args of [["status"], ["search", "x"], ["migrate"], ["recall", "edits"]]) {
      const r = runCli([...args, "--db", bad]);
      expect(r.exitCode).toBe(1);
      expect(expectOneLine(r.stderr)).toBe(
        `throughline: ${bad} is not a throughline database (file is not a database); move it aside, or point --db or THROUGHLINE_DB at another file\n`,
      );
    }
  });

  test("45.8 doctor on a file that is not a database says what it is and what to do, not migrate", () => {
    using dir = tempDir();
    const bad = join(dir.path, "throughline.db");
    writeFileSync(bad, "x".repeat(4096));
    const r = runCli(["doctor", "--json", "--db", bad], {
      env: { THROUGHLINE_HOME: dir.path, CLAUDE_CONFIG_DIR: join(dir.path, "claude") },
    });
    const checks = JSON.parse(r.stdout).checks as {
      name: string;
      ok: boolean;
      detail: string;
      fix?: string;
    }[];
    const schema = checks.find((c) => c.name === "database schema")!;
    expect(schema.ok).toBe(false);
    expect(schema.detail).toBe(`${bad} is not a throughline database (file is not a database)`);
    expect(schema.fix).toContain("move it aside");
    expect(schema.fix).not.toContain("migrate");
  });

  test("45.8 install on a broken database stops before writing anything", () => {
    using dir = tempDir();
    const bad = join(dir.path, "throughline.db");
    writeFileSync(bad, "x".repeat(4096));
    const claude = join(dir.path, "claude");
    const r = runCli(["install", "--db", bad], {
      env: { THROUGHLINE_HOME: dir.path, CLAUDE_CONFIG_DIR: claude },
    });
    expect(r.exitCode).toBe(1);
    expect(expectOneLine(r.stderr)).toContain(`${bad} is not a throughline database`);
    expect(existsSync(claude)).toBe(false);
    expect(readFileSync(bad, "utf8")).toBe("x".repeat(4096));
  });

  test("45.8 help: `throughline help` is --help, `throughline help <command>` is that command's", () => {
    const root = runCli(["help"]);
    expect(root).toEqual({ ...runCli(["--help"]), exitCode: 0 });
    for (const words of [["search"], ["export"], ["export", "jsonl"], ["hook", "stop"]]) {
      const r = runCli(["help", ...words]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(runCli([...words, "--help"]).stdout);
      expect(r.stdout).toContain(`throughline ${words.join(" ")}`);
    }
    const unknown = runCli(["help", "serch"]);
    expect(unknown.exitCode).toBe(1);
    expect(expectOneLine(unknown.stderr)).toContain('unknown command "serch" — did you mean "search"?');
  });
});
