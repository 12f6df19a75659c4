/**
 * The hook rows on real sessions (issue 46, item 5): the heaviest main sessions of ../shared/corpus,
 * each in a database holding the corpus's sessions of other projects, timed as bench/hooks.ts times the generated
 * ones (paired with the floor, same goals): the Stop's own work at the first and at the last turn of
 * the real transcript, the Stop as registered, the push at the first prompt after a /clear of that
 * session's chain (rendered, prepared, printed ahead), SessionStart, `context`, `search`, and
 * replay MB/s of the session alone. Without the corpus it returns no rows.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ingestTranscript } from "../src/capture/ingest.ts";
import { replay } from "../src/capture/replay.ts";
import { ingestSession } from "../src/capture/session.ts";
import { shellQuote } from "../src/core/invocation.ts";
import { openForRead, openForWrite } from "../src/db/open.ts";
import { preparePush } from "../src/hooks/prepared-push.ts";
import { parseSession, type Turn } from "./continuation/facts.ts";
import { searchWords } from "./heavy.ts";
import {
  asStopsKeepIt,
  assertMerged,
  bornAfter,
  type ChainFixture,
  copyDb,
  type HookBench,
  type HookRow,
  hookBench,
  pushMadeBy,
  removeDb,
  type StopFixture,
  timeHook,
} from "./hook-fixtures.ts";
import { handoffRow, printedAheadRow, registeredStopRow, stopRow } from "./hook-rows.ts";
import { median, ROOT, round, WORK } from "./lib.ts";

export const REAL_CORPUS = join(ROOT, "..", "shared", "corpus", "transcripts");

export type RealRow = HookRow & { goal?: string; ratio?: number };

/** One of the corpus's sessions, as the rows need it. */
interface RealSession {
  /** The file's stem: the rows' name. */
  name: string;
  file: string;
  id: string;
  project: string;
  lines: Uint8Array[];
  turns: Turn[];
  bytes: number;
}

/** The corpus's main transcripts: tool calls, size and project (sub-agent files go with their session). */
function corpusIndex(dir: string): { file: string; calls: number; size: number; project: string | null }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl") && !f.includes(".sub-agent-"))
    .map((f) => {
      const raw = readFileSync(join(dir, f));
      const calls = parseSession(raw).turns.reduce(
        (a, t) => a + t.items.filter(([k]) => k === "tool_in").length,
        0,
      );
      return { file: join(dir, f), calls, size: raw.length, project: firstCwd(raw) };
    });
}

/**
 * The `count` heaviest main transcripts of the corpus: the most tool calls (what a Stop stores and
 * a push renders most of), then the largest.
 */
export function heaviestSessions(count: number, dir = REAL_CORPUS): string[] {
  if (!existsSync(dir)) return [];
  return corpusIndex(dir)
    .sort((a, b) => b.calls - a.calls || b.size - a.size)
    .slice(0, count)
    .map((x) => x.file);
}

/** The session's project: the first `cwd` its transcript names (a session keeps it when it moves). */
function firstCwd(raw: Uint8Array): string | null {
  const m = /"cwd":"((?:[^"\\]|\\.)*)"/.exec(Buffer.from(raw.subarray(0, 1 << 20)).toString("utf8"));
  return m ? (JSON.parse(`"${m[1]}"`) as string) : null;
}

const stem = (file: string) => basename(file).replace(/\.jsonl$/, "");
/** A corpus file that belongs to one of `sessions` (its transcript or a sub-agent's). */
const belongs = (file: string, sessions: string[]) =>
  sessions.some(
    (s) => basename(file) === `${stem(s)}.jsonl` || basename(file).startsWith(`${stem(s)}.sub-agent-`),
  );

function loadSession(file: string): RealSession {
  const raw = readFileSync(file);
  const { lines, turns } = parseSession(raw);
  let id = stem(file);
  for (const l of lines.slice(0, 50)) {
    const m = /"sessionId":"([^"]+)"/.exec(Buffer.from(l).toString("utf8"));
    if (m) {
      id = m[1]!;
      break;
    }
  }
  return {
    name: stem(file),
    file,
    id,
    project: firstCwd(raw) ?? "/home/dev/real",
    lines,
    turns,
    bytes: raw.length,
  };
}

/**
 * The rest of a user's memory around `s`: every corpus session of other projects, replayed. The
 * sessions of its own project are left out, so the /clear of the rows hands over `s` and not a
 * newer session of that project.
 */
function baseTemplate(s: RealSession): string {
  const own = corpusIndex(REAL_CORPUS)
    .filter((x) => x.project === s.project)
    .map((x) => x.file);
  const base = join(WORK, "real-base.template.db");
  removeDb(base);
  const db = openForWrite(base);
  replay(db, [REAL_CORPUS], { filter: (f) => !belongs(f, [s.file, ...own]) });
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return base;
}

const joinLines = (lines: Uint8Array[]) =>
  Buffer.concat(lines.flatMap((l) => [Buffer.from(l), Buffer.from("\n")]));

/** The turn's final reply, as the client hands it to the Stop (`last_assistant_message`). */
function lastReply(t: Turn | undefined): string | undefined {
  const asst = t?.items.filter(([k]) => k === "asst") ?? [];
  return asst.at(-1)?.[1];
}

/**
 * The Stop at turn `k` (1-based): the base plus turns before k in the template, the transcript
 * through turn k on disk (cut before turn k + 1's prompt, or whole for the last turn).
 */
function realStopFixture(s: RealSession, base: string, k: number): StopFixture {
  const transcript = join(WORK, `real-${s.name}.jsonl`);
  const template = join(WORK, `real-${s.name}-stop${k}.template.db`);
  writeFileSync(transcript, joinLines(s.lines.slice(0, s.turns[k - 1]!.line)));
  copyDb(base, template);
  const db = openForWrite(template);
  ingestTranscript(db, { path: transcript, sessionId: s.id, project: s.project, now: Date.now() });
  asStopsKeepIt(db);
  db.close();
  const end = k < s.turns.length ? s.turns[k]!.line : s.lines.length;
  writeFileSync(transcript, joinLines(s.lines.slice(0, end)));
  const reply = lastReply(s.turns[k - 1]);
  const payload = JSON.stringify({
    session_id: s.id,
    transcript_path: transcript,
    cwd: s.project,
    hook_event_name: "Stop",
    stop_hook_active: false,
    ...(reply ? { last_assistant_message: reply } : {}),
  });
  return { template, transcript, payload, bytes: Bun.file(transcript).size };
}

/** A Stop row that waited for its flush (the reply not found) would be a wrong figure. */
function assertNoHookError(dbPath: string): void {
  const db = openForRead(dbPath);
  const n = db.query<{ n: number }, []>("SELECT count(*) AS n FROM hook_errors").get()!.n;
  db.close();
  if (n > 0) throw new Error(`bench: a Stop recorded ${n} hook error(s) in ${dbPath}`);
}

/** The session read to its end by its Stops, over the base; `prepared`: its last Stop prepared the push. */
function realChain(h: HookBench, s: RealSession, base: string, prepared: boolean): ChainFixture {
  const transcript = join(WORK, `real-${s.name}.jsonl`);
  writeFileSync(transcript, joinLines(s.lines));
  const template = join(WORK, `real-${s.name}-chain${prepared ? "-prepared" : ""}.template.db`);
  copyDb(base, template);
  const db = openForWrite(template);
  ingestSession(db, { path: transcript, sessionId: s.id, project: s.project, now: Date.now() });
  asStopsKeepIt(db);
  if (prepared) preparePush(db, s.id, shellQuote(h.bin), Date.now());
  db.close();
  return { id: s.id, transcript, template, project: s.project, born: bornAfter(template) };
}

/** Client-shaped ids for the sessions a row makes up: `prefix` and the suite's counter. */
const uuidOf = (prefix: string) => (i: number) => `${prefix}-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** The Stop rows of one session: its first turn, its last turn, and as registered. */
function stopRows(h: HookBench, s: RealSession, base: string, label: (row: string) => string): void {
  const ks = [...new Set([1, s.turns.length])];
  for (const k of ks) {
    const f = realStopFixture(s, base, k);
    const row = k === s.turns.length ? "hook stop (last turn)" : "hook stop (first turn)";
    stopRow(h, label(row), f, `turn ${k} of ${s.turns.length}, ${(f.bytes / 1e6).toFixed(1)} MB transcript`);
    assertNoHookError(h.runDb);
  }
  registeredStopRow(h, label("hook stop (hand-off as registered)"), realStopFixture(s, base, s.turns.length));
}

/** The push of the session's chain at the first prompt after a /clear: rendered, prepared, printed ahead. */
function pushRows(h: HookBench, s: RealSession, base: string, label: (row: string) => string): ChainFixture {
  const chain = realChain(h, s, base, false);
  const id = handoffRow(h, label("push rendered by the prompt"), chain, uuidOf("a1000000"));
  assertMerged(h.runDb, id, s.id);
  if (pushMadeBy(h.runDb, id) !== 0) throw new Error(`bench: the handoff of ${id} did not render the push`);
  const prepared = realChain(h, s, base, true);
  const pid = handoffRow(h, label("push prepared by the Stop"), prepared, uuidOf("a2000000"));
  if (pushMadeBy(h.runDb, pid) !== 1)
    throw new Error(`bench: the handoff of ${pid} did not print the prepared push`);
  printedAheadRow(h, label("push printed ahead"), prepared, "a3000000-0000-4000-8000-");
  return chain;
}

/** SessionStart, `context` and `search` on the session's chain (read-only rows: one copy for all runs). */
function readRows(h: HookBench, s: RealSession, chain: ChainFixture, label: (row: string) => string): void {
  copyDb(chain.template, h.runDb);
  let ss = 0;
  h.out[label("hook session-start")] = timeHook(h, ["hook", "session-start"], {
    env: { CLAUDE_PID: String(process.pid) },
    stdin: () =>
      JSON.stringify({
        session_id: uuidOf("a4000000")(++ss),
        transcript_path: join(WORK, "real-start.jsonl"),
        cwd: s.project,
        hook_event_name: "SessionStart",
        source: "startup",
      }),
  });
  h.out[label("context")] = timeHook(h, ["context", "--session", s.id], {});
  // Two words of the newest prompt that has two (letters only, 6+ long), as a model would search.
  const words = s.turns
    .map((t) => searchWords(t.prompt, 2))
    .filter((w) => w.length === 2)
    .at(-1) ?? ["function", "error"];
  const note = `words: ${words.join(" ")}`;
  h.out[label("search <words> (project)")] = {
    ...timeHook(h, ["search", ...words, "--project", s.project], {}),
    note,
  };
  h.out[label("search <words> (its chain)")] = {
    ...timeHook(h, ["search", ...words, "--session", s.id], {}),
    note,
  };
}

/** Replay of the session alone (its sub-agents with it) into a new database, 3 times: MB/s of the median. */
function replayRate(s: RealSession): { mb_per_s: number; mb: number } {
  const path = join(WORK, "real-replay.db");
  const secs: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    removeDb(path);
    const db = openForWrite(path);
    const t0 = performance.now();
    bytes = replay(db, [REAL_CORPUS], { filter: (f) => belongs(f, [s.file]) }).totals.bytes;
    secs.push((performance.now() - t0) / 1000);
    db.close();
  }
  return { mb_per_s: round(bytes / 1e6 / median(secs)), mb: round(bytes / 1e6) };
}

/** The goal of each real row: the same as its generated counterpart's (docs/benchmarks.md). */
export const REAL_GOALS: Record<string, string> = {
  "hook stop (first turn)": "≤ 4×",
  "hook stop (last turn)": "≤ 4×",
  "hook stop (hand-off as registered)": "≤ 1.5×",
  "push rendered by the prompt": "≤ 4×",
  "push prepared by the Stop": "≤ 4×",
  "push printed ahead": "≤ 2×",
  "hook session-start": "≤ 1.5×",
  context: "≤ 2×",
  "search <words> (project)": "≤ 3×",
  "search <words> (its chain)": "≤ 3×",
};

/** The rows of the `count` heaviest sessions, named `real <session>: <row>`; none without the corpus. */
export function benchReal(opts: { bin: string; runs: number; count?: number }): {
  rows: Record<string, RealRow>;
  replay: Record<string, { mb_per_s: number; mb: number }>;
} {
  const files = heaviestSessions(opts.count ?? Number(process.env.BENCH_REAL_SESSIONS ?? 3));
  if (files.length === 0) return { rows: {}, replay: {} };
  const h = hookBench(opts.bin, opts.runs);
  const replayed: Record<string, { mb_per_s: number; mb: number }> = {};
  for (const file of files) {
    const s = loadSession(file);
    const base = baseTemplate(s);
    console.error(`  real ${s.name}: ${s.turns.length} turns, ${(s.bytes / 1e6).toFixed(1)} MB…`);
    const label = (row: string) => `real ${s.name}: ${row}`;
    stopRows(h, s, base, label);
    const chain = pushRows(h, s, base, label);
    readRows(h, s, chain, label);
    replayed[s.name] = replayRate(s);
  }
  const rows: Record<string, RealRow> = {};
  for (const [name, r] of Object.entries(h.out)) {
    const goal = REAL_GOALS[name.slice(name.indexOf(": ") + 2)];
    rows[name] = { ...r, ...(goal ? { goal } : {}) };
  }
  return { rows, replay: replayed };
}

/** "≤ 1.5×" → met when `ratio` is at most 1.5. */
function verdict(ratio: number, goal: string | undefined): string {
  const m = goal ? /≤ ([\d.]+)×/.exec(goal) : null;
  return m ? (ratio <= Number(m[1]) ? "met" : "MISSED") : "";
}

/** The real rows as a table: per session, each row's paired ratio, its goal and verdict; the Stop's growth; replay. */
export function renderReal(r: ReturnType<typeof benchReal>): string {
  if (Object.keys(r.rows).length === 0) return `real sessions: skipped, no corpus at ${REAL_CORPUS}`;
  const out = ["real sessions (the heaviest of ../shared/corpus; ratios paired with the floor)"];
  const nameW = Math.max(...Object.keys(r.rows).map((k) => k.length));
  const line = (name: string, value: string, goal: string, v: string, note = "") =>
    out.push(
      `  ${name.padEnd(nameW)}  ${value.padStart(10)}  ${goal.padEnd(9)}  ${v}${note ? `  (${note})` : ""}`,
    );
  for (const [session, rp] of Object.entries(r.replay)) {
    const rows = Object.entries(r.rows).filter(([k]) => k.startsWith(`real ${session}: `));
    for (const [name, row] of rows) {
      const ratio = row.paired_ratio ?? 0;
      line(name, `${ratio}×`, row.goal ?? "", verdict(ratio, row.goal), row.note);
    }
    const first = r.rows[`real ${session}: hook stop (first turn)`]?.paired_ratio;
    const last = r.rows[`real ${session}: hook stop (last turn)`]?.paired_ratio;
    if (first && last) {
      const g = round(last / first);
      line(
        `real ${session}: hook stop growth, last / first turn`,
        `${g}×`,
        "≤ 1.1×",
        g <= 1.1 ? "met" : "MISSED",
      );
    }
    line(
      `real ${session}: replay`,
      `${rp.mb_per_s} MB/s`,
      "≥ 30 MB/s",
      rp.mb_per_s >= 30 ? "met" : "MISSED",
      `${rp.mb} MB`,
    );
  }
  return out.join("\n");
}
