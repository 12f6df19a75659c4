/**
 * `recall [words…]` (docs/activity.md) on a fixture with known events: every query mode and their
 * combinations, the 20-row cap, time phrases relative to --now across a UTC midnight, the
 * empty-index and no-match messages, and no duplicates between the hook and a replay.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, runCli, tempDb, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { resolveActivityScope } from "../../src/commands/_recall-activity.ts";
import type { EventDraft, EventType } from "../../src/core/events.ts";
import type { JsonObject } from "../../src/core/jsonl.ts";
import { openForWrite } from "../../src/db/open.ts";
import { COUNT_CAP, insertEvents, RANK_CANDIDATES } from "../../src/db/queries/events.ts";
import { upsertSession } from "../../src/db/queries/sessions.ts";
import { runHook } from "../../src/hooks/run.ts";
import { activityView } from "../../src/read/activity.ts";
import { renderActivity } from "../../src/render/activity.ts";

interface Fixture {
  project: string;
  now: string;
  sessions: { id: string; created: string; updated: string }[];
  events: {
    session: string;
    ts: string;
    type: EventType;
    summary: string;
    detail: JsonObject;
    turn: number | null;
  }[];
}

const fixture = JSON.parse(readFileSync(join(FIXTURES, "activity", "events.json"), "utf8")) as Fixture;
const NOW = Date.parse(fixture.now); // 2026-03-02T00:10:00Z, ten minutes after a UTC midnight

/** Load the fixture's sessions and events into a database. */
function load(db: Database): void {
  for (const s of fixture.sessions)
    upsertSession(db, {
      id: s.id,
      project: fixture.project,
      transcriptPath: null,
      createdAt: Date.parse(s.created),
      updatedAt: Date.parse(s.updated),
    });
  fixture.events.forEach((e, i) => {
    const draft: EventDraft = {
      type: e.type,
      ts: Date.parse(e.ts),
      summary: e.summary,
      detail: e.detail,
      toolName: null,
      toolUseId: null,
      key: `fixture:${i}`,
    };
    insertEvents(
      db,
      { sessionId: e.session, originSessionId: e.session, project: fixture.project, turnNumber: e.turn },
      [draft],
    );
  });
}

const byTs = (session: string | null, pred: (e: Fixture["events"][number]) => boolean) =>
  fixture.events
    .filter((e) => (session === null || e.session === session) && pred(e))
    .sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts))
    .map((e) => e.summary);

describe("recall words on the fixture", () => {
  let env: ReturnType<typeof tempDb>;
  beforeAll(() => {
    env = tempDb();
    load(env.db);
  });
  afterAll(() => env[Symbol.dispose]());

  const view = (words: string, opts: { all?: boolean; now?: number } = {}) => {
    const { scope, label, project } = resolveActivityScope(
      env.db,
      opts.all ? { allSessions: true } : {},
      `${fixture.project}/src/auth`, // run from a subdirectory of the project
    );
    return activityView(env.db, words.split(" ").filter(Boolean), {
      now: opts.now ?? NOW,
      scope,
      label,
      project,
    });
  };
  const summaries = (words: string, opts: { all?: boolean; now?: number } = {}) =>
    view(words, opts).events.map((e) => e.summary);

  test("default scope: the most recently active chain of the project", () => {
    const v = view("errors");
    expect(v.scopeLabel).toBe("session act-live (latest in /home/dev/shop)");
    expect(v.events.every((e) => e.session === "act-live")).toBe(true);
  });

  test("a type word filters, newest first", () => {
    expect(summaries("errors")).toEqual(byTs("act-live", (e) => e.type === "error"));
    expect(summaries("decisions")).toEqual(byTs("act-live", (e) => e.type === "decision"));
    expect(summaries("commits")).toEqual(byTs("act-live", (e) => e.type === "git_commit"));
    expect(summaries("tests")).toEqual(byTs("act-live", (e) => e.type === "test_run"));
    expect(summaries("phases")).toEqual(byTs("act-live", (e) => e.type === "phase_change"));
    expect(summaries("skills")).toEqual(byTs("act-live", (e) => e.type.startsWith("skill_")));
    expect(summaries("branches")).toEqual(byTs("act-live", (e) => e.type === "git_checkout"));
  });

  test("edits: 20-row cap and the total line", () => {
    const v = view("edits");
    const all = byTs("act-live", (e) => e.type === "file_edit" || e.type === "file_create");
    expect(all.length).toBe(25);
    expect(v.total).toBe(25);
    expect(v.events.map((e) => e.summary)).toEqual(all.slice(0, 20));
    const text = renderActivity(v);
    expect(text).toStartWith("## Recall: edits\n**Showing:** 20 events from session act-live");
    expect(text).toContain(
      "| Time | Type | Summary |\n|------|------|---------|\n| 2026-03-02 00:01:00 | file_edit |",
    );
    expect(text.trimEnd()).toEndWith("*(showing 20 of 25 matching events)*");
    expect(text.split("\n").filter((l) => l.startsWith("| 2026")).length).toBe(20);
    // `files` is the same filter
    expect(view("files").total).toBe(25);
  });

  test("under the cap there is no total line", () => {
    expect(renderActivity(view("commits"))).not.toContain("*(showing");
  });

  test("last 30 minutes is relative to --now", () => {
    const from = NOW - 30 * 60_000;
    expect(summaries("last 30 minutes")).toEqual(
      byTs("act-live", (e) => Date.parse(e.ts) >= from && Date.parse(e.ts) <= NOW),
    );
    const later = NOW + 60 * 60_000;
    expect(summaries("last 30 minutes", { now: later })).toEqual([]);
    expect(view("last 30 minutes").query.range).toMatchObject({
      from,
      to: NOW,
      label: "the last 30 minutes",
    });
  });

  test("last hour, last 2 hours", () => {
    expect(view("last hour").query.range).toMatchObject({ from: NOW - 3_600_000, label: "the last hour" });
    expect(view("last 2 hours").total).toBe(
      byTs("act-live", (e) => Date.parse(e.ts) >= NOW - 7_200_000).length,
    );
  });

  test("today and yesterday across a UTC midnight", () => {
    const midnight = Date.parse("2026-03-02T00:00:00Z");
    expect(summaries("today")).toEqual(byTs("act-live", (e) => Date.parse(e.ts) >= midnight));
    expect(view("yesterday").total).toBe(
      byTs("act-live", (e) => Date.parse(e.ts) < midnight && Date.parse(e.ts) >= midnight - 86_400_000)
        .length,
    );
    // Ten minutes before midnight, "today" is the other day.
    expect(summaries("today", { now: midnight - 10 * 60_000 })).not.toContain("Started: Fix cart");
    const text = renderActivity(view("today"));
    expect(text).toContain("**Showing:** 5 events from today (2026-03-02) in session act-live");
  });

  test("since 14:00 is today's clock time, or yesterday's when still ahead", () => {
    // --now is 00:10: 23:55 today has not happened yet, so it is yesterday's 23:55.
    expect(summaries("since 23:55")).toEqual(
      byTs("act-live", (e) => Date.parse(e.ts) >= Date.parse("2026-03-01T23:55:00Z")),
    );
    expect(summaries("since 00:04")).toEqual(
      byTs("act-live", (e) => Date.parse(e.ts) >= Date.parse("2026-03-02T00:04:00Z")),
    );
  });

  /** Distinct turns of the fixture's matching events; an event not yet in a turn counts alone. */
  const turnsOf = (session: string, pred: (e: Fixture["events"][number]) => boolean) => {
    const es = fixture.events.filter((e) => e.session === session && pred(e));
    return new Set(es.map((e, i) => (e.turn === null ? `event ${i}` : `${e.session}:${e.turn}`))).size;
  };
  const turnKeys = (v: ReturnType<typeof view>) =>
    v.events.filter((e) => e.turnNumber !== null).map((e) => `${e.origin}:${e.turnNumber}`);

  test("keywords: case-insensitive, stop words ignored, one row per turn, newest first", () => {
    const v = view("what did we do about AUTH");
    expect(v.query.keywords).toEqual(["auth"]);
    expect(v.query.mode).toBe("keyword");
    const hasAuth = (e: { summary: string; detail: unknown }) =>
      `${e.summary} ${JSON.stringify(e.detail)}`.toLowerCase().includes("auth");
    const auth = byTs("act-live", hasAuth);
    expect(v.total).toBe(auth.length);
    // Grouped by turn: each matching event is a row or listed with its turn's row.
    expect(v.groupedByTurn).toBe(true);
    const turns = turnsOf("act-live", hasAuth);
    expect(turns).toBeLessThan(auth.length); // the fixture has turns with several auth events
    expect(v.events.length).toBe(Math.min(20, turns));
    expect(new Set(turnKeys(v)).size).toBe(turnKeys(v).length);
    if (turns <= 20) expect(v.events.reduce((n, e) => n + 1 + (e.also?.length ?? 0), 0)).toBe(auth.length);
    for (const e of v.events) expect(hasAuth(e)).toBe(true);
    const times = v.events.map((e) => e.ts);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(renderActivity(v)).toContain("*(also in this turn: ");
  });

  test("keyword ranking picks the best turns when more than 20 events match", () => {
    // "src" is in every edit; the rows shown are the best ranked turns, then ordered newest first.
    const v = view("src");
    expect(v.total).toBeGreaterThan(20);
    const hasSrc = (e: { summary: string; detail: unknown }) =>
      `${e.summary} ${JSON.stringify(e.detail)}`.toLowerCase().includes("src");
    expect(v.events.length).toBe(Math.min(20, turnsOf("act-live", hasSrc)));
    expect(new Set(turnKeys(v)).size).toBe(turnKeys(v).length);
  });

  test("a type word asks for the events themselves: one row per event", () => {
    const v = view("edits auth");
    expect(v.groupedByTurn).toBeUndefined();
    expect(v.events.every((e) => e.also === undefined)).toBe(true);
  });

  test("combinations: errors today, edits auth, commits yesterday", () => {
    expect(summaries("errors today")).toEqual([
      "Bash failed (exit 1): ls db — no such file",
      "Edit failed: src/cart/cart.ts — String to replace not found in file",
    ]);
    expect(view("errors today").query.mode).toBe("type+time");
    const editsAuth = byTs(
      "act-live",
      (e) => (e.type === "file_edit" || e.type === "file_create") && e.summary.includes("auth"),
    );
    expect(summaries("edits auth").sort()).toEqual(editsAuth.sort());
    expect(summaries("commits yesterday")).toEqual([
      "Committed 2222222 on feat/auth: feat: rotate auth tokens",
    ]);
    expect(view("errors token last 2 hours").query.mode).toBe("type+time+keyword");
    expect(summaries("errors token last 2 hours")).toEqual([
      "Bash failed (exit 1): bun test — auth token expired in refresh()",
    ]);
  });

  test("a word shorter than 3 characters still matches, as a substring", () => {
    expect(summaries("errors db")).toEqual(["Bash failed (exit 1): ls db — no such file"]);
  });

  test("several keywords: all must match, else any of them", () => {
    expect(summaries("cart sqlite")).toEqual(["Decision: keep the cart in SQLite, not Redis"]);
    const v = view("redis zzzyzzy");
    expect(v.anyKeyword).toBe(true);
    expect(v.events.map((e) => e.summary)).toEqual(["Decision: keep the cart in SQLite, not Redis"]);
    expect(renderActivity(v)).toContain('matching "redis" or "zzzyzzy" (no event held every word)');
  });

  test("--all-sessions widens to every session of the project", () => {
    expect(summaries("zebra")).toEqual([]);
    expect(summaries("zebra", { all: true })).toEqual([
      "Bash failed (exit 1): make deploy — zebra crossing not found",
    ]);
    expect(view("commits", { all: true }).total).toBe(2);
  });

  test("no match says so and suggests a broader query", () => {
    const text = renderActivity(view("errors zebra yesterday"));
    expect(text).toBe(
      [
        "## Recall: errors zebra yesterday",
        'No events match: yesterday (2026-03-01) in session act-live (latest in /home/dev/shop), type error, matching "zebra".',
        "",
        "Try a broader query: drop or change a keyword; widen the time range (`today`, `yesterday`, or no time phrase); remove the type word to see every kind of event; add `--all-sessions` to search every session of the project; run `throughline recall` with no words for the summary.",
      ].join("\n"),
    );
  });

  test("no words: the narrative summary, newest facts first", () => {
    const v = view("");
    expect(v.query.mode).toBe("summary");
    const text = renderActivity(v);
    expect(text).toStartWith("## Recall: activity summary\n**Showing:** 20 events from session act-live");
    expect(text).toContain("**Last phase:** 00:03:00 Started: Fix cart");
    // errors after the last commit (23:55) are open; the 23:50 one is not
    expect(text).toContain("**Open errors:** 2 since the last passing test or commit (2026-03-01 23:55:00)");
    expect(text).toContain("**Commits:** 1, newest first\n- 23:55:00 Committed 2222222");
    expect(text).toContain("**Test runs:** 1, newest first\n- 23:40:00 Tests failed: bun test");
    expect(text).toContain("**Decisions:** 2, newest first\n- 00:06:00 Decision: keep the cart in SQLite");
    expect(text).toMatch(/\*\*Files most touched:\*\* `src\/cart\/cart\.ts` \(7 changes\)/);
    expect(text.trimEnd()).toEndWith(`*(showing 20 of ${v.total} matching events)*`);
    expect(v.total).toBe(fixture.events.filter((e) => e.session === "act-live").length);
  });

  test("totals are exact up to COUNT_CAP, then a lower bound: the count stops walking there", () => {
    for (const n of [COUNT_CAP, COUNT_CAP + 7]) {
      using other = tempDb();
      upsertSession(other.db, {
        id: "many",
        project: "/home/dev/many",
        transcriptPath: null,
        createdAt: NOW,
        updatedAt: NOW,
      });
      const drafts: EventDraft[] = Array.from({ length: n }, (_, i) => ({
        type: "error",
        ts: NOW - (n - i) * 1000,
        summary: `Bash failed (exit 1): make — zanzibarfault number ${i}`,
        detail: {},
        toolName: null,
        toolUseId: null,
        key: `many:${i}`,
      }));
      // One event a turn: each is a result of its own.
      for (const [i, d] of drafts.entries())
        insertEvents(
          other.db,
          { sessionId: "many", originSessionId: "many", project: "/home/dev/many", turnNumber: i + 1 },
          [d],
        );
      const scope = { kind: "project" as const, project: "/home/dev/many" };
      const v = activityView(other.db, ["zanzibarfault"], {
        now: NOW,
        scope,
        label: "project /home/dev/many",
      });
      const capped = n > COUNT_CAP;
      // A type word alone counts with its own statement; a keyword's total comes from the newest
      // matches its ranking reads, which hold more than COUNT_CAP + 1 rows when they can.
      expect(COUNT_CAP + 1).toBeLessThanOrEqual(RANK_CANDIDATES);
      const typed = activityView(other.db, ["errors"], { now: NOW, scope, label: "project /home/dev/many" });
      expect({ n, total: typed.total, capped: typed.totalCapped }).toEqual({
        n,
        total: capped ? COUNT_CAP + 1 : n,
        capped,
      });
      expect({ n, total: v.total, capped: v.totalCapped }).toEqual({
        n,
        total: capped ? COUNT_CAP + 1 : n,
        capped,
      });
      expect(renderActivity(v).trimEnd()).toEndWith(
        `*(showing 20 of ${capped ? `more than ${COUNT_CAP}` : n} matching events)*`,
      );
    }
  });

  test("an empty index says how to enable it", () => {
    using other = tempDb();
    upsertSession(other.db, {
      id: "quiet",
      project: "/home/dev/quiet",
      transcriptPath: null,
      createdAt: NOW,
      updatedAt: NOW,
    });
    const { scope, label } = resolveActivityScope(other.db, {}, "/home/dev/quiet");
    const text = renderActivity(activityView(other.db, ["errors"], { now: NOW, scope, label }));
    expect(text).toStartWith("## Recall: errors\nThe activity index is empty for session quiet");
    expect(text).toContain("`throughline install`");
  });
});

describe("recall through the CLI", () => {
  let env: ReturnType<typeof tempDb>;
  beforeAll(() => {
    env = tempDb();
    load(env.db);
  });
  afterAll(() => env[Symbol.dispose]());

  test("--json prints throughline.activity.v1", () => {
    const out = runCli([
      "recall",
      "errors",
      "today",
      "--session",
      "act-live",
      "--now",
      fixture.now,
      "--db",
      env.path,
      "--json",
    ]);
    expect(out.stderr).toBe("");
    expect(out.exitCode).toBe(0);
    const j = JSON.parse(out.stdout);
    expect(j).toMatchObject({
      schema: "throughline.activity.v1",
      query: "errors today",
      mode: "type+time",
      total: 2,
      shown: 2,
    });
    expect(j.events[0]).toEqual({
      ts: "2026-03-02T00:07:00.000Z",
      seq: expect.any(Number),
      type: "error",
      summary: "Bash failed (exit 1): ls db — no such file",
      detail: { tool: "Bash", command: "ls db", exit_code: 1 },
      session: "act-live",
      project: "/home/dev/shop",
      turn_key: "act-live:7",
    });
  });

  test("Markdown from the project directory, with --now", () => {
    const out = runCli(["recall", "last", "30", "minutes", "--now", fixture.now, "--db", env.path], {
      cwd: join(FIXTURES, "activity"),
    });
    // The fixture directory is no project of this database: the scope says so.
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain("The activity index is empty for project");
    const here = runCli([
      "recall",
      "last",
      "30",
      "minutes",
      "--project",
      fixture.project,
      "--now",
      fixture.now,
      "--db",
      env.path,
    ]);
    expect(here.stdout).toStartWith(
      "## Recall: last 30 minutes\n**Showing:** 8 events from the last 30 minutes",
    );
    // A relative --project is resolved against the working directory, `.` and `..` folded.
    const relative = runCli(
      ["recall", "last", "30", "minutes", "--project", `.${fixture.project}/src/..`, "--now", fixture.now],
      { cwd: "/", env: { THROUGHLINE_DB: env.path } },
    );
    expect(relative.stdout).toBe(here.stdout);
  });

  test("a bad --now is one clear line, exit 1", () => {
    const out = runCli([
      "recall",
      "today",
      "--now",
      "yesterday-ish",
      "--db",
      env.path,
      "--session",
      "act-live",
    ]);
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain("--now must be a date or time");
  });

  test("a missing database is an error and is not created", () => {
    using dir = tempDir();
    const path = join(dir.path, "none.db");
    const out = runCli(["recall", "errors", "--db", path]);
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain("no throughline database at");
    expect(Bun.file(path).size).toBe(0);
  });

  test("note --decision records a decision that recall shows", () => {
    using dir = tempDir();
    const path = join(dir.path, "tl.db");
    const boot = runCli(["replay", join(FIXTURES, "activity", "search-session.jsonl"), "--db", path]);
    expect(boot.exitCode).toBe(0);
    const out = runCli([
      "note",
      "--decision",
      "Use trigram FTS for search",
      "--session",
      "act-search-0001",
      "--db",
      path,
    ]);
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain(
      "Recorded decision in session act-search-0001: Decision: Use trigram FTS for search",
    );
    const rec = runCli(["recall", "decisions", "--session", "act-search-0001", "--db", path, "--json"]);
    expect(JSON.parse(rec.stdout).events.map((e: { summary: string }) => e.summary)).toEqual([
      "Decision: Use trigram FTS for search",
    ]);
    const none = runCli(["note", "--decision", "x", "--db", path], { cwd: dir.path });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("--session");
  });
});

test("45.5 note --session with an unknown id is a one-line error and records nothing", () => {
  using dir = tempDir();
  const path = join(dir.path, "tl.db");
  expect(runCli(["replay", join(FIXTURES, "activity", "search-session.jsonl"), "--db", path]).exitCode).toBe(
    0,
  );
  const events = () =>
    JSON.parse(runCli(["recall", "decisions", "--all", "--db", path, "--json"]).stdout).events.length;
  const before = events();
  const out = runCli(["note", "--decision", "Ship it", "--session", "no-such-session", "--db", path]);
  expect(out.exitCode).toBe(1);
  expect(out.stdout).toBe("");
  expect(out.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(out.stderr).toContain("no session no-such-session");
  expect(events()).toBe(before);
});

describe("hook first, replay later", () => {
  /** A transcript whose tool calls the PostToolUse hook also saw. */
  function session(): TranscriptBuilder {
    const b = new TranscriptBuilder("dup-0001", "/home/dev/shop", "2026-03-01T09:00:00.000Z");
    b.user("Fix the login and commit");
    b.tool(
      "Edit",
      { file_path: "/home/dev/shop/src/login.ts", old_string: "a", new_string: "b" },
      "The file /home/dev/shop/src/login.ts has been updated.",
      {
        id: "toolu_dup_1",
        result: { filePath: "/home/dev/shop/src/login.ts", structuredPatch: [{ lines: ["-a", "+b"] }] },
      },
    );
    b.tool("Bash", { command: "bun test" }, " 3 pass\n 0 fail", { id: "toolu_dup_2" });
    b.tool("Bash", { command: 'git commit -am "fix: login"' }, "[main 9f8e7d6] fix: login\n 1 file changed", {
      id: "toolu_dup_3",
    });
    b.say("Done.");
    return b;
  }

  const hookPayloads = [
    {
      tool_name: "Edit",
      tool_input: { file_path: "/home/dev/shop/src/login.ts", old_string: "a", new_string: "b" },
      tool_response: { filePath: "/home/dev/shop/src/login.ts", structuredPatch: [{ lines: ["-a", "+b"] }] },
      tool_use_id: "toolu_dup_1",
    },
    {
      tool_name: "Bash",
      tool_input: { command: "bun test" },
      tool_response: { stdout: " 3 pass\n 0 fail", stderr: "", interrupted: false },
      tool_use_id: "toolu_dup_2",
    },
    {
      tool_name: "Bash",
      tool_input: { command: 'git commit -am "fix: login"' },
      tool_response: { stdout: "[main 9f8e7d6] fix: login\n 1 file changed", stderr: "", interrupted: false },
      tool_use_id: "toolu_dup_3",
    },
  ];

  const rows = (db: Database) =>
    db
      .query("SELECT tool_use_id, type, summary, turn_number, ts FROM events ORDER BY tool_use_id, type")
      .all() as {
      tool_use_id: string;
      type: string;
      summary: string;
      turn_number: number | null;
      ts: number;
    }[];

  test("replay after the PostToolUse hooks adds no duplicate and fills in the turn", async () => {
    using dir = tempDir();
    const dbPath = join(dir.path, "tl.db");
    const path = join(dir.path, "dup-0001.jsonl");
    await Bun.write(path, session().text());
    const hookEnv = { THROUGHLINE_DB: dbPath };
    for (const p of hookPayloads) {
      const out = await runHook(
        "post-tool-use",
        JSON.stringify({
          session_id: "dup-0001",
          transcript_path: path,
          cwd: "/home/dev/shop",
          hook_event_name: "PostToolUse",
          ...p,
        }),
        hookEnv,
      );
      expect(out.exitCode).toBe(0);
    }
    const peek = new Database(dbPath, { readonly: true });
    const before = rows(peek);
    peek.close();
    expect(before.map((r) => r.type)).toEqual(["file_edit", "test_run", "git_commit"]);
    expect(before.every((r) => r.turn_number === null)).toBe(true);

    // the replay, into the hook's database and into a fresh one
    using a = tempDb();
    const db = openForWrite(dbPath);
    ingestTranscript(db, { path, now: Date.now() });
    ingestTranscript(db, { path, now: Date.now() }); // and again: still idempotent
    ingestTranscript(a.db, { path, now: Date.now() });
    const merged = rows(db);
    db.close();
    expect(merged).toEqual(rows(a.db));
    expect(merged.length).toBe(3);
    expect(merged.every((r) => r.turn_number === 1)).toBe(true);
  });
});
