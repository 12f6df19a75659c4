/**
 * Host markers (docs/hosts.md, "Host markers"): in a memory holding both hosts' turns, every pull
 * and the viewer mark the Codex turns (`[codex]`, a `host` field in the JSON) and leave Claude
 * Code's as they always were (the Claude-only goldens of pull-golden.test.ts are unchanged). The
 * memory: the pull fixture session (Claude Code, 24 turns) continued by a recorded Codex rollout
 * (3 turns: a reply, a shell call, an apply_patch) in the same project, one chain.
 * `UPDATE_GOLDEN=1 bun test` rewrites the goldens.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { startUi } from "../../src/commands/_ui-server.ts";
import { hostField, hostMark, hostTag } from "../../src/core/host.ts";
import { openForWrite } from "../../src/db/open.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";
import { setSessionProject } from "../../src/db/queries/sessions.ts";
import { expectGolden } from "../helpers/golden.ts";
import { PULL_FIXTURE, PULL_SESSION } from "../helpers/pull-fixture.ts";

const CODEX_SESSION = "01a249f7-0d91-7310-8c8d-1fff9b446896";
const CODEX_ROLLOUT = join(
  import.meta.dir,
  "..",
  "fixtures",
  "codex",
  `rollout-2026-12-06T06-07-37-${CODEX_SESSION}.jsonl`,
);
const PROJECT = "/home/dev/fixture";
/** The Codex session's shell-call turn (turn 2), by its start. */
const CODEX_TURN_2 = "2026-12-06T06:07:38.134Z";
/** After every turn of the memory. */
const BEFORE = "2026-12-07T00:00:00.000Z";

let dir: ReturnType<typeof tempDir>;
let db: string;

beforeAll(() => {
  dir = tempDir("tl-host-golden-");
  db = join(dir.path, "throughline.db");
  const w = openForWrite(db);
  replay(w, [PULL_FIXTURE, CODEX_ROLLOUT], { now: () => Date.parse("2026-12-07T00:00:00Z") });
  // The rollout was recorded elsewhere: file it under the Claude session's project, and continue
  // that session's chain from it, as a baton across hosts does.
  setSessionProject(w, CODEX_SESSION, PROJECT);
  mergeChain(w, PULL_SESSION, CODEX_SESSION);
  w.close();
});
afterAll(() => dir[Symbol.dispose]());

function cli(...args: string[]): string {
  const r = runCli([...args, "--db", db]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return r.stdout;
}

describe("host markers: one helper names the host", () => {
  test("codex is marked, Claude Code (NULL) and anything unknown are not", () => {
    expect([hostMark("codex"), hostMark(null), hostMark(undefined), hostMark("claude")]).toEqual([
      "codex",
      null,
      null,
      null,
    ]);
    expect([hostTag("codex"), hostTag(null)]).toEqual([" [codex]", ""]);
    expect([hostField("codex"), hostField(null)]).toEqual([{ host: "codex" }, {}]);
  });
});

describe("golden: pulls of a memory holding Claude Code and Codex turns", () => {
  test("search: a Codex hit's heading says [codex], a Claude Code hit's does not", () => {
    const text = cli("search", "hi-there", "parser", "--session", CODEX_SESSION);
    expect(text).toMatch(/^\d+\. \[[^\]]+\] \[codex\] .* · turn 2$/m);
    expect(text).toMatch(/^\d+\. \[[^\]]+\] \d{4}-.* · turn 1$/m);
    expectGolden("host/search.txt", text);
    const json = cli("search", "hi-there", "parser", "--session", CODEX_SESSION, "--json");
    const hosts = JSON.parse(json).results.map((r: { host?: string }) => r.host ?? null);
    expect(hosts).toContain("codex");
    expect(hosts).toContain(null);
    expectGolden("host/search.json", json);
  });

  test("recall --l2: the Codex turns' lines say [codex]", () => {
    const text = cli("recall", "--l2", "--session", CODEX_SESSION, "--before", BEFORE, "--last", "5");
    expect(text.match(/^\[\d\d:\d\d:\d\d\] \[codex\] \[user\]: /gm)).toHaveLength(3);
    expect(text.match(/^\[\d\d:\d\d:\d\d\] \[user\]: /gm)).toHaveLength(2);
    expectGolden("host/recall-l2.txt", text);
    expectGolden(
      "host/recall-l2.json",
      cli("recall", "--l2", "--session", CODEX_SESSION, "--before", BEFORE, "--last", "5", "--json"),
    );
  });

  test("recall --l1: the Codex turns' lines say [codex]", () => {
    const text = cli("recall", "--l1", "--session", CODEX_SESSION, "--before", BEFORE, "--last", "5");
    expect(text.match(/^\[\d\d:\d\d:\d\d\] \[codex\] /gm)).toHaveLength(3);
    expectGolden("host/recall-l1.txt", text);
    expectGolden(
      "host/recall-l1.json",
      cli("recall", "--l1", "--session", CODEX_SESSION, "--before", BEFORE, "--last", "5", "--json"),
    );
  });

  test("detail: the Codex turn's heading says [codex]", () => {
    const text = cli("detail", CODEX_TURN_2, "--session", CODEX_SESSION);
    expect(text).toContain(`· turn ${CODEX_SESSION}:2 [codex] ===`);
    expectGolden("host/detail.txt", text);
    const json = JSON.parse(cli("detail", CODEX_TURN_2, "--session", CODEX_SESSION, "--json"));
    expect(json.turns.map((t: { host?: string }) => t.host)).toEqual(["codex"]);
    expectGolden("host/detail.json", cli("detail", CODEX_TURN_2, "--session", CODEX_SESSION, "--json"));
  });

  test("recall <words>: the Codex session's events say [codex]", () => {
    const now = ["--now", "2026-12-07T00:00:00Z"];
    const text = cli("recall", "--session", CODEX_SESSION, ...now);
    expect(text).toMatch(/^\| [^|]+ \[codex\] \| file_create \| Created new\.txt/m);
    expect(text).toMatch(/^\| [^|]+\d \| test_run \| /m);
    expectGolden("host/recall-activity.txt", text);
    const json = JSON.parse(cli("recall", "created", "--session", CODEX_SESSION, ...now, "--json"));
    expect(json.events.map((e: { host?: string }) => e.host)).toEqual(["codex"]);
    expectGolden("host/recall-activity.json", cli("recall", "--session", CODEX_SESSION, ...now, "--json"));
  });
});

describe("the viewer marks a Codex turn", () => {
  test("a chain page: the Codex turns carry the codex tag and Codex answers; the Claude Code turns neither", async () => {
    const server = await startUi({
      dbPath: db,
      port: 0,
      configDir: join(dir.path, "claude"),
      invocation: "throughline",
    });
    try {
      const get = async (path: string) => {
        const r = await fetch(new URL(path, server.url), { headers: { cookie: `tl_ui=${server.token}` } });
        expect(r.status).toBe(200);
        return r.text();
      };
      const page = await get(`/chain?s=${CODEX_SESSION}&page=2`);
      const articles = page.split('<article class="turn"').slice(1);
      const codex = articles.filter((a) =>
        a.includes(`<span class="origin">${CODEX_SESSION.slice(0, 8)}</span>`),
      );
      const claude = articles.filter((a) =>
        a.includes(`<span class="origin">${PULL_SESSION.slice(0, 8)}</span>`),
      );
      expect(codex).toHaveLength(3);
      expect(claude.length).toBeGreaterThan(0);
      for (const a of codex) {
        expect(a).toContain('<span class="tag host">codex</span>');
        expect(a).toContain('<h3 class="who">Codex</h3>');
      }
      for (const a of claude) {
        expect(a).not.toContain('class="tag host"');
        expect(a).toContain('<h3 class="who">Claude</h3>');
      }
      const search = await get(`/search?q=hi-there&s=${CODEX_SESSION}`);
      expect(search).toContain('<span class="tag host">codex</span>');
    } finally {
      await server.stop();
    }
  });
});
