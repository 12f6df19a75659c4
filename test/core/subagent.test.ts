import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../../harness/db.ts";
import { splitLines } from "../../src/core/jsonl.ts";
import { assembleSubagent } from "../../src/core/subagent.ts";

describe("subagent assembly", () => {
  test("a subagent file assembles into one L3 row with its prompt and steps", () => {
    const bytes = readFileSync(
      join(
        FIXTURES,
        "transcripts",
        "11111111-0000-4000-8000-000000000006",
        "subagents",
        "agent-a1b2c3d.jsonl",
      ),
    );
    const s = assembleSubagent(splitLines(bytes, 0).lines);
    expect(s.agentId).toBe("a1b2c3d");
    expect(s.detail.input).toBe("Review src/auth.ts");
    expect(s.detail.output).toContain("[tool] Read");
    expect(s.toolCalls.map((c) => c.name)).toEqual(["Read"]);
  });
});
