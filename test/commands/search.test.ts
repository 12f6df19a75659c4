/**
 * `throughline search` on a small fixture session: identifiers in tool output, file paths,
 * Japanese and English phrases, best match first, one result per turn, scopes, kinds and limits;
 * on built sessions: the turn holding the most of the words first, the words in context, the
 * push never a hit, case folding beyond ASCII, the output's bound; goldens of the text and JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_INVOCATION, FIXTURES, runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { foldCase, PUSH_HEADING } from "../../src/core/search.ts";
import { caseFolds, snippet, windowsOf } from "../../src/core/snippet.ts";
import { utf8Length } from "../../src/core/text.ts";
import { PULL_MAX_BYTES } from "../../src/core/turn-block.ts";
import { expectGolden } from "../helpers/golden.ts";

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
  terms_matched: string[];
  windows: { kind: "l2" | "l3" | "events"; label: string; text: string }[];
}

interface SearchJson {
  schema: string;
  results: Result[];
  more: boolean;
  more_command: string | null;
  any_word: boolean;
  terms: string[];
}

/** `search … --all --json` on `db`: clean (no stderr, exit 0) and parsed. */
function searchJson(db: string, args: string[]): SearchJson {
  const out = runCli(["search", ...args, "--db", db, "--all", "--json"]);
  expect(out.stderr).toBe("");
  expect(out.exitCode).toBe(0);
  return JSON.parse(out.stdout) as SearchJson;
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

  const search = (...args: string[]) => searchJson(db, args);

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
    // Another turn may hold the path's parts (src, auth, token); only this one holds it whole, first.
    expect(r[0]!.terms_matched).toContain("src/auth/token.ts");
    for (const other of r.slice(1)) expect(other.terms_matched).not.toContain("src/auth/token.ts");
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
    expect(j.more_command).toBe(`${CLI_INVOCATION} search token --all --limit 2`);
    const text = runCli(["search", "token", "--limit", "1", "--db", db, "--all"]).stdout;
    expect(text).toContain(
      `*(showing 1; more matched: \`${CLI_INVOCATION} search token --all --limit 2\`, or narrow with --kind l2|l3|events)*`,
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
        // The whole reply: it is shorter than the window's context on each side of the match.
        "   The session expired because the clock skew window was too small: the server and the browser disagreed by ninety seconds, so every token looked stale on arrival. Along the way I also noticed that the payment, shipping, catalogue, inventory, wishlist, reviews, search, recommendations, notifications, newsletter, analytics, admin, reporting, billing, invoices, refunds, coupons, loyalty, gift cards and cart modules all read the same clock helper, so they would have shown the same symptom sooner or later under load.",
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

/** A built session: a turn holding the words in different rows, and a newer one repeating one word. */
function rankingSession(): string {
  const b = new TranscriptBuilder("srch-rank-0001", "/home/dev/atlas", "2026-03-02T10:00:00.000Z");
  b.user("Set up the deployment pipeline for atlas");
  b.tool(
    "Bash",
    { command: "cat deploy.yml" },
    `stages: build, canary, rollout\n${"# notes on the build matrix and its caches\n".repeat(60)}rollback_window: 15m\n`,
  );
  b.say("Deployed to eu-west-3 behind a feature flag.");
  b.user("What does canary mean here? The canary, the canary stage.");
  b.say("A canary is a small first rollout: the canary stage takes 5% of the traffic.");
  return b.text();
}

/**
 * Two turns holding the same two words in one tool output each: the newer repeats them far apart
 * (more of each, so BM25 and recency put it first), the older says them in one line.
 */
function meetingSession(): string {
  const b = new TranscriptBuilder("srch-meet-0001", "/home/dev/atlas", "2026-03-03T09:00:00.000Z");
  const filler = "# the build matrix and its caches, one entry per platform\n".repeat(6);
  b.user("Why is the rollout slow?");
  b.tool(
    "Bash",
    { command: "tail deploy.log" },
    `${filler}the canary rollout stalled at 5% for an hour\n${filler}`,
  );
  b.say("It waited on the health check.");
  b.user("Check the other log.");
  b.tool(
    "Bash",
    { command: "tail build.log" },
    `canary build ok\n${filler}stalled job retried\n${filler}canary image pushed\n${filler}stalled cache warmed\n`,
  );
  b.say("Nothing there.");
  b.user("And the upload?");
  b.tool("Bash", { command: "tail upload.log" }, `${filler}the quota was exceeded for the upload\n${filler}`);
  b.say("Raise it.");
  b.user("Which tenant?");
  b.tool(
    "Bash",
    { command: "tail tenant.log" },
    `quota report\n${filler}exceeded nothing\n${filler}tenant acme\n`,
  );
  b.say("None.");
  return b.text();
}

/** Prompts and replies in German, Russian and Greek, in both cases. */
function caseSession(): string {
  const b = new TranscriptBuilder("srch-case-0001", "/home/dev/atlas", "2026-03-02T11:00:00.000Z");
  b.user("Prüfe die ÜBERSICHT der Äpfel. Проверь Парсер. Η ΑΘΗΝΑ.");
  b.say("Die übersicht zeigt äpfel. ПАРСЕР готов. Η αθηνα.");
  return b.text();
}

/** Claude Code's record of a push: the UserPromptSubmit output as a hook attachment of the next turn. */
function pushedSession(push: string): string {
  const b = new TranscriptBuilder("srch-push-0001", "/home/dev/atlas", "2026-03-02T12:00:00.000Z");
  b.user("go on");
  b.raw({
    parentUuid: null,
    isSidechain: false,
    type: "attachment",
    uuid: "srch-push-att-1",
    timestamp: b.time,
    sessionId: b.sessionId,
    attachment: {
      type: "hook_success",
      hookName: "UserPromptSubmit",
      hookEvent: "UserPromptSubmit",
      content: push,
      stdout: push,
      exitCode: 0,
      durationMs: 40,
      toolUseID: "hook-push-1",
    },
  });
  b.say("Continuing with the rollout plan.");
  return b.text();
}

describe("search: ranking by turn, words in context, the push, case folding", () => {
  let dir: ReturnType<typeof tempDir>;
  let db: string;
  beforeAll(() => {
    dir = tempDir();
    db = join(dir.path, "tl.db");
    const files = { rank: rankingSession(), case: caseSession() };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir.path, `${name}.jsonl`), text);
    let out = runCli(["replay", join(dir.path, "rank.jsonl"), join(dir.path, "case.jsonl"), "--db", db]);
    if (out.exitCode !== 0) throw new Error(out.stderr);
    // The push for the ranking session, recorded back by Claude Code in the next session.
    const push = runCli(["context", "--session", "srch-rank-0001", "--db", db]);
    if (push.exitCode !== 0) throw new Error(push.stderr);
    writeFileSync(join(dir.path, "push.jsonl"), pushedSession(push.stdout));
    out = runCli(["replay", join(dir.path, "push.jsonl"), "--db", db]);
    if (out.exitCode !== 0) throw new Error(out.stderr);
  });
  afterAll(() => dir[Symbol.dispose]());

  const search = (...args: string[]) => searchJson(db, args);
  const text = (...args: string[]) => {
    const out = runCli(["search", ...args, "--db", db, "--all"]);
    expect(out.stderr).toBe("");
    expect(out.exitCode).toBe(0);
    return out.stdout;
  };

  test("the turn holding the most of the words first, though no row holds them all", () => {
    const j = search("canary", "rollback_window", "eu-west-3");
    expect(j.any_word).toBe(false);
    expect(j.results.map((r) => r.turn_key)).toEqual(["srch-rank-0001:1", "srch-rank-0001:2"]);
    expect(j.results[0]!.terms_matched).toEqual(["canary", "rollback_window", "eu-west-3"]);
    expect(j.results[1]!.terms_matched).toEqual(["canary"]);
    // Every matched word in context: the output's two far-apart words on two lines, the reply's on one.
    expect(j.results[0]!.windows.map((w) => [w.label, w.text])).toEqual([
      ["tool_output Bash · call 1 of 1", expect.stringContaining("stages: build, canary, rollout")],
      ["tool_output Bash · call 1 of 1", expect.stringContaining("rollback_window: 15m")],
      ["assistant", "Deployed to eu-west-3 behind a feature flag."],
    ]);
    const out = text("canary", "rollback_window", "eu-west-3");
    expect(out).toContain("\n   [L2 assistant] Deployed to eu-west-3 behind a feature flag.\n");
    expect(out).toContain("\n   not in this turn: rollback_window, eu-west-3 (1 of 3 words)\n");
  });

  test("the lines other tools parse keep their shape", () => {
    const out = text("canary", "rollback_window", "eu-west-3");
    const turns = [...out.matchAll(/^\d+\. \[.*· turn (\d+)\s*$/gm)].map((m) => m[1]);
    expect(turns).toEqual(["1", "2"]);
    const detail = /^\s*→ (.+ detail .+)$/m.exec(out)?.[1];
    expect(detail).toBe(`${CLI_INVOCATION} detail 2026-03-02T10:00:01.000Z --session srch-rank-0001`);
    expect(runCli([...detail!.replace(`${CLI_INVOCATION} `, "").split(" "), "--db", db]).exitCode).toBe(0);
  });

  test("throughline's own push, recorded back as a hook attachment, is never a hit", () => {
    const heading = runCli(["context", "--session", "srch-rank-0001", "--db", db]).stdout;
    expect(heading.startsWith(`${PUSH_HEADING}\n`)).toBe(true);
    // Words only the push holds find nothing; words it repeats find only the turns they came from.
    expect(search("Reading rules").results).toEqual([]);
    expect(search("Resume context").results).toEqual([]);
    const canary = search("canary").results;
    expect(canary.map((r) => r.turn_key)).toEqual(["srch-rank-0001:2", "srch-rank-0001:1"]);
    for (const r of canary) expect(r.matched.some((m) => m.label.startsWith("hook"))).toBe(false);
    // The push's turn itself is still found by its own words, first: it holds them as a phrase; the
    // turns holding one of them follow, and the push's copy of them is never among the rows.
    const plan = search("rollout plan").results;
    expect(plan[0]!.turn_key).toBe("srch-push-0001:1");
    expect(plan[0]!.terms_matched).toEqual(["rollout", "plan"]);
    for (const r of plan) expect(r.matched.some((m) => m.label.startsWith("hook"))).toBe(false);
  });

  test("case folds beyond ASCII: Ä finds ä, ä finds Ä, and so for Cyrillic and Greek", () => {
    const rows = (...w: string[]) => {
      const r = search(...w).results;
      expect(r.map((x) => x.turn_key)).toEqual(["srch-case-0001:1"]);
      return r[0]!.matched;
    };
    const both = [
      { kind: "l2", label: "user", rows: 1 },
      { kind: "l2", label: "assistant", rows: 1 },
    ];
    for (const w of [
      "Ä",
      "ä",
      "übersicht",
      "ÜBERSICHT",
      "Übersicht",
      "ÄPFEL",
      "парсер",
      "ПАРСЕР",
      "αθηνα",
      "ΑΘΗΝΑ",
    ])
      expect(new Set(rows(w).map((m) => m.label))).toEqual(new Set(both.map((m) => m.label)));
    // The text is shown as written, not folded.
    expect(search("ÜBERSICHT").results[0]!.snippet).toContain("Die übersicht zeigt äpfel.");
    // Folding adds no diacritics: a does not find ä.
    expect(search("Apfel").results).toEqual([]);
  });
});

describe("search: where the words meet", () => {
  test("of the turns shown, the one saying the most words within a line of each other comes first", () => {
    using dir = tempDir();
    const db = join(dir.path, "tl.db");
    writeFileSync(join(dir.path, "meet.jsonl"), meetingSession());
    expect(runCli(["replay", join(dir.path, "meet.jsonl"), "--db", db]).exitCode).toBe(0);
    const j = searchJson(db, ["canary", "stalled"]);
    // turn 2 holds each word twice, far apart; turn 1 once each, in one line: turn 1 first
    expect(j.results.map((r) => r.turn_key)).toEqual(["srch-meet-0001:1", "srch-meet-0001:2"]);
    expect(j.results[0]!.windows[0]!.text).toContain("the canary rollout stalled at 5%");
    // where as many words meet, the turn holding more of them comes first
    const more = searchJson(db, ["canary", "stalled", "retried"]);
    expect(more.results[0]!.turn_key).toBe("srch-meet-0001:2");
    // two words said together come before three scattered over a long output
    const together = searchJson(db, ["quota", "exceeded", "tenant"]);
    expect(together.results.map((r) => r.turn_key)).toEqual(["srch-meet-0001:3", "srch-meet-0001:4"]);
    expect(together.results[0]!.windows[0]!.text).toContain("the quota was exceeded for the upload");
    // The tie-break does not depend on --limit: `--limit 1` shows the first of the ten.
    const one = searchJson(db, ["canary", "stalled", "--limit", "1"]);
    expect(one.results.map((r) => r.turn_key)).toEqual(["srch-meet-0001:1"]);
    expect(one.more_command).toContain("--limit 2");
  });
});

describe("search: the first results do not depend on --limit", () => {
  test("each --limit shows the first turns of the longest list, tie-break included", () => {
    // Every turn holds both words in one row and nowhere else: the rows read do not change with
    // --limit (docs/search.md, "Ranking", the dependence left in step 1).
    using dir = tempDir();
    const db = join(dir.path, "tl.db");
    // 30 turns holding both words alike; every third says them in one line, the others far apart.
    const b = new TranscriptBuilder("srch-pref-0001", "/home/dev/atlas", "2026-03-04T09:00:00.000Z");
    const filler = "# the build matrix and its caches, one entry per platform\n".repeat(6);
    for (let i = 0; i < 30; i++) {
      b.user(`Look at log ${i}.`);
      const out =
        i % 3 === 0
          ? `${filler}the canary rollout stalled at ${i}%\n${filler}`
          : `canary ${i}\n${filler}stalled ${i}\n${filler}`;
      b.tool("Bash", { command: `tail log${i}` }, out);
      b.say(`Read log ${i}.`);
    }
    writeFileSync(join(dir.path, "pref.jsonl"), b.text());
    expect(runCli(["replay", join(dir.path, "pref.jsonl"), "--db", db]).exitCode).toBe(0);
    const keys = (limit: number) =>
      searchJson(db, ["canary", "stalled", "--limit", String(limit)]).results.map((r) => r.turn_key);
    const all = keys(60);
    expect(all).toHaveLength(30);
    for (const limit of [1, 3, 5, 10, 20, 25]) expect(keys(limit)).toEqual(all.slice(0, limit));
  });
});

describe("search: a short word inside longer ones is not called held by no row", () => {
  test("`sing` in sixty newer rows' `using`: not named, and no other project is claimed", () => {
    using dir = tempDir();
    const db = join(dir.path, "tl.db");
    const b = new TranscriptBuilder("srch-sing-0001", "/home/dev/sing", "2026-03-05T09:00:00.000Z");
    b.user("Let us sing the song.").say("Sung.");
    for (let i = 0; i < 60; i++) b.user(`Keep using the parser, number ${i}.`).say(`Using it, ${i}.`);
    writeFileSync(join(dir.path, "sing.jsonl"), b.text());
    expect(runCli(["replay", join(dir.path, "sing.jsonl"), "--db", db]).exitCode).toBe(0);
    for (const words of [["sing", "parser"], ["sing"]]) {
      const out = runCli(["search", ...words, "--db", db, "--project", "/home/dev/sing"]);
      expect(out.exitCode).toBe(0);
      expect(out.stdout).not.toContain("No row holds");
      expect(out.stdout).not.toContain("other projects hold");
    }
  });
});

describe("search: the output's bound", () => {
  test(`never more than ${PULL_MAX_BYTES} bytes, and says where it stopped`, () => {
    using dir = tempDir();
    const db = join(dir.path, "tl.db");
    const b = new TranscriptBuilder("srch-size-0001", "/home/dev/atlas", "2026-03-03T10:00:00.000Z");
    const filler = "Überprüfung der Größenänderung läuft weiter. ".repeat(12);
    for (let i = 0; i < 40; i++) {
      b.user(`needle ${i}: ${filler} haystack ${filler} straw`);
      b.tool("Bash", { command: `grep -rn hay${i}` }, `${filler}hay bale ${i}\n${filler}`);
      b.say(`Done ${i}.`);
    }
    writeFileSync(join(dir.path, "size.jsonl"), b.text());
    expect(runCli(["replay", join(dir.path, "size.jsonl"), "--db", db]).exitCode).toBe(0);
    const out = runCli([
      "search",
      "needle",
      "haystack",
      "straw",
      "bale",
      "--limit",
      "40",
      "--db",
      db,
      "--all",
    ]);
    expect(out.exitCode).toBe(0);
    expect(utf8Length(out.stdout)).toBeLessThanOrEqual(PULL_MAX_BYTES);
    const shown = [...out.stdout.matchAll(/^\d+\. \[.*· turn (\d+)\s*$/gm)].length;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(40);
    expect(out.stdout).toContain(
      `*(showing ${shown} of 40 results: the output stops at ${PULL_MAX_BYTES} bytes;`,
    );
    // Every result shown ends with its detail command.
    expect([...out.stdout.matchAll(/^\s*→ (.+ detail .+)$/gm)].length).toBe(shown);
  });
});

describe("search: golden output", () => {
  let dir: ReturnType<typeof tempDir>;
  let db: string;
  beforeAll(() => {
    dir = tempDir();
    db = join(dir.path, "tl.db");
    writeFileSync(join(dir.path, "rank.jsonl"), rankingSession());
    const out = runCli(["replay", FIXTURE, join(dir.path, "rank.jsonl"), "--db", db]);
    if (out.exitCode !== 0) throw new Error(out.stderr);
  });
  afterAll(() => dir[Symbol.dispose]());

  const cli = (...args: string[]) => {
    const out = runCli(["search", ...args, "--db", db, "--all"]);
    expect(out.stderr).toBe("");
    expect(out.exitCode).toBe(0);
    return `$ throughline search ${args.join(" ")}\n${out.stdout}`;
  };

  test("several words, held by different rows of a turn", () => {
    expectGolden("search/words-across-rows.txt", cli("canary", "rollback_window", "eu-west-3"));
    expectGolden("search/token-expiry.txt", cli("token", "expiry"));
  });
  test("one word, a partial match, no match, --limit", () => {
    expectGolden("search/one-word.txt", cli("cart", "--kind", "l2"));
    expectGolden("search/partial.txt", cli("refreshAccessToken", "zyzzyva"));
    expectGolden("search/no-match.txt", cli("zyzzyva"));
    expectGolden("search/limit.txt", cli("token", "--limit", "1"));
  });
  test("a word no row holds: the words near it that the memory holds, and the query again with them", () => {
    const text = cli("refreshAcessToken", "expiry");
    expectGolden("search/typo.txt", text);
    expect(text).toContain("**No row holds:** refreshAcessToken (nearest here: refreshAccessToken ×");
    // the printed command, run as printed, finds what the typo missed
    const retry = text.match(/^ {3}→ also try: (.+)$/m)![1]!;
    expect(retry).toBe(`${CLI_INVOCATION} search refreshAccessToken expiry --all`);
    const again = cli("refreshAccessToken", "expiry");
    expect(again).not.toContain("No row holds");
    expect(again).toContain("refreshAccessToken");
    // nothing near: the word is named, no command is offered
    const none = cli("zyzzyva");
    expect(none).toContain("**No row holds:** zyzzyva\n");
    expect(none).not.toContain("also try");
  });
  test("every word no row holds is named, the mistyped one among them, and a word like a flag comes after --", () => {
    // four words held nowhere before the typo: each named, and the typo gets its near word
    const many = cli("zyzzyva", "qqqqa", "qqqqb", "qqqqc", "refreshAcessToken");
    expect(many).toContain(
      "**No row holds:** zyzzyva; qqqqa; qqqqb; qqqqc; refreshAcessToken (nearest here:",
    );
    expect(many).toContain(
      `also try: ${CLI_INVOCATION} search zyzzyva qqqqa qqqqb qqqqc refreshAccessToken --all`,
    );
    // a word that starts with a dash: the printed commands put it after `--`, and run as printed
    const out = runCli(["search", "--db", db, "--all", "--limit", "1", "--", "--force", "refreshAcessToken"]);
    expect(out.exitCode).toBe(0);
    const retry = out.stdout.match(/^ {3}→ also try: (.+)$/m)![1]!;
    expect(retry).toBe(`${CLI_INVOCATION} search --all -- --force refreshAccessToken`);
    expect(out.stdout).toContain(`${CLI_INVOCATION} search --all --limit 2 -- --force refreshAcessToken`);
    const again = runCli([
      "search",
      "--db",
      db,
      "--all",
      "--limit",
      "1",
      "--",
      "--force",
      "refreshAccessToken",
    ]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("**No row holds:** --force\n");
  });
  test("nothing in this scope, a match in another project: the command that searches every project", () => {
    // canary and rollback_window are only in /home/dev/atlas's session, not in the shop's
    const run = (...args: string[]) => runCli(["search", ...args, "--db", db]);
    const out = run("canary", "--session", "act-search-0001");
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain("No match in session act-search-0001.");
    expect(out.stdout).toContain(
      `Other projects hold a match:\n   → ${CLI_INVOCATION} search canary --all\n`,
    );
    expect(out.stdout).not.toContain("or --all to search every project");
    const json = JSON.parse(run("canary", "--session", "act-search-0001", "--json").stdout);
    expect(json.wider_command).toBe(`${CLI_INVOCATION} search canary --all`);
    // the printed command, run as printed, finds it
    expect(run("canary", "--all").stdout).toMatch(/^1\. \[.*· session srch-rank-0001 · turn \d+$/m);
    // a word this scope does not hold among others it does: the same command, under the word
    const partial = run("rollback_window", "--session", "act-search-0001").stdout;
    expect(partial).toContain(
      `**No row holds:** rollback_window\n   → other projects hold them: ${CLI_INVOCATION} search rollback_window --all\n`,
    );
    // a mistyped name whose parts other projects hold, but not the name: no such line
    const parts = run("rollbak_window", "--session", "act-search-0001").stdout;
    expect(parts).toContain("**No row holds:** rollbak_window");
    expect(parts).not.toContain("other projects hold");
    // held nowhere: no such line, and the hint stays
    const none = run("zyzzyva", "--session", "act-search-0001");
    expect(none.stdout).not.toContain("other projects hold");
    expect(none.stdout).not.toContain("Other projects hold");
    expect(none.stdout).toContain("or --all to search every project");
  });
  test("--json: the words no row holds, their nearest, and the also-try command", () => {
    const out = runCli(["search", "refreshAcessToken", "--db", db, "--all", "--json"]);
    const j = JSON.parse(out.stdout);
    expect(j.unheld).toEqual([
      { term: "refreshAcessToken", nearest: [expect.objectContaining({ word: "refreshAccessToken" })] },
    ]);
    expect(j.also_try_command).toBe(`${CLI_INVOCATION} search refreshAccessToken --all`);
  });
  test("--json (throughline.search.v1)", () => {
    const out = runCli(["search", "canary", "rollback_window", "eu-west-3", "--db", db, "--all", "--json"]);
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout).schema).toBe("throughline.search.v1");
    expectGolden("search/words-across-rows.json", out.stdout);
  });
});

describe("case folding and windows", () => {
  test("foldCase keeps every offset and folds as SQLite's lower() does for ASCII", () => {
    expect(foldCase("ÄÖÜ Straße ПАРСЕР ΟΔΟΣ İx")).toBe("äöü straße парсер οδοσ İx");
    expect(foldCase("İx").length).toBe(2);
    expect(foldCase("MiXeD")).toBe("mixed");
  });
  test("caseFolds: the SQL replacements non-ASCII terms need, none for ASCII", () => {
    expect(caseFolds(["refreshAccessToken", "0."])).toEqual([]);
    expect(caseFolds(["Ärger", "ä"])).toEqual([["Ä", "ä"]]);
    expect(caseFolds(["Парсер"])).toEqual([
      ["П", "п"],
      ["А", "а"],
      ["Р", "р"],
      ["С", "с"],
      ["Е", "е"],
    ]);
  });
  test("windowsOf: one line per term, touching windows merged, terms not found left out", () => {
    const text = `${"x ".repeat(100)}alpha beta ${"y ".repeat(200)}gamma${" z".repeat(100)}`;
    const w = windowsOf(text, ["alpha", "beta", "gamma", "delta"], 10);
    expect(w).toEqual(["… x x x x x alpha beta y y y y y …", "… y y y y y gamma z z z z z …"]);
  });
});
