/**
 * Issue 45, items 4, 8 and 10: a command line with a mistake in it is a one-line error that says
 * what is wrong (never a silent guess, never an internal name), and every help fits a terminal.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../harness/db.ts";
import { TranscriptBuilder } from "../harness/transcript.ts";
import { commands } from "../src/commands/index.ts";

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

/** Every command a user can name, with the words that name it: the map's and their subcommands. */
async function everyCommandPath(): Promise<string[][]> {
  const paths: string[][] = [];
  for (const [name, load] of Object.entries(commands)) {
    paths.push([name]);
    const cmd = await load();
    const subs = (typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands) ?? {};
    for (const sub of Object.keys(subs)) paths.push([name, sub]);
  }
  return paths;
}

describe("45.10 help that fits a terminal, one --all, session prefixes everywhere", () => {
  test("45.10 every command's --help fits 100 columns and holds an example", async () => {
    const paths = await everyCommandPath();
    expect(paths.length).toBeGreaterThan(Object.keys(commands).length);
    for (const words of [[], ...paths]) {
      const r = runCli([...words, "--help"], { env: { FORCE_COLOR: "0", COLUMNS: "300" } });
      expect(r.exitCode).toBe(0);
      const wide = r.stdout.split("\n").filter((l) => l.length > 100);
      expect({ words, wide }).toEqual({ words, wide: [] });
      expect({ words, example: /\nEXAMPLES\n {2}throughline /.test(r.stdout) }).toEqual({
        words,
        example: true,
      });
      expect(r.stdout).toContain(`USAGE  ${["throughline", ...words].join(" ")}`);
    }
  });

  test("45.10 --all means every project wherever it is taken; recall's project-wide scope is --all-sessions", () => {
    using dir = tempDir();
    const { db, project } = sessionFixture(dir.path);
    const scope = (args: string[]) => {
      const r = runCli(["recall", "--json", "--db", db, ...args], { cwd: project });
      expect(r.stderr).toBe("");
      return (JSON.parse(r.stdout) as { scope: string }).scope;
    };
    expect(scope(["--all"])).toBe("every project");
    expect(scope(["--all-sessions"])).toStartWith("every session of ");
    expect(scope([])).toContain("latest in");
    const both = runCli(["recall", "--all", "--project", project, "--db", db]);
    expect(expectOneLine(both.stderr)).toContain("recall takes one scope");
    for (const words of [["search"], ["monitor"], ["export", "session-index"], ["recall"]])
      expect(runCli([...words, "--help"]).stdout).toMatch(/--all {2,}\S*.*[Ee]very project/);
  });

  test("45.10 --session takes a unique prefix in every command that takes it; ambiguous or unknown says so", () => {
    using dir = tempDir();
    const { db, project, one, two, env } = sessionFixture(dir.path);
    const prefix = one.slice(0, 6);
    const withSession = (s: string): string[][] => [
      ["status", "--session", s],
      ["context", "--session", s],
      ["handoff-context", "--session", s],
      ["recall", "--session", s],
      ["recall", "--l2", "--session", s, "--before", "2030-01-01T00:00:00Z", "--last", "1"],
      ["recall", "--l1", "--session", s, "--before", "2030-01-01T00:00:00Z"],
      ["detail", "09:00-11:00", "--session", s],
      ["search", "alphaword", "--session", s],
      ["doctor", "--session", s],
      ["export", "session-index", "--session", s, "--quiet"],
      ["forget", "--session", s, "--dry-run"],
      ["note", "--decision", "keep it", "--session", s],
      ["pause", "--session", s],
      ["resume", "--session", s],
    ];
    const run = (args: string[]) =>
      runCli([...args, ...(args[0] === "pause" || args[0] === "resume" ? [] : ["--db", db])], {
        cwd: project,
        env,
      });
    for (const args of withSession(prefix)) {
      const r = run(args);
      expect({ args, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ args, exitCode: 0, stderr: "" });
    }
    // What a prefix named is the whole id: pause stores it, and the session's own commands print it.
    expect(readFileSync(join(dir.path, "home", "never"), "utf8")).not.toContain(`${prefix}\n`);
    expect(run(["search", "alphaword", "--session", prefix]).stdout).toContain(one);
    for (const args of withSession("5e1f").filter((a) => a[0] !== "resume")) {
      const r = run(args);
      expect({ args, exitCode: r.exitCode }).toEqual({ args, exitCode: 1 });
      expect(expectOneLine(r.stderr)).toMatch(
        /--session 5e1f matches several sessions \(.*\); give more of the id/,
      );
    }
    // resume looks among the paused sessions.
    for (const id of [one, two]) expect(run(["pause", "--session", id]).exitCode).toBe(0);
    expect(expectOneLine(run(["resume", "--session", "5e1f"]).stderr)).toContain(
      "--session 5e1f matches several paused sessions",
    );
    expect(run(["resume", "--session", prefix]).stdout).toContain(`Resumed session ${one}`);
    for (const args of withSession("zzzz").filter((a) => !["pause", "resume", "forget"].includes(a[0]!))) {
      const r = run(args);
      expect({ args, exitCode: r.exitCode }).toEqual({ args, exitCode: 1 });
      expect(expectOneLine(r.stderr)).toContain("no session zzzz in this database");
    }
  });
});

/** Two sessions whose ids share a prefix (5e1f…), in one project: a prefix of each is unique past it. */
function sessionFixture(root: string) {
  const project = join(root, "proj");
  mkdirSync(project, { recursive: true });
  const db = join(root, "tl.db");
  const one = "5e1f0c2a-1111-4c3e-8a21-0f6b2d9c4e17";
  const two = "5e1f9d3b-2222-4c3e-8a21-0f6b2d9c4e17";
  const env = {
    THROUGHLINE_HOME: join(root, "home"),
    CLAUDE_CONFIG_DIR: join(root, "claude"),
    THROUGHLINE_DB: db,
  };
  for (const [id, word, at] of [
    [one, "alphaword", "2026-03-01T09:00:00.000Z"],
    [two, "betaword", "2026-03-01T10:00:00.000Z"],
  ] as const) {
    const t = new TranscriptBuilder(id, project, at);
    t.user(`find the ${word} bug`).say(`fixed the ${word} bug`);
    const file = join(root, `${id}.jsonl`);
    writeFileSync(file, t.text());
    expect(runCli(["replay", file, "--db", db], { env }).exitCode).toBe(0);
  }
  return { project, db, one, two, env };
}
