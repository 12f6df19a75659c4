/**
 * The session-index convention (docs/monitor.md): files written by `export session-index` and
 * by the opt-in hooks parse under the `/recall` skill's schema, hold what `recall --json`
 * counts, sit under the sha256sum path, and the skill's own procedure over them (newest
 * events.jsonl, filter by type/keyword/time, 20 rows) gives the rows `throughline recall` gives.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";
import { CORPUS, runCli, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { parseActivityQuery } from "../../src/core/activity-query.ts";
import { EVENT_TYPES } from "../../src/core/events.ts";
import { projectHash, sessionIndexDir } from "../../src/core/session-index.ts";
import { openForWrite } from "../../src/db/open.ts";
import { latestChain } from "../../src/db/queries/events.ts";
import { resolveLive } from "../../src/db/queries/sessions.ts";
import { runHook } from "../../src/hooks/run.ts";
import { activityView } from "../../src/read/activity.ts";
import { activityJson } from "../../src/render/activity.ts";

const TRANSCRIPTS = join(CORPUS, "transcripts");
const present = existsSync(TRANSCRIPTS);

interface Line {
  ts: string;
  seq: number;
  type: string;
  summary: string;
  detail: Record<string, unknown>;
}

function readLines(path: string): Line[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/** The schema of the skill: exactly these keys, these types, one-line summaries of ≤ 120 chars. */
function checkSchema(lines: Line[]): void {
  let prev = 0;
  for (const l of lines) {
    expect(Object.keys(l)).toEqual(["ts", "seq", "type", "summary", "detail"]);
    expect(new Date(l.ts).toISOString()).toBe(l.ts);
    expect(Number.isInteger(l.seq) && l.seq > prev).toBe(true);
    prev = l.seq;
    expect(EVENT_TYPES as readonly string[]).toContain(l.type);
    expect(l.summary.length).toBeLessThanOrEqual(120);
    expect(l.summary).not.toMatch(/[\n\r]/);
    expect(typeof l.detail === "object" && l.detail !== null && !Array.isArray(l.detail)).toBe(true);
  }
}

/**
 * The original skill's procedure, as its instructions describe it: take the newest
 * events.jsonl of the project, keep lines of the asked types, containing every keyword
 * (case-insensitive) and not older than the time bound, newest first, at most 20.
 */
function skillProcedure(
  projectDir: string,
  q: { types?: string[]; keywords?: string[]; since?: number },
): { file: string; rows: Line[] } {
  const files = [...new Glob("*/events.jsonl").scanSync({ cwd: projectDir, absolute: true })];
  const file = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
  const rows = readLines(file)
    .filter((l) => !q.types || q.types.includes(l.type))
    .filter((l) => {
      const text = `${l.summary} ${JSON.stringify(l.detail)}`.toLowerCase();
      return (q.keywords ?? []).every((k) => text.includes(k.toLowerCase()));
    })
    .filter((l) => q.since === undefined || Date.parse(l.ts) >= q.since)
    .sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts) || b.seq - a.seq)
    .slice(0, 20);
  return { file, rows };
}

const row = (e: { ts: unknown; seq: unknown; type: unknown; summary: unknown }) => [
  e.ts,
  e.seq,
  e.type,
  e.summary,
];

describe.skipIf(!present)("session-index files for the corpus", () => {
  const dir = tempDir("tl-index-");
  const dbPath = join(dir.path, "throughline.db");
  const config = join(dir.path, "claude");
  const env = { THROUGHLINE_DB: dbPath, CLAUDE_CONFIG_DIR: config, HOME: dir.path, NO_COLOR: "1" };
  let db: Database;
  let exported: { session_id: string; project: string; dir: string; events: number }[] = [];

  beforeAll(() => {
    db = openForWrite(dbPath);
    const files = readdirSync(TRANSCRIPTS)
      .filter((f) => f.endsWith(".jsonl") && !f.includes(".sub-agent-"))
      .map((f) => join(TRANSCRIPTS, f));
    replay(db, files, {});
    const r = runCli(["export", "session-index", "--all", "--json"], { env });
    expect(r.exitCode).toBe(0);
    exported = JSON.parse(r.stdout).sessions;
  }, 120_000);
  afterAll(() => {
    db.close();
    dir[Symbol.dispose]();
  });

  test("every file parses under the schema and holds the events recall counts", () => {
    expect(exported.length).toBeGreaterThan(10);
    const perChain = new Map<string, number>();
    for (const s of exported) {
      const lines = readLines(join(s.dir, "events.jsonl"));
      checkSchema(lines);
      expect(lines.length).toBe(s.events);
      const live = resolveLive(db, s.session_id).id;
      perChain.set(live, (perChain.get(live) ?? 0) + lines.length);
      expect(readFileSync(join(s.dir, "summary.md"), "utf8")).toStartWith("## Recall: activity summary\n");
    }
    for (const [live, n] of perChain) {
      const v = activityView(db, [], { now: Date.now(), scope: { kind: "chain", live }, label: live });
      expect([live, activityJson(v).total]).toEqual([live, n]);
    }
    // The same through the command line, for two sessions.
    for (const s of exported.slice(0, 2)) {
      const r = runCli(["recall", "--json", "--session", s.session_id], { env });
      expect(JSON.parse(r.stdout).total).toBe(perChain.get(resolveLive(db, s.session_id).id));
    }
  });

  test("the path hash is sha256sum of the project directory; directories 0700, files 0600", () => {
    for (const s of exported.slice(0, 5)) {
      const sh = Bun.spawnSync(["sh", "-c", 'echo -n "$1" | sha256sum | cut -c1-16', "sh", s.project]);
      const hash = sh.stdout.toString().trim();
      expect(hash).toBe(projectHash(s.project));
      expect(s.dir).toBe(join(config, "projects", hash, "memory", "session-index", s.session_id));
      expect(s.dir).toBe(sessionIndexDir(config, s.project, s.session_id));
      expect(statSync(s.dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(s.dir, "events.jsonl")).mode & 0o777).toBe(0o600);
      expect(statSync(join(s.dir, "summary.md")).mode & 0o777).toBe(0o600);
    }
  });

  test("rewriting is idempotent: same bytes, same seq", () => {
    const before = exported.map(
      (s) =>
        readFileSync(join(s.dir, "events.jsonl"), "utf8") + readFileSync(join(s.dir, "summary.md"), "utf8"),
    );
    expect(runCli(["export", "session-index", "--all", "--quiet"], { env }).exitCode).toBe(0);
    const after = exported.map(
      (s) =>
        readFileSync(join(s.dir, "events.jsonl"), "utf8") + readFileSync(join(s.dir, "summary.md"), "utf8"),
    );
    expect(after).toEqual(before);
  });

  test("the skill's procedure over the files gives the rows of throughline recall", () => {
    // The session with the most events whose chain is itself (recall shows the chain).
    const s = exported
      .filter((x) => resolveLive(db, x.session_id).id === x.session_id)
      .sort((a, b) => b.events - a.events)[0]!;
    const projectDir = join(s.dir, "..");
    // The skill takes the newest file: make it this session's, as for the session being worked in.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(s.dir, "events.jsonl"), later, later);
    const lines = readLines(join(s.dir, "events.jsonl"));
    const now = Date.parse(lines.at(-1)!.ts) + 1000;
    const recall = (words: string[]) => {
      const r = runCli(
        ["recall", ...words, "--json", "--session", s.session_id, "--now", new Date(now).toISOString()],
        {
          env,
        },
      );
      expect(r.exitCode).toBe(0);
      // A keyword query shows one row per turn and lists the turn's other matches with it.
      const shown = JSON.parse(r.stdout).events as (Line & { also_in_turn?: Line[] })[];
      return shown
        .flatMap((e) => [e, ...(e.also_in_turn ?? [])])
        .sort((a, b) => Date.parse(String(b.ts)) - Date.parse(String(a.ts)) || Number(b.seq) - Number(a.seq))
        .map(row);
    };
    const check = (words: string[], q: Parameters<typeof skillProcedure>[1]) => {
      const got = skillProcedure(projectDir, q);
      expect(got.file).toBe(join(s.dir, "events.jsonl"));
      expect([words.join(" "), got.rows.map(row)]).toEqual([words.join(" "), recall(words)]);
    };
    check(["errors"], { types: ["error"] });
    check(["edits"], { types: ["file_edit", "file_create"] });
    check(["decisions"], { types: ["decision"] });
    // A time bound in a form recall reads (`since HH:MM:SS` on the day of --now, else a date).
    const mid = new Date(Date.parse(lines[Math.floor(lines.length / 2)]!.ts)).toISOString();
    const sameDay = mid.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
    const since = Date.parse(sameDay ? `${mid.slice(0, 19)}Z` : `${mid.slice(0, 10)}T00:00:00Z`);
    check(["since", sameDay ? mid.slice(11, 19) : mid.slice(0, 10)], { since });
    // Keywords: words of the summaries that recall reads as keywords, matching 2–20 events
    // (beyond 20, recall ranks by relevance where the skill keeps the newest).
    const words = new Set(
      lines
        .flatMap((l) => l.summary.toLowerCase().match(/[a-z][a-z0-9_]{4,}/g) ?? [])
        .filter((w) => {
          const q = parseActivityQuery([w], now);
          return q.mode === "keyword" && q.keywords.length === 1 && q.keywords[0] === w;
        }),
    );
    let checked = 0;
    for (const w of words) {
      const n = skillProcedure(projectDir, { keywords: [w] }).rows.length;
      const all = lines.filter((l) =>
        `${l.summary} ${JSON.stringify(l.detail)}`.toLowerCase().includes(w),
      ).length;
      if (n < 2 || all > 20) continue;
      check([w], { keywords: [w] });
      if (++checked === 3) break;
    }
    expect(checked).toBe(3);
    // The default scope of recall is the latest chain of the project: the newest file too.
    expect(latestChain(db, s.project)).toBeDefined();
  });
});

describe("the opt-in hooks", () => {
  const edit = (id: string, n: number) =>
    JSON.stringify({
      session_id: "hook-session-1",
      transcript_path: "/nonexistent.jsonl",
      cwd: "/work/alpha",
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_use_id: id,
      tool_input: { command: `git commit -m "step ${n}" # token sk-ant-api03-${"a".repeat(90)}AA` },
      tool_response: {
        stdout: `[main abc123${n}] step ${n}\n 1 file changed`,
        stderr: "",
        interrupted: false,
      },
    });

  test("PostToolUse appends each new event once; off by default; secrets stay redacted", async () => {
    using dir = tempDir();
    const config = join(dir.path, "claude");
    const base = { THROUGHLINE_DB: join(dir.path, "tl.db"), CLAUDE_CONFIG_DIR: config, HOME: dir.path };
    expect((await runHook("post-tool-use", edit("toolu_0", 0), base)).stderr).toBe("");
    expect(existsSync(join(config, "projects"))).toBe(false);
    const on = { ...base, THROUGHLINE_SESSION_INDEX: "1" };
    for (const [i, id] of ["toolu_1", "toolu_2", "toolu_2", "toolu_3"].entries()) {
      const out = await runHook("post-tool-use", edit(id, i + 1), on);
      expect(out.stderr).toBe("");
    }
    const file = join(sessionIndexDir(config, "/work/alpha", "hook-session-1"), "events.jsonl");
    const lines = readLines(file);
    checkSchema(lines);
    // The event of the call before the opt-in comes along with the first append.
    expect(lines.map((l) => [l.seq, l.type])).toEqual([
      [1, "git_commit"],
      [2, "git_commit"],
      [3, "git_commit"],
      [4, "git_commit"],
    ]);
    expect(readFileSync(file, "utf8")).not.toContain("sk-ant-api03");
    // The export writes the same lines (and adds summary.md).
    const r = runCli(["export", "session-index", "--session", "hook-session-1"], { env: base });
    expect(r.exitCode).toBe(0);
    expect(readLines(file)).toEqual(lines);
    expect(existsSync(join(file, "..", "summary.md"))).toBe(true);
  });

  test("Stop rewrites the session's files, summary.md included (from the transcript's events)", async () => {
    using dir = tempDir();
    const config = join(dir.path, "claude");
    const env = {
      THROUGHLINE_DB: join(dir.path, "tl.db"),
      CLAUDE_CONFIG_DIR: config,
      HOME: dir.path,
      THROUGHLINE_SESSION_INDEX: "1",
      PATH: process.env.PATH ?? "",
    };
    const b = new TranscriptBuilder("stop-session-1", "/work/beta");
    b.user("run the tests");
    b.tool("Bash", { command: "bun test" }, "3 pass\n1 fail", { isError: true });
    b.say("One test fails.");
    const transcript = join(dir.path, "stop-session-1.jsonl");
    writeFileSync(transcript, b.text());
    const stop = JSON.stringify({
      session_id: "stop-session-1",
      transcript_path: transcript,
      cwd: "/work/beta",
      hook_event_name: "Stop",
    });
    const out = await runHook("stop", stop, env);
    expect(out.stderr).toBe("");
    const d = sessionIndexDir(config, "/work/beta", "stop-session-1");
    const lines = readLines(join(d, "events.jsonl"));
    checkSchema(lines);
    expect(lines.map((l) => l.type).sort()).toEqual(["error", "test_run"]);
    expect(readFileSync(join(d, "summary.md"), "utf8")).toContain("**Open errors:** 1");
  }, 20_000);
});
