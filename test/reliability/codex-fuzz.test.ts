import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rng } from "../../harness/cuts.ts";
import { count, tempDir } from "../../harness/db.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";
import { RolloutBuilder, rolloutPath } from "../helpers/codex-rollout.ts";
import { childEnv, isOneLine, SCALE } from "./harness.ts";

// Fuzzed Codex rollouts and hook payloads (docs/hosts.md, docs/testing.md reliability tier):
// bad lines never stop the lines after them, and what a hook injected is never stored.

const ROLLOUTS = 50 * SCALE;
const TURNS = 20;
const BAD_PER_GAP = 4; // 50 rollouts × 20 gaps × 4 = 4,000 bad lines
const PAYLOADS = 1000 * SCALE;

const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

/** Lines of another session: injected developer text, harness-marked user text, calls, unknown items. */
function donorLines(): { lines: string[]; injected: Set<number> } {
  const b = new RolloutBuilder("dddd0000-0000-7000-8000-000000000000", "/home/dev/donor");
  b.turn("donor prompt", "donor answer", {
    shell: { cmd: "git commit -m donor", output: "[main 1234567] donor\n", exit: 0 },
    injected: "INJECTED developer context",
    reasoning: "donor thinking",
    turnId: "donor-turn",
  });
  const meta = (kind: string, provenance: Record<string, unknown>) => ({
    turn_id: "donor-turn",
    content_item_kinds: [kind],
    content_item_metadata: [{ provenance }],
  });
  const rec = (type: string, payload: unknown) =>
    JSON.stringify({ timestamp: "2026-12-06T04:00:00.000Z", ordinal: 99, type, payload });
  const extra = [
    rec("response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "INJECTED by a hook as user text" }],
      internal_chat_message_metadata_passthrough: meta("hooks.additional_context", {
        type: "harness",
        hook: true,
      }),
    }),
    rec("response_item", {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "INJECTED push: recall --l2" }],
    }),
    rec("response_item", { type: "web_search_call", action: { query: "x" } }),
    rec("response_item", { type: "future_item_kind", payload: [1, 2] }),
    rec("event_msg", { type: "never_seen_event", x: {} }),
    rec("brand_new_record", { a: 1 }),
    rec("compacted", { message: 42, replacement_history: "no" }),
    rec("session_meta", { id: 7, history_base: { thread_id: ["x"], end_byte_offset: "a" } }),
    rec("turn_context", { cwd: { not: "a path" } }),
    rec("response_item", { type: "function_call", name: "exec_command", arguments: "{not json", call_id: 5 }),
    rec("response_item", { type: "function_call_output", call_id: "donor-call", output: { nested: [null] } }),
    rec("response_item", { type: "local_shell_call", action: { command: 12 }, call_id: "ls" }),
  ];
  const lines = [...b.lines, ...extra];
  const injected = new Set(lines.flatMap((l, i) => (l.includes("INJECTED") ? [i] : [])));
  return { lines, injected };
}

function mutate(line: string, r: () => number, keepMeaning: boolean): string {
  const at = Math.floor(r() * line.length);
  // A line marked as a hook's must stay marked or stop being JSON: only cut or corrupt it.
  const kind = keepMeaning ? Math.floor(r() * 3) : Math.floor(r() * 8);
  switch (kind) {
    case 0:
      return line.slice(0, at); // truncated
    case 1:
      return `${line.slice(0, at)}\u0000${line.slice(at)}`; // a raw NUL
    case 2:
      return `${line.slice(0, at)}{"broken": ${line.slice(at)}`; // bad JSON
    case 3:
      return `${line.slice(0, at)}${String.fromCharCode(33 + Math.floor(r() * 90))}${line.slice(at + 1)}`;
    case 4:
      return line.replace(/"payload":\{/, `"payload":{"deep":${deep(40_000)},`);
    case 5:
      return line.replace(/"type":"(response_item|event_msg|turn_context)"/, '"type":{"nested":"$1"}');
    case 6:
      return line.replace(/"payload":/, '"payload":[],"was":');
    default:
      return line.replace(/"text":"/, '"text":"\\u0000\\u2028');
  }
}

/** Raw bytes of a rollout: valid turns, and between every two of them, bad lines. */
function fuzzRollout(t: number, r: () => number, donor: ReturnType<typeof donorLines>) {
  const sid = `f0000000-0000-7000-8000-${String(t).padStart(12, "0")}`;
  const b = new RolloutBuilder(sid, "/home/dev/codex-fuzz");
  const parts: Buffer[] = [];
  let sent = 0;
  const flush = () => {
    parts.push(
      Buffer.from(
        b.lines
          .slice(sent)
          .map((l) => `${l}\n`)
          .join(""),
      ),
    );
    sent = b.lines.length;
  };
  for (let k = 1; k <= TURNS; k++) {
    b.turn(`fuzz ${t} prompt ${k}`, `answer ${t}.${k}`, {
      shell: { cmd: `echo ${k}`, output: `${k}\n`, exit: 0 },
      injected: `INJECTED ${t}.${k}`,
      turnId: `f${t}-t${k}`,
    });
    flush();
    for (let i = 0; i < BAD_PER_GAP; i++) {
      const pick = Math.floor(r() * 100);
      if (pick < 8)
        parts.push(Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28, 0x00, 0x0a])); // binary
      else if (pick < 9)
        // A huge shell output (2 MiB) of a call no turn made.
        parts.push(
          Buffer.from(
            `${JSON.stringify({ timestamp: "2026-12-06T04:00:00.000Z", type: "response_item", payload: { type: "function_call_output", call_id: `huge-${t}-${k}`, output: `Output:\n${"x".repeat(2 << 20)}` } })}\n`,
          ),
        );
      else {
        const d = Math.floor(r() * donor.lines.length);
        const whole = r() < 0.25; // a valid line of another kind, or a mutated one
        const line = whole ? donor.lines[d]! : mutate(donor.lines[d]!, r, donor.injected.has(d));
        parts.push(Buffer.from(`${line}\n`));
      }
    }
  }
  return { bytes: Buffer.concat(parts), sid };
}

function expectEveryValidTurn(db: Database, t: number, sid: string): void {
  const texts = (role: string) =>
    (
      db
        .query(
          "SELECT b.text FROM bodies b JOIN turns x ON x.id = b.turn_id WHERE x.origin_session_id = $s AND b.role = $r",
        )
        .values({ s: sid, r: role }) as string[][]
    ).map((r) => r[0]!);
  const users = new Set(texts("user"));
  const assistants = texts("assistant");
  const missing: string[] = [];
  for (let k = 1; k <= TURNS; k++) {
    if (!users.has(`fuzz ${t} prompt ${k}`)) missing.push(`prompt ${k}`);
    if (!assistants.some((a) => a.includes(`answer ${t}.${k}`))) missing.push(`answer ${k}`);
  }
  expect({ t, missing }).toEqual({ t, missing: [] });
}

describe("fuzzed codex rollouts and payloads (docs/hosts.md, reliability tier)", () => {
  test(`${ROLLOUTS * TURNS * BAD_PER_GAP} bad rollout lines (bad JSON, unknown items, truncated, huge, binary): every valid turn kept, no injected text stored`, () => {
    using dir = tempDir("tl-cfuzz-");
    const db = openForWrite(join(dir.path, "tl.db"));
    const r = rng(20261206);
    const donor = donorLines();
    for (let t = 0; t < ROLLOUTS; t++) {
      const { bytes, sid } = fuzzRollout(t, r, donor);
      const path = rolloutPath(dir.path, sid);
      mkdirSync(dirname(path), { recursive: true });
      // Two Stops: one mid-file (mid-line too), one at the end, as a live session sees it.
      const cut = Math.floor(r() * bytes.length);
      writeFileSync(path, bytes.subarray(0, cut));
      ingestTranscript(db, { path, sessionId: sid, now: 1 });
      writeFileSync(path, bytes);
      const res = ingestTranscript(db, { path, sessionId: sid, now: 2 });
      expect(res.skippedLines).toBeGreaterThan(0);
      expect(
        db.query("SELECT offset FROM ingest_cursors WHERE transcript_path = $p").get({ p: path }),
      ).toEqual({
        offset: bytes.length,
      });
      expectEveryValidTurn(db, t, sid);
    }
    const injected = count(
      db,
      `SELECT (SELECT count(*) FROM bodies WHERE text LIKE '%INJECTED%')
            + (SELECT count(*) FROM details WHERE input LIKE '%INJECTED%' OR output LIKE '%INJECTED%')
            + (SELECT count(*) FROM events WHERE summary LIKE '%INJECTED%' OR detail LIKE '%INJECTED%') AS n`,
    );
    expect(injected).toBe(0);
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();
  }, 120_000);

  test(`${PAYLOADS} mutated codex hook payloads: exit 0 or 1, one stderr line exactly when 1`, async () => {
    const base = existsSync("/dev/shm") ? "/dev/shm" : undefined;
    const dir = mkdtempSync(join(base ?? tmpdir(), "tl-cfuzz-payload-"));
    try {
      const env = childEnv({ THROUGHLINE_DB: join(dir, "tl.db") });
      const sid = "eeee0000-0000-7000-8000-000000000001";
      const rollout = rolloutPath(dir, sid);
      mkdirSync(dirname(rollout), { recursive: true });
      writeFileSync(rollout, new RolloutBuilder(sid, "/home/dev/cfuzz").turn("hello", "hi").text());
      const events: [string, string][] = [
        ["stop", "Stop"],
        ["session-start", "SessionStart"],
        ["user-prompt-submit", "UserPromptSubmit"],
        ["pre-compact", "PreCompact"],
        ["session-end", "SessionEnd"],
      ];
      const good = {
        session_id: sid,
        turn_id: "turn-1",
        transcript_path: rollout,
        cwd: "/home/dev/cfuzz",
        model: "gpt-5.5",
        permission_mode: "bypassPermissions",
        prompt: "/tl",
        source: "clear",
        trigger: "auto",
        reason: "other",
        stop_hook_active: false,
        last_assistant_message: "hi",
      };
      const values: unknown[] = [
        null,
        0,
        -1,
        1e308,
        "",
        "x\ny",
        "\u0000",
        [],
        {},
        [1, [2]],
        "/",
        "/dev/null",
      ];
      values.push(
        "a".repeat(100_000),
        rollout.replace(sid, "not-a-uuid"),
        `${dirname(rollout)}/rollout-x.jsonl`,
      );
      const r = rng(47);
      const outcomes = new Map<string, number>();
      for (let i = 0; i < PAYLOADS; i++) {
        const [event, name] = events[i % events.length]!;
        const payload: Record<string, unknown> = { ...good, hook_event_name: name };
        for (const k of Object.keys(good)) {
          const roll = r();
          if (roll < 0.15) delete payload[k];
          else if (roll < 0.35) payload[k] = values[Math.floor(r() * values.length)];
        }
        // Stop waits for a missing transcript (src/hooks/stop.ts): a rollout it can read.
        if (event === "stop") payload.transcript_path = rollout;
        let text = JSON.stringify(payload);
        const form = r();
        if (form < 0.1) text = text.slice(0, Math.floor(r() * text.length));
        else if (form < 0.15) text = `[${text}]`;
        else if (form < 0.2) text = text.replace(/"/, "\u0000");
        const out = await runHook(event, text, env, () => 1_800_000_000_000 + i);
        outcomes.set(`${out.exitCode}`, (outcomes.get(`${out.exitCode}`) ?? 0) + 1);
        if (out.exitCode === 1) expect({ i, oneLine: isOneLine(out.stderr) }).toEqual({ i, oneLine: true });
        else
          expect({ i, exitCode: out.exitCode, stderr: out.stderr }).toEqual({ i, exitCode: 0, stderr: "" });
      }
      expect([...outcomes.keys()].sort()).toEqual(["0", "1"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
