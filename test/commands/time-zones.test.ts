import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO, SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";

/**
 * Time flags read the same way in every zone (docs/contract.md, "Times"): UTC unless the text
 * carries a zone, as everything throughline prints is. test/setup.ts runs the suite in UTC; these
 * run the CLI under zones a day apart and compare.
 */
const ZONES = ["UTC", "Asia/Tokyo", "America/Los_Angeles"];
const SESSION = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13"; // test/fixtures/sample: 2026-11-30, 09:12–09:20 UTC
const PROJECT = "/home/dev/todo-api";

function cli(db: string, tz: string, args: string[]) {
  const r = Bun.spawnSync(["bun", join(REPO, "src", "cli.ts"), ...args, "--db", db], {
    env: { ...process.env, TZ: tz, NO_COLOR: "1" },
    cwd: "/tmp",
  });
  return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe("time flags in the user's zone", () => {
  const dir = tempDir("tl-tz-");
  const db = join(dir.path, "tl.db");
  beforeAll(() => {
    const w = openForWrite(db);
    replay(w, [SAMPLE]);
    w.close();
  });
  afterAll(() => dir[Symbol.dispose]());

  /** The same command under every zone: one output, which `check` accepts. */
  function agree(args: string[], check: (out: string) => void) {
    const outs = ZONES.map((tz) => ({ tz, ...cli(db, tz, args) }));
    for (const o of outs)
      expect({ tz: o.tz, exitCode: o.exitCode, stderr: o.stderr }).toEqual({
        tz: o.tz,
        exitCode: 0,
        stderr: "",
      });
    for (const o of outs)
      expect({ tz: o.tz, stdout: o.stdout }).toEqual({ tz: o.tz, stdout: outs[0]!.stdout });
    check(outs[0]!.stdout);
  }

  test("detail at a clock time the push printed finds the same turn in every zone", () => {
    const push = cli(db, "Asia/Tokyo", ["context", "--session", SESSION]).stdout;
    const clock = /^\[(\d\d:\d\d:\d\d)\] \[user\]: Commit it$/m.exec(push)?.[1];
    expect(clock).toBe("09:15:23");
    agree(["detail", clock!, "--session", SESSION], (out) => expect(out).toContain("[user]: Commit it"));
    agree(["detail", "09:15", "--session", SESSION], (out) => expect(out).toContain("[user]: Commit it"));
  });

  test("recall … today is the UTC day of --now; since <date> is that UTC day's start", () => {
    // 23:30 UTC on the 30th is already the 1st in Tokyo and still the 30th in California.
    agree(["recall", "errors", "today", "--project", PROJECT, "--now", "2026-11-30T23:30:00Z"], (out) =>
      expect(out).toContain("from today (2026-11-30)"),
    );
    agree(["recall", "errors", "today", "--project", PROJECT, "--now", "2026-12-01T00:30:00Z"], (out) =>
      expect(out).not.toMatch(/\| error \|/),
    );
    agree(
      ["recall", "commits", "since", "2026-11-30", "--project", PROJECT, "--now", "2026-12-01T10:00:00Z"],
      (out) => expect(out).toContain("4f2a9c1"),
    );
    agree(
      ["recall", "commits", "since", "2026-12-01", "--project", PROJECT, "--now", "2026-12-01T10:00:00Z"],
      (out) => expect(out).not.toContain("4f2a9c1"),
    );
  });

  test("--before and --now without a zone are UTC; with one, as written", () => {
    // The commit turn starts at 09:15:23 UTC: a bound just after it, written three ways.
    for (const before of ["2026-11-30 09:15:24", "2026-11-30T09:15:24Z", "2026-11-30T18:15:24+09:00"])
      agree(["recall", "--l2", "--session", SESSION, "--before", before, "--last", "1"], (out) =>
        expect(out).toContain("[user]: Commit it"),
      );
    agree(["forget", "--before", "2026-11-30", "--dry-run", "--json"], (out) =>
      expect(JSON.parse(out).counts.turns).toBe(0),
    );
    // A time of day without a zone: UTC, not the machine's (Date.parse would read it locally).
    agree(["forget", "--before", "2026-11-30 09:16", "--dry-run", "--json"], (out) =>
      expect(JSON.parse(out).counts.turns).toBe(3),
    );
    agree(["forget", "--before", "2026-12-01", "--dry-run", "--json"], (out) =>
      expect(JSON.parse(out).counts.turns).toBe(4),
    );
  });

  test("a time flag that is not a time is one line, the same everywhere", () => {
    for (const tz of ZONES) {
      const r = cli(db, tz, ["forget", "--before", "yesterdayish", "--dry-run"]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("--before must be a date or time");
    }
  });
});
