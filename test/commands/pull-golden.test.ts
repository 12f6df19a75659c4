/**
 * Golden files of the push and of every pull command on one small fixture session
 * (test/fixtures/pull): any change to the text is a reviewed diff. `UPDATE_GOLDEN=1 bun test`
 * rewrites them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { CLI_INVOCATION, runCli, tempDir } from "../helpers/db.ts";
import { expectGolden } from "../helpers/golden.ts";
import { bakedCommands, isoAt, Jsonl, runBaked } from "../helpers/pull.ts";
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
    const parsed = JSON.parse(json);
    expect(parsed.stats.total_chars).toBe(parsed.text.length);
    // The count includes this machine's invocation (as long as its paths): the golden holds
    // the count the text has with the invocation spelled `throughline`.
    const plain = parsed.text.replaceAll(CLI_INVOCATION, "throughline");
    expectGolden(
      "pull/context.json",
      json.replace(`"total_chars": ${parsed.text.length},`, `"total_chars": ${plain.length},`),
    );
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

  test("a bash-mode turn is `!<command>`, its output kept as detail", () => {
    using tmp = tempDir("tl-golden-bash-");
    const path = join(tmp.path, "bash-mode.jsonl");
    const j = new Jsonl("bash-mode-session");
    const T = "2026-03-03T10:00:00.000Z";
    j.user(T, "run the tests").say(isoAt(T, 5000), "All 12 tests pass.");
    j.user(isoAt(T, 60_000), "<bash-input>git status --short</bash-input>");
    j.user(
      isoAt(T, 61_000),
      "<bash-stdout> M src/parser.ts\n?? notes.md</bash-stdout><bash-stderr></bash-stderr>",
    );
    j.user(isoAt(T, 120_000), "commit the parser change").say(isoAt(T, 125_000), "Committed as 3f2a1b0.");
    writeFileSync(path, j.text());
    const file = join(tmp.path, "throughline.db");
    const w = openForWrite(file);
    replay(w, [path], { now: () => Date.parse("2026-03-03T11:00:00Z") });
    w.close();
    const r = runCli(["context", "--session", "bash-mode-session", "--db", file]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain("<bash-input>");
    expectGolden("pull/bash-mode.txt", r.stdout);
  });

  test("detail --json at an ISO time", () => {
    expectGolden(
      "pull/detail.json",
      cli("detail", "2026-03-02T00:10:10Z", "--session", PULL_SESSION, "--json"),
    );
  });
});
