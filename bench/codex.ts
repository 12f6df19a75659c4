/**
 * The Stop's work on a Codex rollout (docs/hosts.md, docs/benchmarks.md): turn 10 and turn 1,000
 * of a large rollout, cold processes of the compiled binary. The rollout is made from a turn
 * recorded with the real Codex 0.171 (test/fixtures/codex-fork/, the parent's second turn: the
 * hook's developer message, the prompt, a shell call and its output, the reply, with Codex's
 * item_completed, token_count and token_usage_record lines), repeated with fresh ids and a
 * larger shell output; its first line is the recorded session_meta (base instructions included).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestTranscript } from "../src/capture/ingest.ts";
import { openForWrite } from "../src/db/open.ts";
import { asStopsKeepIt, copyDb, removeDb } from "./hook-fixtures.ts";
import { measure, ROOT, WORK } from "./lib.ts";

const FIXTURE = join(
  ROOT,
  "test/fixtures/codex-fork/rollout-2026-12-06T06-47-36-01a24a1b-a7b8-7f73-800f-39e62a732296.jsonl",
);
const RECORDED_SESSION = "01a24a1b-a7b8-7f73-800f-39e62a732296";
const RECORDED_PROMPT = "parent two TAG:p2 RUN:echo parent-shell";
/** The recorded second turn: from its thread_settings_applied to its task_complete. */
const TURN_LINES = [16, 33] as const;
const PROJECT = "/home/dev/bench-codex";

type Row = { median_ms: number; p95_ms: number; runs: number; note?: string; goal?: string };

/** The recorded turn as a function of its number: every id made unique, the output `bytes` long. */
function turnMaker(sessionId: string, bytesPerTurn: number) {
  const recorded = readFileSync(FIXTURE, "utf8").split("\n");
  const template = recorded.slice(...TURN_LINES).map((l) => l.replaceAll(RECORDED_SESSION, sessionId));
  const uuids = [
    ...new Set(template.join("\n").match(/01a24a1b-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)),
  ];
  const meta = recorded[0]!
    .replaceAll(RECORDED_SESSION, sessionId)
    .replaceAll("/tmp/i47c-fork-7NLq6Q/proj", PROJECT);
  const filler = "x".repeat(Math.max(0, bytesPerTurn - template.join("\n").length));
  const start = Date.parse("2026-12-06T08:00:00.000Z");
  let ordinal = 1;
  const turn = (i: number): string[] =>
    template.map((line, j) => {
      let text = line.replaceAll(RECORDED_PROMPT, `Step ${i}: update module ${i % 37} and run its tests`);
      uuids.forEach((u, k) => {
        text = text.replaceAll(
          u,
          `${u.slice(0, 19)}${k.toString(16).padStart(4, "0")}-${i.toString(16).padStart(12, "0")}`,
        );
      });
      text = text.replace(/\b(call|fc|msg)_(\d+)\b/g, `$1_b${i}_$2`);
      const r = JSON.parse(text) as { timestamp: string; ordinal: number; payload: Record<string, unknown> };
      r.timestamp = new Date(start + i * 30_000 + j * 10).toISOString();
      r.ordinal = ordinal++;
      if (r.payload.type === "function_call_output")
        r.payload.output = `${String(r.payload.output)}${filler}\n`;
      return JSON.stringify(r);
    });
  return { meta, turn };
}

/** A rollout of `turns` turns whose last one is new to a template database holding the others. */
function stopFixture(turns: number, bytesPerTurn: number) {
  const id = `0000bec0-0000-7000-8000-${String(turns).padStart(12, "0")}`;
  const make = turnMaker(id, bytesPerTurn);
  const lines = [make.meta];
  for (let i = 1; i < turns; i++) lines.push(...make.turn(i));
  const rollout = join(WORK, `rollout-2026-12-06T08-00-00-${id}.jsonl`);
  writeFileSync(rollout, `${lines.join("\n")}\n`);
  const template = join(WORK, `codex-${turns}.template.db`);
  removeDb(template);
  const db = openForWrite(template);
  ingestTranscript(db, { path: rollout, sessionId: id, project: PROJECT, now: Date.now() });
  asStopsKeepIt(db);
  db.close();
  const last = make.turn(turns);
  writeFileSync(rollout, `${[...lines, ...last].join("\n")}\n`);
  const payload = JSON.stringify({
    session_id: id,
    turn_id: "the-last-turn",
    transcript_path: rollout,
    cwd: PROJECT,
    hook_event_name: "Stop",
    model: "gpt-5.5",
    permission_mode: "default",
    stop_hook_active: false,
    last_assistant_message: "[p2] done (tool output seen)",
  });
  return { template, payload, bytes: Bun.file(rollout).size };
}

/** The Stop for the newest turn of a Codex rollout: its cost must not grow with the rollout. */
export async function benchCodex(opts: { bin: string; runs: number }): Promise<Record<string, Row>> {
  const runDb = join(WORK, "codex-run.db");
  const env = {
    THROUGHLINE_DB: runDb,
    THROUGHLINE_DETACH: "0",
    THROUGHLINE_HOME: join(WORK, "home"),
    CLAUDE_CONFIG_DIR: join(WORK, "claude"),
    CODEX_HOME: join(WORK, "codex"),
    THROUGHLINE_SUMMARIZER: "extractive",
  };
  const out: Record<string, Row> = {};
  for (const [label, turns] of [
    ["hook stop, codex (turn 10)", 10],
    ["hook stop, codex (turn 1,000 of a ≥10 MB rollout)", 1000],
  ] as const) {
    const f = stopFixture(turns, 10_500);
    out[label] = {
      ...measure(opts.runs, () => [opts.bin, "hook", "stop"], {
        env,
        before: () => copyDb(f.template, runDb),
        stdin: () => f.payload,
      }),
      note: `${(f.bytes / 1024 / 1024).toFixed(1)} MB rollout`,
    };
  }
  return out;
}
