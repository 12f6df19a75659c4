import { describe, expect, test } from "bun:test";
import type { ToolUse } from "../../src/core/tool-digest.ts";
import type { LoadedTurn } from "../../src/db/queries/chain.ts";
import { fitLines, renderRecallL2 } from "../../src/render/pull.ts";

const T0 = Date.parse("2026-03-01T09:00:00.000Z");
const utf8 = (s: string) => Buffer.byteLength(s, "utf8");

function write(path: string, names: number): ToolUse {
  return {
    tool: "Write",
    path,
    command: null,
    pattern: null,
    url: null,
    query: null,
    description: null,
    added: Array.from({ length: names }, (_, n) => `name_${n}`).join(" "),
    removed: null,
    isError: false,
    output: null,
  };
}

function turn(i: number, size: number, tools: ToolUse[] = []): LoadedTurn {
  return {
    id: i,
    originSessionId: "s",
    turnNumber: i,
    startedAt: T0 + i * 60_000,
    endedAt: T0 + i * 60_000 + 5000,
    user: `prompt ${i}`,
    assistant: `reply ${i} ${"å".repeat(size)}`,
    finalText: `reply ${i}`,
    details: [],
    tools,
    project: "/p",
  };
}

describe("recall --l2 --newer-tools (docs/contract.md#pulls-read-only)", () => {
  const window = Array.from({ length: 6 }, (_, i) => turn(i + 1, 3000));
  const newer = Array.from({ length: 4 }, (_, i) => turn(i + 7, 10, [write(`/p/mé${i}.ts`, 150)]));
  const req = { sessionId: "s", before: newer[0]!.startedAt, skip: 0, last: 6 };

  test("every page size holds its bound (with the CLI's newline) and still ends with its next-page line", () => {
    for (const max of [2_000, 3_000, 5_000, 8_000, 12_000, 24_000, 60_000]) {
      const out = renderRecallL2(req, window, "tl", undefined, max, newer);
      expect(utf8(out) + 1).toBeLessThanOrEqual(max);
      const last = out.trimEnd().split("\n").at(-1)!;
      if (out.includes("Next page (")) expect(last).toStartWith("Next page (");
      expect(out).toContain("## Tools of the 4 newer turns");
    }
  });

  test("with room, each newer turn's line is there, whole or cut to one shared length", () => {
    const out = renderRecallL2(req, window, "tl", undefined, 24_000, newer);
    for (const t of newer)
      expect(out).toContain(`] tools: created /p/mé${t.turnNumber - 7}.ts (name_0, name_1`);
  });

  test("fitLines: short lines stay whole, long ones share what is left; nothing under the minimum", () => {
    const lines = ["a".repeat(50), "b".repeat(5_000), "c".repeat(5_000)];
    const fitted = fitLines(lines, 2_000);
    expect(fitted[0]).toBe(lines[0]);
    expect(fitted[1]!.length).toBe(fitted[2]!.length);
    expect(fitted.reduce((n, l) => n + utf8(l) + 1, 0)).toBeLessThanOrEqual(2_000);
    expect(fitLines(lines, 100)).toEqual([]);
  });
});
