/**
 * Golden files of the push and of every pull command on one small fixture session
 * (test/fixtures/pull): any change to the text is a reviewed diff. `UPDATE_GOLDEN=1 bun test`
 * rewrites them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { bakedCommands, isoAt, Jsonl, runBaked } from "../../harness/pull.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { PULL_MAX_BYTES } from "../../src/core/turn-block.ts";
import { openForWrite } from "../../src/db/open.ts";
import { expectGolden as expectGoldenAt } from "../helpers/golden.ts";
import { type PinnedCli, pinnedCli } from "../helpers/pinned-cli.ts";
import { buildPullFixture, PULL_FIXTURE, PULL_SESSION } from "../helpers/pull-fixture.ts";

// How many turns the push fits depends on the length of the invocation it bakes into its pulls:
// these goldens run the CLI at paths of one length on every machine (helpers/pinned-cli.ts).
const pinned: PinnedCli = pinnedCli();
const CLI_INVOCATION = pinned.invocation;
const runCli = pinned.run;
const expectGolden = (name: string, text: string) => expectGoldenAt(name, text, CLI_INVOCATION);

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
afterAll(() => {
  dir[Symbol.dispose]();
  pinned[Symbol.dispose]();
});

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

  test("a chain whose newest turns are only control commands: the last real instruction, or none, never /exit", () => {
    using tmp = tempDir("tl-golden-control-");
    const slash = (b: TranscriptBuilder, name: string) =>
      b
        .user(
          `<command-name>/${name}</command-name>\n  <command-message>${name}</command-message>\n  <command-args></command-args>`,
        )
        .user("<local-command-stdout></local-command-stdout>");
    // More control commands than the 20-turn window holds, after one real instruction.
    const tail = new TranscriptBuilder("control-tail", "/home/dev/proj", "2026-03-04T09:00:00.000Z");
    tail.user("refactor the cache layer").say("Refactored: the cache is one module now.");
    for (let i = 0; i < 21; i++) slash(tail, i % 2 === 0 ? "clear" : "model");
    slash(tail, "exit");
    // Nothing but control commands (shaped like the corpus's vsla-vsla-9b92ce83).
    const only = new TranscriptBuilder("control-only", "/home/dev/proj", "2026-03-04T10:00:00.000Z");
    slash(slash(only, "clear"), "exit");
    const file = join(tmp.path, "throughline.db");
    const w = openForWrite(file);
    const paths = [tail, only].map((b) => {
      const p = join(tmp.path, `${b.sessionId}.jsonl`);
      writeFileSync(p, b.text());
      return p;
    });
    replay(w, paths, { now: () => Date.parse("2026-03-04T11:00:00Z") });
    w.close();
    const push = (id: string) => {
      const r = runCli(["context", "--session", id, "--db", file]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toMatch(/Latest prompt \[[^\]]*\]: \//);
      return r.stdout;
    };
    const withTail = push("control-tail");
    expect(withTail).toContain("]: refactor the cache layer");
    expectGolden("pull/context-control-tail.txt", withTail);
    expectGolden("pull/context-control-only.txt", push("control-only"));
  });

  test("tool lines: what each turn's tools touched, in the push and in recall --l2; a paged detail", () => {
    using tmp = tempDir("tl-golden-tools-");
    const path = join(tmp.path, "tools.jsonl");
    const project = "/home/dev/proj";
    const j = new Jsonl("tools-session", project);
    const T = "2026-03-04T09:00:00.000Z";
    j.user(T, "why does the parser drop the last line?")
      .tool(isoAt(T, 1000), "Read", { file_path: `${project}/src/parser.ts` }, "export function parseLines…")
      .tool(isoAt(T, 2000), "Grep", { pattern: "splitLines", path: `${project}/src` }, "src/parser.ts:12")
      .tool(
        isoAt(T, 3000),
        "Edit",
        {
          file_path: `${project}/src/parser.ts`,
          old_string: "const rows = text.split(NEWLINE)",
          new_string: "const rows = splitLines(text, { keepLast: true }); // TRAILING_NEWLINE",
        },
        "The file has been updated.",
      )
      .tool(
        isoAt(T, 4000),
        "Write",
        {
          file_path: `${project}/test/parser_edge.test.ts`,
          content: "test('lastLine', () => expect(parseLines('a\\nb')).toEqual(['a', 'b']))",
        },
        "File created successfully",
      )
      .tool(
        isoAt(T, 5000),
        "Bash",
        { command: "bun test test/parser_edge.test.ts" },
        "Exit code 1\nerror: expected 2 rows, got 1",
        true,
      )
      .tool(
        isoAt(T, 6000),
        "Bash",
        { command: "git commit -am 'parser: keep the last line'" },
        "[main 3f2a1b0] parser: keep the last line",
      )
      .tool(isoAt(T, 7000), "WebFetch", { url: "https://example.com/spec#lines", prompt: "line rules" }, "…")
      .say(isoAt(T, 8000), "Fixed: the parser kept all lines but the last; committed 3f2a1b0.");
    j.user(isoAt(T, 60_000), "and the CLI?")
      .tool(
        isoAt(T, 61_000),
        "Bash",
        { command: "seq 1 40000" },
        Array.from({ length: 40_000 }, (_, i) => `row ${i + 1}`).join("\n"),
      )
      .say(isoAt(T, 62_000), "The CLI prints every row.");
    j.user(
      isoAt(T, 120_000),
      "<command-message>publish</command-message>\n<command-name>/publish</command-name>",
    )
      .meta(
        isoAt(T, 120_000),
        "Publish the release by running:\n\n```bash\npython3 /opt/release/publish_release.py --channel beta\n```\n",
      )
      .say(isoAt(T, 121_000), "I will not publish without your go-ahead.");
    writeFileSync(path, j.text());
    const file = join(tmp.path, "throughline.db");
    const w = openForWrite(file);
    replay(w, [path], { now: () => Date.parse("2026-03-04T11:00:00Z") });
    w.close();
    const run = (...args: string[]) => {
      const r = runCli([...args, "--db", file]);
      expect(r.exitCode).toBe(0);
      return r.stdout;
    };
    expectGolden("pull/tools-context.txt", run("context", "--session", "tools-session"));
    expectGolden(
      "pull/tools-recall-l2.txt",
      run(
        "recall",
        "--l2",
        "--session",
        "tools-session",
        "--before",
        "2026-03-04T10:00:00.000Z",
        "--last",
        "3",
      ),
    );
    // The --l2 pull the push prints: no window turns left, then the pushed turns' full tool lines
    // (absolute paths, the names a read returned); the slash command's text is under its prompt.
    const printed = JSON.parse(run("context", "--session", "tools-session", "--json")).pull.l2 as string;
    expect(printed).toEndWith("--last 0 --newer-tools 3");
    const args = printed.startsWith(CLI_INVOCATION) ? printed.slice(CLI_INVOCATION.length) : printed;
    const newer = run(
      ...args
        .replace(/^\s*throughline /, "")
        .trim()
        .split(" "),
    );
    expect(newer).toContain(`read ${project}/src/parser.ts (parseLines)`);
    expectGolden(
      "pull/tools-newer-tools.txt",
      `$ throughline ${args.replace(/^\s*throughline /, "").trim()}\n${newer}`,
    );
    const detail = run("detail", "09:01", "--session", "tools-session");
    expect(Buffer.byteLength(detail)).toBeLessThanOrEqual(PULL_MAX_BYTES + 1);
    // Where the cut falls depends on the length of this machine's invocation (it is in the marker),
    // so the rows on each side of it are checked here, and the golden keeps only the run's ends.
    const cut = /\n\[… [\d,]+ chars cut · --item \d+\]\n/.exec(detail);
    expect(cut).not.toBeNull();
    const rowsOf = (text: string) =>
      text
        .split("\n")
        .flatMap((l) => /^(?: {2}→ )?row (\d+)$/.exec(l)?.[1] ?? [])
        .map(Number);
    // The lines the mark splits are partial ("row 18" of "row 1869"): left out.
    const head = rowsOf(detail.slice(0, detail.lastIndexOf("\n", cut!.index - 1)));
    const tail = rowsOf(detail.slice(detail.indexOf("\n", cut!.index + cut![0].length)));
    expect(head[0]).toBe(1);
    expect(head.every((n, i) => n === i + 1)).toBe(true);
    expect(tail.at(-1)).toBe(40_000);
    expect(tail.every((n, i) => n === tail[0]! + i)).toBe(true);
    // Head ⅔, tail ⅓ of what was kept (docs/contract.md, "detail").
    expect(head.length).toBeGreaterThan(tail.length);
    expect(head.length + tail.length).toBeGreaterThan(2000);
    expectGolden(
      "pull/tools-detail-cut.txt",
      detail
        .replace(
          /\n(?:row \d+\n)*[^\n]*\n\[… [\d,]+ chars cut · (--item \d+)\]\n[^\n]*(?:\nrow \d+)*\nrow 40000/,
          "\n…\n[… N chars cut · $1]\n…\nrow 40000",
        )
        .replace(/(A cut item in full: `).*( detail --item <ref>`)/, "$1throughline$2")
        .replace(/( {2}→ row 1\n)(?:row \d+\n)*…/, "$1…"),
    );
  });

  test("the printed --l2 pull with --newer-tools stays within a page when text and tools both overflow it", () => {
    using tmp = tempDir("tl-golden-newer-");
    const path = join(tmp.path, "newer.jsonl");
    const j = new Jsonl("newer-session", "/home/dev/big");
    const T = "2026-03-06T09:00:00.000Z";
    const names = (i: number) => Array.from({ length: 400 }, (_, n) => `symbol_${i}_${n}`).join("\n");
    for (let i = 0; i < 14; i++)
      j.user(isoAt(T, i * 60_000), `step ${i + 1}`)
        .tool(
          isoAt(T, i * 60_000 + 1000),
          "Write",
          { file_path: `/home/dev/big/m${i}.ts`, content: names(i) },
          "ok",
        )
        .say(
          isoAt(T, i * 60_000 + 5000),
          `Step ${i + 1} done. ${"Kept verbatim. ".repeat(i < 10 ? 300 : 20)}`,
        );
    writeFileSync(path, j.text());
    const file = join(tmp.path, "throughline.db");
    const w = openForWrite(file);
    replay(w, [path], { now: () => Date.parse("2026-03-06T11:00:00Z") });
    w.close();
    const push = JSON.parse(
      runBaked(`${CLI_INVOCATION} context --session newer-session --json`, file).stdout,
    );
    const printed = push.pull.l2 as string;
    expect(printed).toMatch(/ --newer-tools \d+$/);
    const out = runBaked(printed, file).stdout;
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(PULL_MAX_BYTES + 1);
    expect(out).toContain("## Tools of the");
    // Each pushed turn's line is there, cut to a share of what the window's text left.
    for (const t of push.turns as { started_at: string }[])
      expect(out).toContain(`[${t.started_at.slice(11, 19)}] tools: created /home/dev/big/`);
    // The page still ends with its next-page line, and the next page is the window's alone: the
    // tool lines are not repeated there.
    expect(out.trimEnd().split("\n").at(-1)).toStartWith("Next page (");
    expect(out.indexOf("## Tools of the")).toBeLessThan(out.indexOf("\nNext page ("));
    const next = /^Next page \(.*\): `(.+)`$/m.exec(out)?.[1];
    expect(next).toBeDefined();
    expect(next).not.toContain("--newer-tools");
    expect(runBaked(next!, file).stdout).not.toContain("## Tools of the");
  });

  test("recall --l2 pages: newest turns first, the next page the exact command, every turn once", () => {
    using tmp = tempDir("tl-golden-pages-");
    const path = join(tmp.path, "pages.jsonl");
    const j = new Jsonl("pages-session");
    const T = "2026-03-05T09:00:00.000Z";
    for (let i = 0; i < 12; i++)
      j.user(isoAt(T, i * 60_000), `step ${i + 1}`).say(
        isoAt(T, i * 60_000 + 5000),
        `Step ${i + 1} done. ${"Details of the step, kept verbatim. ".repeat(110)}`,
      );
    writeFileSync(path, j.text());
    const file = join(tmp.path, "throughline.db");
    const w = openForWrite(file);
    replay(w, [path], { now: () => Date.parse("2026-03-05T11:00:00Z") });
    w.close();
    let cmd = `${CLI_INVOCATION} recall --l2 --session pages-session --before 2026-03-05T10:00:00.000Z --last 12`;
    const pages: string[] = [];
    while (cmd && pages.length < 10) {
      const out = runBaked(cmd, file).stdout;
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(PULL_MAX_BYTES + 1);
      pages.push(out);
      cmd = /^Next page \(.*\): `(.+)`$/m.exec(out)?.[1] ?? "";
    }
    expect(pages.length).toBeGreaterThan(1);
    const all = pages.join("\n");
    for (let i = 1; i <= 12; i++) expect(all.split(`[user]: step ${i}\n`).length - 1).toBe(1);
    expectGolden(
      "pull/recall-l2-pages.txt",
      pages
        .map((p, i) => `=== page ${i + 1} ===\n${p}`)
        .join("\n")
        .replaceAll(CLI_INVOCATION, "throughline")
        .replace(/(Details of the step, kept verbatim\. )+/g, "…"),
    );
  });

  test("detail --json at an ISO time", () => {
    expectGolden(
      "pull/detail.json",
      cli("detail", "2026-03-02T00:10:10Z", "--session", PULL_SESSION, "--json"),
    );
  });
});
