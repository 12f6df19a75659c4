/**
 * A turn's tool calls as the push and `recall --l2` read them (db/queries/chain.ts toolUsesOf): each
 * call once, in the turn's order, with its own result, however the results come (parallel calls
 * write both inputs before either output), a call whose result never came, and a turn of many calls.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { openForWrite } from "../../src/db/open.ts";
import { toolUsesOf } from "../../src/db/queries/chain.ts";

const ID = "aaaaaaaa-0000-4000-8000-00000000c001";

test("each call once, in order, with its own result: parallel calls, a lost result, 150 calls", () => {
  using dir = tempDir("tl-uses-");
  const b = new TranscriptBuilder(ID, "/w/uses", "2026-06-01T10:00:00.000Z");
  b.user("look around");
  // Two calls in one message, their results in the other order.
  b.assistant([
    { type: "tool_use", id: "toolu_p1", name: "Bash", input: { command: "ls first" } },
    { type: "tool_use", id: "toolu_p2", name: "Bash", input: { command: "ls second" } },
  ]);
  for (const [id, out, err] of [
    ["toolu_p2", "second listing", true],
    ["toolu_p1", "first listing", false],
  ] as const)
    b.raw({
      type: "user",
      sessionId: ID,
      cwd: "/w/uses",
      uuid: `u-${id}`,
      timestamp: "2026-06-01T10:00:05.000Z",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: out, is_error: err }],
      },
    });
  // A call whose result never came.
  b.assistant([
    { type: "tool_use", id: "toolu_lost", name: "Read", input: { file_path: "/w/uses/lost.ts" } },
  ]);
  for (let i = 0; i < 150; i++) b.tool("Bash", { command: `echo ${i}` }, `out ${i}`);
  b.say("done");
  const file = join(dir.path, `${ID}.jsonl`);
  writeFileSync(file, b.text());
  const db = openForWrite(join(dir.path, "tl.db"));
  try {
    ingestTranscript(db, { path: file, now: 1 });
    const turn = (db.query("SELECT id FROM turns").get() as { id: number }).id;
    const uses = toolUsesOf(db, [turn]).get(turn)!.uses;
    expect(uses.length).toBe(153);
    expect(uses.slice(0, 3).map((u) => [u.command ?? u.path, u.output, u.isError])).toEqual([
      ["ls first", "first listing", false],
      ["ls second", "second listing", true],
      ["/w/uses/lost.ts", null, false],
    ]);
    uses.slice(3).forEach((u, i) => {
      expect(u.command).toBe(`echo ${i}`);
      expect(u.output).toBe(`out ${i}`);
    });
  } finally {
    db.close();
  }
});
