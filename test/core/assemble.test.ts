import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_TRANSCRIPTS, FIXTURES } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { assemble } from "../../src/core/assemble.ts";
import { carriesNothing, type JsonObject, parseLine, splitLines } from "../../src/core/jsonl.ts";

const fixture = (name: string) => readFileSync(join(FIXTURES, "transcripts", name));
const run = (bytes: Uint8Array) => assemble(splitLines(bytes, 0).lines, { firstTurnNumber: 1 });

describe("turn assembly", () => {
  test("truncated last line: not consumed, not an error", () => {
    const bytes = fixture("truncated-last-line.jsonl");
    const split = splitLines(bytes, 0);
    expect(split.consumedTo).toBeLessThan(bytes.length);
    const r = run(bytes);
    expect(r.skippedLines).toBe(0);
    expect(r.turns.map((t) => t.prompt)).toEqual(["Add a health check endpoint", "Now add a test for it"]);
  });

  test("a non-JSON line in the middle is skipped and counted; an unknown type is ignored", () => {
    const r = run(fixture("bad-lines.jsonl"));
    expect(r.skippedLines).toBe(1);
    expect(r.ignoredEntries).toBe(1);
    expect(r.turns).toHaveLength(2);
    expect(r.turns[1]!.assistant).toBe("Docs updated.");
  });

  test("empty thinking is dropped, real thinking is L3", () => {
    const r = run(fixture("thinking.jsonl"));
    const thinking = r.turns[0]!.details.filter((d) => d.kind === "thinking");
    expect(thinking.map((d) => d.output)).toEqual(["The bundler runs twice because of the watch flag."]);
  });

  test("images become markers; no base64 anywhere", () => {
    const r = run(fixture("images.jsonl"));
    const t = r.turns[0]!;
    expect(t.prompt).toBe("Here is the broken layout");
    // Only what is stored matters: the in-memory structured result is never written.
    const all = JSON.stringify(r.turns.map((x) => [x.prompt, x.assistant, x.details]));
    expect(all).not.toContain(Buffer.alloc(3000, 7).toString("base64").slice(0, 200));
    expect(t.details.find((d) => d.kind === "image")?.output).toMatch(/^\[image: image\/png \d+ KB\]$/);
    expect(t.details.find((d) => d.kind === "tool_output")?.output).toMatch(/\[image: image\/png \d+ KB\]/);
  });

  test("inline sidechains never become turns; they are one subagent L3 row", () => {
    const r = run(fixture("inline-sidechain.jsonl"));
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0]!.assistant).toBe("There are 3 TODOs, all in src/app.ts.");
    const sub = r.turns[0]!.details.filter((d) => d.kind === "subagent");
    expect(sub).toHaveLength(1);
    expect(sub[0]!.input).toBe("List TODOs in src");
    expect(sub[0]!.output).toContain("Found 3 TODOs");
  });

  test("old compaction: the summary is L3 of the interrupted turn, not a prompt", () => {
    const r = run(fixture("compaction-old.jsonl"));
    expect(r.turns.map((t) => t.prompt)).toEqual(["Port the parser to Rust", "Continue with the parser"]);
    expect(r.turns[0]!.details.map((d) => d.kind)).toEqual(["compaction"]);
  });

  test("new compaction: boundary and summary are L3; entries after it stay in the session", () => {
    const r = run(fixture("compaction-new.jsonl"));
    expect(r.turns).toHaveLength(2);
    expect(r.turns[0]!.details.map((d) => d.kind)).toEqual(["compaction", "compaction"]);
    expect(r.turns[0]!.assistant).toContain("the worker now retries failed jobs");
    expect(r.turns[0]!.finalText).toBe("Continuing: the worker now retries failed jobs.");
  });

  test("band E shapes: attachments, metadata lines, slash commands, machine prompts", () => {
    const r = run(fixture("band-e-shapes.jsonl"));
    expect(r.title).toBe("Billing export");
    expect(r.turns.map((t) => t.prompt)).toEqual(["Export invoices as CSV", "/review billing"]);
    const kinds = r.turns.flatMap((t) => t.details.map((d) => d.kind));
    expect(kinds).toContain("ide_context");
    expect(kinds).toContain("hook");
    expect(kinds).toContain("attachment");
    expect(kinds).toContain("meta");
    expect(kinds).toContain("command_output");
    expect(kinds).toContain("notification");
    expect(r.skippedLines).toBe(0);
  });

  test("streamed blocks of one response are joined; all text is L2, final text is the last response", () => {
    const b = new TranscriptBuilder("aaaaaaaa-0000-4000-8000-000000000001");
    b.user("Do it");
    b.assistant([{ type: "text", text: "Let me check the tests first." }]);
    b.tool("Bash", { command: "bun test" }, "ok");
    b.assistant([
      { type: "text", text: "All green." },
      { type: "text", text: "Done." },
    ]);
    const r = run(new TextEncoder().encode(b.text()));
    expect(r.turns[0]!.assistant).toBe("Let me check the tests first.\n\nAll green.\n\nDone.");
    expect(r.turns[0]!.finalText).toBe("All green.\n\nDone.");
  });

  test("a prompt with no reply is still a turn; numbering continues from the cursor", () => {
    const b = new TranscriptBuilder("aaaaaaaa-0000-4000-8000-000000000002");
    b.user("first").user("second (interrupted)");
    const r = assemble(splitLines(new TextEncoder().encode(b.text()), 0).lines, { firstTurnNumber: 7 });
    expect(r.turns.map((t) => [t.number, t.prompt, t.finalText])).toEqual([
      [7, "first", null],
      [8, "second (interrupted)", null],
    ]);
  });

  test("a duplicated entry (same uuid) does not double the text", () => {
    const b = new TranscriptBuilder("aaaaaaaa-0000-4000-8000-000000000003");
    b.user("hi").say("hello");
    b.raw(b.lines[b.lines.length - 1]!);
    expect(run(new TextEncoder().encode(b.text())).turns[0]!.assistant).toBe("hello");
  });

  test("turn time is the transcript's timestamp", () => {
    const b = new TranscriptBuilder("aaaaaaaa-0000-4000-8000-000000000004", "/p", "2025-01-02T03:04:05.000Z");
    b.user("x").say("y");
    const t = run(new TextEncoder().encode(b.text())).turns[0]!;
    expect(t.startedAt).toBe(Date.parse("2025-01-02T03:04:06.000Z"));
    expect(t.endedAt).toBe(Date.parse("2025-01-02T03:04:07.000Z"));
  });
});

describe("entries that carry nothing (carriesNothing, src/core/jsonl.ts)", () => {
  const SID = "e5e5e5e5-aaaa-4bbb-8ccc-e5e5e5e5e5e5";
  const base = new TranscriptBuilder(SID, "/home/dev/project", "2026-03-01T12:00:00.000Z")
    .user("first prompt")
    .say("first answer")
    .user("second prompt")
    .say("second answer");
  const enc = new TextEncoder();
  const withLine = (entry: JsonObject) => run(enc.encode(`${base.text()}${JSON.stringify(entry)}\n`));
  /**
   * The assembly without its counters of lines, which an ignored entry moves by one, and the
   * session's latest time, which only sets a floor under the hook's own time (updated_at).
   */
  const shown = (r: ReturnType<typeof run>) => ({
    ...r,
    ignoredEntries: 0,
    entries: 0,
    transcriptEntries: 0,
    skippedEnds: [],
    lastTimestamp: 0,
  });

  /** Own shapes: the client's bookkeeping lines, and ones that look like it but are not. */
  const own: [JsonObject, boolean][] = [
    [{ type: "mode", mode: "normal", sessionId: SID }, true],
    [{ type: "atis-latch", atis: "", sessionId: SID }, true],
    [{ type: "last-prompt", lastPrompt: "x", sessionId: SID }, true],
    [{ type: "summary", summary: "A title", leafUuid: "u-1" }, true],
    [
      {
        type: "queue-operation",
        operation: "enqueue",
        timestamp: "2026-03-01T13:00:00.000Z",
        sessionId: SID,
      },
      true,
    ],
    [{ type: "mode", sessionId: SID, cwd: "/elsewhere" }, false],
    [{ type: "mode", sessionId: "another" }, false],
    [{ type: "custom-title", customTitle: "Renamed", sessionId: SID }, false],
    [{ type: "system", subtype: "turn_duration", sessionId: SID }, false],
  ];
  for (const [entry, expected] of own)
    test(`${JSON.stringify(entry)}: ${expected ? "carries nothing" : "may carry something"}`, () => {
      expect(carriesNothing(entry, SID)).toBe(expected);
    });

  test("what it says carries nothing leaves the assembly as it was (own shapes, and every corpus line)", () => {
    const entries = own.map(([e]) => e);
    if (existsSync(CORPUS_TRANSCRIPTS))
      for (const name of readdirSync(CORPUS_TRANSCRIPTS).filter((n) => n.endsWith(".jsonl")))
        for (const line of readFileSync(join(CORPUS_TRANSCRIPTS, name), "utf8").split("\n")) {
          const e = line ? parseLine(line) : null;
          if (e) entries.push(sidOf(e));
        }
    const before = shown(run(enc.encode(base.text())));
    let nothing = 0;
    for (const e of entries) {
      if (!carriesNothing(e, SID)) continue;
      nothing++;
      expect(shown(withLine(e))).toEqual(before);
    }
    expect(nothing).toBeGreaterThanOrEqual(4);
  });

  /** A corpus line as if of this session (its own id would set nothing else either). */
  function sidOf(e: JsonObject): JsonObject {
    return typeof e.sessionId === "string" ? { ...e, sessionId: SID } : e;
  }
});
