/**
 * `throughline search` on a small fixture session: identifiers in tool output, file paths,
 * Japanese and English phrases, best match first, one result per turn, scopes, kinds and limits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { snippet } from "../../src/core/search.ts";
import { CLI_INVOCATION, FIXTURES, runCli, tempDir } from "../helpers/db.ts";

const SESSION = "act-search-0001";
const FIXTURE = join(FIXTURES, "activity", "search-session.jsonl");

interface Result {
  rank: number;
  kind: "l2" | "l3" | "events";
  label: string;
  snippet: string;
  session: string;
  turn_key: string | null;
  time: string;
  detail_time: string;
  detail_command: string;
  matched: { kind: "l2" | "l3" | "events"; label: string; rows: number }[];
}

describe("search", () => {
  let dir: ReturnType<typeof tempDir>;
  let db: string;
  beforeAll(() => {
    dir = tempDir();
    db = join(dir.path, "tl.db");
    const out = runCli(["replay", FIXTURE, "--db", db]);
    if (out.exitCode !== 0) throw new Error(out.stderr);
  });
  afterAll(() => dir[Symbol.dispose]());

  const search = (...args: string[]) => {
    const out = runCli(["search", ...args, "--db", db, "--all", "--json"]);
    expect(out.stderr).toBe("");
    expect(out.exitCode).toBe(0);
    return JSON.parse(out.stdout) as {
      results: Result[];
      more: boolean;
      more_command: string | null;
      any_word: boolean;
    };
  };

  test("an identifier inside a tool output", () => {
    const r = search("refreshAccessToken").results;
    expect(r[0]).toMatchObject({ kind: "l3", label: "tool_output Bash", turn_key: `${SESSION}:1` });
    expect(r[0]!.snippet).toContain("export async function refreshAccessToken(session: Session)");
    // the time to pass to `detail` is the start of the turn holding the hit
    expect(r[0]!.detail_time).toBe("2026-03-01T09:00:01.000Z");
    expect(r[0]!.detail_command).toBe(
      `${CLI_INVOCATION} detail 2026-03-01T09:00:01.000Z --session ${SESSION}`,
    );
  });

  test("a file path: the edit event, the Edit call and the outputs of turn 1 are one result", () => {
    const r = search("src/auth/token.ts").results;
    expect(r.length).toBe(1);
    expect(r[0]!.turn_key).toBe(`${SESSION}:1`);
    expect(r[0]!.snippet).toContain("src/auth/token.ts");
    const kinds = r[0]!.matched.map((m) => m.kind);
    expect(kinds).toContain("events");
    expect(kinds).toContain("l3");
    expect(r[0]!.matched[0]).toMatchObject({ kind: r[0]!.kind, label: r[0]!.label });
    expect(r[0]!.matched.reduce((n, m) => n + m.rows, 0)).toBeGreaterThanOrEqual(3);
  });

  test("a Japanese phrase", () => {
    const r = search("トークンの更新").results;
    expect(r[0]).toMatchObject({ kind: "l2", label: "user" });
    expect(r[0]!.snippet).toContain("認証トークンの更新処理を直してください");
  });

  test("an English phrase (one quoted argument matches as a phrase)", () => {
    const r = search("clock skew window").results;
    expect(r.length).toBe(1);
    expect(r[0]).toMatchObject({ kind: "l2", label: "assistant", turn_key: `${SESSION}:2` });
    expect(r[0]!.snippet).toContain("the clock skew window was too small");
    // the same words as separate arguments must all occur, anywhere
    expect(search("window", "skew", "clock").results[0]!.turn_key).toBe(`${SESSION}:2`);
  });

  test("best match first, one result per turn", () => {
    // Turn 3's prompt is about the cart; turn 2's long answer mentions it once in passing.
    const r = search("cart", "--kind", "l2").results;
    expect(r.map((x) => [x.turn_key, x.label])).toEqual([
      [`${SESSION}:3`, "user"],
      [`${SESSION}:2`, "assistant"],
    ]);
    // turn 3's reply matched too: it is listed with the turn, not as a result of its own
    expect(r[0]!.matched).toEqual([
      { kind: "l2", label: "user", rows: 1 },
      { kind: "l2", label: "assistant", rows: 1 },
    ]);
    const text = runCli(["search", "cart", "--kind", "l2", "--db", db, "--all"]).stdout;
    expect(text).toContain("   also in this turn: L2 assistant\n");
  });

  test("--kind events searches the activity index only", () => {
    const r = search("3c4d5e6", "--kind", "events").results;
    expect(r.map((x) => x.label)).toEqual(["git_commit"]);
    expect(r[0]!.snippet).toContain("Committed 3c4d5e6 on feat/auth");
  });

  test("--limit bounds the turns shown and says how to get more", () => {
    // "token" occurs in turns 1 and 2 only
    expect(search("token").results.map((x) => x.turn_key)).toEqual([`${SESSION}:1`, `${SESSION}:2`]);
    const j = search("token", "--limit", "1");
    expect(j.results.length).toBe(1);
    expect(j.more).toBe(true);
    expect(j.more_command).toBe(`${CLI_INVOCATION} search token --limit 2`);
    const text = runCli(["search", "token", "--limit", "1", "--db", db, "--all"]).stdout;
    expect(text).toContain(
      `*(showing 1; more matched: \`${CLI_INVOCATION} search token --limit 2\`, or narrow with --kind l2|l3|events)*`,
    );
    expect(search("token", "--limit", "2").more).toBe(false);
  });

  test("words shorter than three characters still match", () => {
    const r = search("NaN").results;
    expect(r[0]!.snippet).toContain("NaN");
    const short = search("0.", "--kind", "l2").results; // two characters: a substring scan
    expect(short.some((x) => x.snippet.includes("0."))).toBe(true);
  });

  test("no result holds every word: results with any of them", () => {
    const j = search("refreshAccessToken", "zyzzyva");
    expect(j.any_word).toBe(true);
    expect(j.results.length).toBeGreaterThan(0);
  });

  test("plain text: numbered hits with a snippet and the detail command", () => {
    const out = runCli(["search", "clock skew", "--db", db, "--all"]);
    expect(out.stdout).toBe(
      [
        "## Search: clock skew",
        "**Scope:** every project · best match first",
        "",
        `1. [L2 assistant] 2026-03-01 09:01:12 · session ${SESSION} · turn 2`,
        "   The session expired because the clock skew window was too small: the server and the browser disagreed by ninety seconds, so every token …",
        `   → ${CLI_INVOCATION} detail 2026-03-01T09:01:12.000Z --session ${SESSION}`,
        "",
      ].join("\n"),
    );
  });

  test("scopes: the current project by default, --session, --project", () => {
    const fromProject = runCli(["search", "cart", "--db", db, "--json"], { cwd: dir.path });
    // dir.path is no project of this database: everything is searched, and the scope says so
    expect(JSON.parse(fromProject.stdout).scope).toStartWith("every project (nothing recorded for");
    const bySession = runCli(["search", "cart", "--session", SESSION, "--db", db, "--json"]);
    expect(JSON.parse(bySession.stdout).scope).toBe(`session ${SESSION}`);
    const byProject = runCli(["search", "cart", "--project", "/home/dev/shop/src", "--db", db, "--json"]);
    expect(JSON.parse(byProject.stdout).scope).toBe("project /home/dev/shop");
    // A relative --project is resolved against the working directory, `.` and `..` folded.
    const relative = runCli(["search", "cart", "--project", "home/dev/x/../shop/src", "--db", db, "--json"], {
      cwd: "/",
    });
    expect(JSON.parse(relative.stdout).scope).toBe("project /home/dev/shop");
    const elsewhere = runCli(["search", "cart", "--project", "/elsewhere", "--db", db]);
    expect(elsewhere.exitCode).toBe(1);
    expect(elsewhere.stderr).toContain("no session recorded for /elsewhere");
  });

  test("no match, bad arguments", () => {
    const none = runCli(["search", "zyzzyva", "--db", db, "--all"]);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toStartWith("## Search: zyzzyva\nNo match in every project.");
    const kind = runCli(["search", "x", "--kind", "l4", "--db", db]);
    expect(kind.exitCode).toBe(1);
    expect(kind.stderr).toContain("--kind must be l2, l3 or events");
    const two = runCli(["search", "x", "--all", "--session", SESSION, "--db", db]);
    expect(two.exitCode).toBe(1);
  });
});

describe("snippet", () => {
  test("centres on the match and marks the cuts", () => {
    const text = `${"a ".repeat(200)}needle${" b".repeat(200)}`;
    const s = snippet(text, ["NEEDLE"], 10);
    expect(s).toBe("… a a a a a needle b b b b b …");
  });
  test("shows JSON-escaped tool input as text", () => {
    expect(snippet('{"command":"echo \\"hi\\"\\nls"}', ["echo"])).toBe('{"command":"echo "hi" ls"}');
  });
});
