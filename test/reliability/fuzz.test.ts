import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rng } from "../../harness/cuts.ts";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { MAX_JSON_DEPTH } from "../../src/core/jsonl.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";
import { readPayloadText } from "../../src/hooks/stdin.ts";
import { CLI, childEnv, finished, isOneLine, SCALE } from "./harness.ts";

const TRANSCRIPTS = 50 * SCALE;
const TURNS = 20;
const BAD_PER_GAP = 4; // 50 transcripts × 20 gaps × 4 = 4,000 bad lines
const PAYLOADS = 1000 * SCALE;

const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const deepArray = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

/** Lines of another session (other uuids): mutating a copy never shadows a valid entry. */
function donorLines(): string[] {
  const b = new TranscriptBuilder("dddd0000-0000-4000-8000-000000000000");
  b.user("donor prompt").assistant([{ type: "thinking", thinking: "hmm", signature: "s" }]);
  b.tool("Bash", { command: "git commit -m x" }, "[main 1234567] x");
  b.tool("Edit", { file_path: "/a.ts", old_string: "a", new_string: "b" }, "ok", {
    result: { filePath: "/a.ts", structuredPatch: [{ lines: ["-a", "+b"] }] },
  });
  b.raw({ type: "attachment", uuid: "dddd-att", attachment: { type: "hook_success", content: "x" } });
  b.system("compact_boundary", { compactMetadata: { trigger: "auto", preTokens: 1 } });
  b.say("donor answer");
  return b.lines;
}

const PREFIX_LINES = [
  "",
  "   ",
  "null",
  "[]",
  "123",
  '"str"',
  "{",
  "}",
  '{"type":',
  "\u0000\u0000\u0000",
  '{"type":"user","message":42}',
  '{"type":"user","message":{"content":{"a":1}}}',
  '{"type":"assistant","message":{"content":[null,1,"x",[],{}]}}',
  '{"type":"user","timestamp":{},"uuid":5,"message":{"role":"user","content":[{"type":"tool_result","content":{"x":1}}]}}',
  '{"type":"system","subtype":"stop_hook_summary","hookErrors":"no","hookInfos":{"a":[1]}}',
  '{"type":"attachment","attachment":[1,2]}',
  '{"type":"custom-title","customTitle":{"x":1}}',
];

function mutate(line: string, r: () => number): string {
  const at = Math.floor(r() * line.length);
  switch (Math.floor(r() * 9)) {
    case 0:
      return line.slice(0, at); // cut mid-line
    case 1:
      return `${line.slice(0, at)}${String.fromCharCode(33 + Math.floor(r() * 90))}${line.slice(at + 1)}`;
    case 2:
      return `${line.slice(0, at)}\u0000${line.slice(at)}`; // a raw NUL
    case 3:
      return line.replace(/"text":"/, '"text":"\\u0000\\u2028'); // NUL and U+2028 inside a string: valid
    case 4:
      return line.replace(/"input":\{/, `"input":{"deep":${deep(MAX_JSON_DEPTH * 4)},`);
    case 5:
      return line.replace(/"toolUseResult":/, `"toolUseResult":${deepArray(40_000)},"x":`);
    case 6:
      return `{"type":"attachment","uuid":"att-${at}","attachment":{"type":"x","v":${deep(40_000)}}}`;
    case 7:
      return PREFIX_LINES[Math.floor(r() * PREFIX_LINES.length)]!;
    default:
      return line.replace(/"type":"(user|assistant)"/, '"type":{"nested":"$1"}');
  }
}

/** Raw bytes of a transcript: valid turns, and between every two of them, bad lines. */
function fuzzTranscript(t: number, r: () => number, donor: string[]): { bytes: Buffer; sid: string } {
  const sid = `f0000000-0000-4000-8000-${String(t).padStart(12, "0")}`;
  const b = new TranscriptBuilder(sid, "/home/dev/fuzz");
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
    b.user(`fuzz ${t} prompt ${k}`)
      .tool("Bash", { command: `echo ${k}` }, `${k}`)
      .say(`answer ${t}.${k}`);
    flush();
    for (let i = 0; i < BAD_PER_GAP; i++) {
      const pick = Math.floor(r() * 10);
      if (pick === 0)
        parts.push(Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28, 0x0a])); // invalid UTF-8
      else if (pick === 1)
        parts.push(
          Buffer.concat([Buffer.from(donor[0]!.slice(0, 40)), Buffer.from([0xed, 0xa0, 0x80, 0x0a])]),
        );
      else parts.push(Buffer.from(`${mutate(donor[Math.floor(r() * donor.length)]!, r)}\n`));
    }
  }
  return { bytes: Buffer.concat(parts), sid };
}

function expectEveryValidTurn(db: Database, t: number, sid: string): void {
  const users = new Set(
    (
      db
        .query(
          "SELECT b.text FROM bodies b JOIN turns x ON x.id = b.turn_id WHERE x.origin_session_id = $s AND b.role = 'user'",
        )
        .values({ s: sid }) as string[][]
    ).map((r) => r[0]),
  );
  const assistants = (
    db
      .query(
        "SELECT b.text FROM bodies b JOIN turns x ON x.id = b.turn_id WHERE x.origin_session_id = $s AND b.role = 'assistant'",
      )
      .values({ s: sid }) as string[][]
  ).map((r) => r[0]!);
  const missing: string[] = [];
  for (let k = 1; k <= TURNS; k++) {
    if (!users.has(`fuzz ${t} prompt ${k}`)) missing.push(`prompt ${k}`);
    if (!assistants.some((a) => a.includes(`answer ${t}.${k}`))) missing.push(`answer ${k}`);
  }
  expect({ t, missing }).toEqual({ t, missing: [] });
}

describe("fuzzed transcripts and payloads (docs/hooks.md, reliability tier)", () => {
  test(`${TRANSCRIPTS * TURNS * BAD_PER_GAP} bad transcript lines: each skipped or stored, every valid turn around them kept`, () => {
    using dir = tempDir("tl-fuzz-");
    const db = openForWrite(join(dir.path, "tl.db"));
    const r = rng(20260511);
    const donor = donorLines();
    for (let t = 0; t < TRANSCRIPTS; t++) {
      const { bytes, sid } = fuzzTranscript(t, r, donor);
      const path = join(dir.path, `${sid}.jsonl`);
      // Two Stops: one mid-file (mid-line too), one at the end, as a live session sees it.
      const cut = Math.floor(r() * bytes.length);
      writeFileSync(path, bytes.subarray(0, cut));
      ingestTranscript(db, { path, sessionId: sid, now: 1 });
      writeFileSync(path, bytes);
      const res = ingestTranscript(db, { path, sessionId: sid, now: 2 });
      expect(res.skippedLines).toBeGreaterThan(0);
      const cursor = db
        .query("SELECT offset FROM ingest_cursors WHERE transcript_path = $p")
        .get({ p: path });
      expect(cursor).toEqual({ offset: bytes.length });
      expectEveryValidTurn(db, t, sid);
    }
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();
  }, 60_000);

  test(`${PAYLOADS} mutated payloads: exit 0 or 1, one stderr line exactly when 1`, async () => {
    // Payload runs open and close the database each time: keep the fsyncs off a real disk.
    const base = existsSync("/dev/shm") ? "/dev/shm" : undefined;
    const dir = mkdtempSync(join(base ?? tmpdir(), "tl-fuzz-payload-"));
    try {
      const env = childEnv({ THROUGHLINE_DB: join(dir, "tl.db") });
      const b = new TranscriptBuilder("eeee0000-0000-4000-8000-000000000001");
      b.user("hello").say("hi");
      const transcript = join(dir, `${b.sessionId}.jsonl`);
      writeFileSync(transcript, b.text());
      const events = [
        "stop",
        "post-tool-use",
        "subagent-stop",
        "session-end",
        "pre-compact",
        "session-start",
        "user-prompt-submit",
      ];
      const good = {
        session_id: b.sessionId,
        transcript_path: transcript,
        cwd: "/home/dev/fuzz",
        prompt: "go on",
        tool_name: "Bash",
        tool_use_id: "toolu_1",
        tool_input: { command: "bun test" },
        tool_response: { stdout: "1 pass", stderr: "" },
        agent_transcript_path: transcript,
        source: "clear",
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
        "\u2028",
        [],
        {},
        [1, [2]],
        "/tmp/new\nline.jsonl",
        "/",
        "/dev/null",
        "a".repeat(100_000),
      ];
      const r = rng(7);
      const outcomes = new Map<string, number>();
      for (let i = 0; i < PAYLOADS; i++) {
        const payload: Record<string, unknown> = { ...good };
        for (const k of Object.keys(good)) {
          const roll = r();
          if (roll < 0.15) delete payload[k];
          else if (roll < 0.35) payload[k] = values[Math.floor(r() * values.length)];
        }
        const event = events[i % events.length]!;
        // Stop waits up to 2 s for a transcript to appear (src/hooks/stop.ts): a missing path
        // there only costs time, and the CLI cases below cover odd paths.
        if (event === "stop") payload.transcript_path = transcript;
        if (r() < 0.05) payload.tool_input = JSON.parse(`{"d":${deep(MAX_JSON_DEPTH + 10)}}`);
        let text = JSON.stringify(payload);
        const form = r();
        if (form < 0.1) text = text.slice(0, Math.floor(r() * text.length));
        else if (form < 0.15) text = `[${text}]`;
        else if (form < 0.2) text = text.replace(/"/, "\u0000");
        const out = await runHook(event, text, env, () => 1_800_000_000_000 + i);
        const key = `${out.exitCode}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (out.exitCode === 1) expect({ i, oneLine: isOneLine(out.stderr) }).toEqual({ i, oneLine: true });
        else
          expect({ i, exitCode: out.exitCode, stderr: out.stderr }).toEqual({ i, exitCode: 0, stderr: "" });
      }
      // Both outcomes occurred: the mutations reached the handlers, not only the parser.
      expect([...outcomes.keys()].sort()).toEqual(["0", "1"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("hook processes on hostile input: exit 0/1, one stderr line, no hang", async () => {
    using dir = tempDir("tl-fuzz-cli-");
    const env = childEnv({ THROUGHLINE_DB: join(dir.path, "tl.db") });
    const b = new TranscriptBuilder("cccc0000-0000-4000-8000-000000000001");
    b.user("before the big line").say("ok 1");
    b.raw(`{"type":"user","message":{"content":"${"x".repeat(5 * 1024 * 1024)}`); // 5 MB, never closed
    b.raw(
      `{"type":"assistant","uuid":"deep","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":${deep(40_000)}}]}}`,
    );
    b.user("after the big line").say("ok 2");
    const transcript = join(dir.path, `${b.sessionId}.jsonl`);
    writeFileSync(transcript, b.text());
    const payload = (extra: Record<string, unknown>) =>
      JSON.stringify({ session_id: b.sessionId, transcript_path: transcript, cwd: "/tmp", ...extra });
    const cases: { event: string; stdin: Uint8Array | string; want: 0 | 1 }[] = [
      { event: "stop", stdin: payload({ last_assistant_message: "ok 2" }), want: 0 },
      { event: "session-end", stdin: payload({ transcript_path: "/tmp/new\nline.jsonl" }), want: 1 },
      { event: "stop", stdin: payload({ transcript_path: dir.path }), want: 1 },
      {
        event: "post-tool-use",
        stdin: payload({ tool_name: "Bash", tool_input: JSON.parse(`{"d":${deep(300)}}`) }),
        want: 1,
      },
      {
        event: "post-tool-use",
        stdin: `{"session_id":"s","tool_name":"Bash","tool_input":${deep(40_000)}}`,
        want: 1,
      },
      { event: "session-start", stdin: Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]), want: 1 },
      { event: "session-start", stdin: "\u0000\u0000", want: 1 },
      { event: "user-prompt-submit", stdin: "", want: 1 },
      { event: "post-tool-use", stdin: `{"session_id":"s","x":"${"y".repeat(17 * 1024 * 1024)}"}`, want: 1 },
      { event: `bogus\nevent`, stdin: payload({}), want: 1 },
    ];
    const runs = cases.map((c) =>
      finished(
        Bun.spawn(["bun", CLI, "hook", c.event], {
          stdin: Buffer.from(c.stdin),
          env,
          stdout: "pipe",
          stderr: "pipe",
        }),
      ),
    );
    // A payload that never completes while stdin stays open: bounded by the read timeout.
    const open = Bun.spawn(["bun", CLI, "hook", "stop"], {
      stdin: "pipe",
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    open.stdin.write('{"session_id": "never closed"');
    open.stdin.flush();
    const killer = setTimeout(() => open.kill("SIGKILL"), 30_000);
    const results = await Promise.all([...runs, finished(open)]);
    clearTimeout(killer);
    open.stdin.end();
    const got = results.map((r, i) => ({
      case: i,
      exitCode: r.exitCode,
      stderrLines: r.stderr === "" ? 0 : isOneLine(r.stderr) ? 1 : "many",
    }));
    const want = [...cases.map((c) => c.want), 1].map((w, i) => ({ case: i, exitCode: w, stderrLines: w }));
    expect(got).toEqual(want);
    expect(results.at(-1)!.stderr).toContain("no complete JSON payload");
    const db = new Database(join(dir.path, "tl.db"), { readonly: true });
    const prompts = db.query("SELECT text FROM bodies WHERE role = 'user' ORDER BY turn_id").values().flat();
    db.close();
    expect(prompts).toEqual(["before the big line", "after the big line"]);
  }, 60_000);

  test("a payload read stops at the timeout when stdin stays open", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"session_id":"s", "cwd": '));
      },
    });
    const text = await readPayloadText(stream, 50);
    expect(text).toBe('{"session_id":"s", "cwd": ');
    using dir = tempDir("tl-fuzz-open-");
    const out = await runHook("session-start", text, childEnv({ THROUGHLINE_DB: join(dir.path, "x.db") }));
    expect(out).toMatchObject({ exitCode: 1 });
    expect(out.stderr).toBe(
      "throughline hook session-start: no complete JSON payload on stdin after 50 ms\n",
    );
  });
});
