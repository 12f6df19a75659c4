/**
 * Golden files of the push and of every pull command on one small fixture session
 * (test/fixtures/pull): any change to the text is a reviewed diff. `UPDATE_GOLDEN=1 bun test`
 * rewrites them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runCli, tempDir } from "../helpers/db.ts";
import { expectGolden } from "../helpers/golden.ts";
import { bakedCommands, runBaked } from "../helpers/pull.ts";
import { buildPullFixture, PULL_FIXTURE, PULL_SESSION } from "../helpers/pull-fixture.ts";

let dir: ReturnType<typeof tempDir>;
let db: string;

beforeAll(() => {
  dir = tempDir("tl-golden-");
  db = join(dir.path, "throughline.db");
  const w = openForWrite(db);
  replay(w, [PULL_FIXTURE], { now: () => Date.parse("2026-03-02T02:00:00Z") });
  // Two of the four older turns have an L1 summary; a third failed to summarize.
  w.query(
    `INSERT INTO skeletons (turn_id, summary, backend, error, created_at)
     SELECT id, CASE turn_number WHEN 2 THEN NULL ELSE 'Asked to ' || turn_number || ': parser work; tests pass.' END,
            'extractive', CASE turn_number WHEN 2 THEN 'backend timed out' END, 0
     FROM turns WHERE turn_number IN (1, 2, 3)`,
  ).run();
  w.close();
});
afterAll(() => dir[Symbol.dispose]());

function cli(...args: string[]): string {
  const r = runCli([...args, "--db", db]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return r.stdout;
}

describe("golden: push and pulls of the fixture session", () => {
  test("the committed fixture is what its generator writes", () => {
    expect(readFileSync(PULL_FIXTURE, "utf8")).toBe(buildPullFixture().text());
  });

  test("push text (context)", () => {
    expectGolden("pull/context.txt", cli("context", "--session", PULL_SESSION));
  });

  test("context --json and its alias handoff-context", () => {
    const json = cli("context", "--session", PULL_SESSION, "--json");
    expectGolden("pull/context.json", json);
    expect(cli("handoff-context", "--session", PULL_SESSION, "--json")).toBe(json);
  });

  test("baked recall --l2", () => {
    const { l2 } = bakedCommands(cli("context", "--session", PULL_SESSION));
    expect(l2).not.toBeNull();
    expectGolden("pull/recall-l2.txt", `$ ${l2}\n${runBaked(l2!, db).stdout}`);
    expectGolden("pull/recall-l2.json", runBaked(l2!, db, ["--json"]).stdout);
  });

  test("baked recall --l1", () => {
    const { l1 } = bakedCommands(cli("context", "--session", PULL_SESSION));
    expect(l1).not.toBeNull();
    expectGolden("pull/recall-l1.txt", `$ ${l1}\n${runBaked(l1!, db).stdout}`);
    expectGolden("pull/recall-l1.json", runBaked(l1!, db, ["--json"]).stdout);
  });

  test("detail at a clock time before midnight", () => {
    expectGolden("pull/detail-clock.txt", cli("detail", "23:58:20", "--session", PULL_SESSION));
  });

  test("detail over a range across midnight", () => {
    expectGolden("pull/detail-range.txt", cli("detail", "23:58:20-00:06:10", "--session", PULL_SESSION));
  });

  test("detail --json at an ISO time", () => {
    expectGolden(
      "pull/detail.json",
      cli("detail", "2026-03-02T00:10:10Z", "--session", PULL_SESSION, "--json"),
    );
  });
});
