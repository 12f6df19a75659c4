import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";

/** An installed home: hooks in settings.json, a database at THROUGHLINE_HOME/throughline.db. */
function installed(root: string) {
  mkdirSync(join(root, "claude"), { recursive: true });
  const env = { CLAUDE_CONFIG_DIR: join(root, "claude"), THROUGHLINE_HOME: join(root, "tl") };
  expect(runCli(["install"], { env, cwd: root }).exitCode).toBe(0);
  const doctor = (...args: string[]) => runCli(["doctor", ...args], { env, cwd: root });
  return { env, db: join(root, "tl", "throughline.db"), doctor };
}

const HOUR = 3_600_000;

function addHookError(path: string, at: number, message: string): void {
  const db = new Database(path);
  try {
    db.query(
      "INSERT INTO hook_errors (event, session_id, message, created_at) VALUES ('Stop', NULL, $m, $at)",
    ).run({ m: message, at });
  } finally {
    db.close();
  }
}

function hookErrorCount(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM hook_errors").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("doctor and hook errors (issue 45)", () => {
  test("45.2 doctor reports hook errors within a stated window; --clear-errors acknowledges them", () => {
    using dir = tempDir();
    const s = installed(dir.path);
    // One bad hook payload, as Claude Code would send it: exit 1 and a hook_errors row.
    const bad = runCli(["hook", "stop"], { env: { ...s.env, THROUGHLINE_DETACH: "0" }, stdin: "{nope" });
    expect(bad.exitCode).toBe(1);
    // And one from three days ago: counted, never a failure on its own.
    addHookError(s.db, Date.now() - 72 * HOUR, "an old failure");

    const failing = s.doctor();
    expect(failing.exitCode).toBe(1);
    const line = failing.stdout.split("\n").find((l) => l.includes("recent hook errors"));
    expect(line).toStartWith("FAIL recent hook errors: 1 hook error in the last 24 hours; 1 older");
    expect(failing.stdout).toContain("doctor --clear-errors");
    expect(failing.stdout).not.toContain("an old failure");

    const cleared = s.doctor("--clear-errors");
    expect(cleared.stderr).toBe("");
    expect(cleared.exitCode).toBe(0);
    expect(cleared.stdout).toStartWith("Cleared 2 hook errors (1 from the last 24 hours, 1 older).\n");
    expect(cleared.stdout).toContain("ok   recent hook errors: none in the last 24 hours");
    expect(hookErrorCount(s.db)).toBe(0);

    const after = s.doctor();
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toContain("ok   recent hook errors: none in the last 24 hours");

    // Only old errors: said, not failing.
    addHookError(s.db, Date.now() - 30 * HOUR, "yesterday's failure");
    const old = s.doctor("--json");
    expect(old.exitCode).toBe(0);
    const check = JSON.parse(old.stdout).checks.find(
      (c: { name: string }) => c.name === "recent hook errors",
    );
    expect(check).toMatchObject({ ok: true, detail: "none in the last 24 hours; 1 older" });
  });

  test("doctor opens the database read-only: a plain doctor changes no byte of it", () => {
    using dir = tempDir();
    const s = installed(dir.path);
    runCli(["hook", "stop"], { env: { ...s.env, THROUGHLINE_DETACH: "0" }, stdin: "{nope" });
    const before = Bun.hash(readFileSync(s.db));
    expect(s.doctor().exitCode).toBe(1);
    expect(Bun.hash(readFileSync(s.db))).toBe(before);
    expect(hookErrorCount(s.db)).toBe(1);
  });

  test("--clear-errors without a database creates none", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "claude"), { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: join(dir.path, "claude"), THROUGHLINE_HOME: join(dir.path, "tl") };
    const r = runCli(["doctor", "--clear-errors"], { env, cwd: dir.path });
    expect(r.stdout).toStartWith("Cleared no hook errors: there is no database yet.\n");
    expect(existsSync(join(dir.path, "tl", "throughline.db"))).toBe(false);
  });
});
