import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assemble } from "../../src/core/assemble.ts";
import { splitLines } from "../../src/core/jsonl.ts";
import { FIXTURES } from "../helpers/db.ts";
import { TranscriptBuilder } from "../helpers/transcript.ts";

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
