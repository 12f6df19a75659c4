import { describe, expect, test } from "bun:test";
import { prng } from "../../harness/pull.ts";
import { parsePayload, readPayloadText } from "../../src/hooks/stdin.ts";

/** A stream that delivers `parts` and then stays open, as a client that never closes stdin. */
function openStream(parts: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(p);
    },
  });
}

/** Strings with everything that can fool an object-end tracker: escapes, braces, quotes, runs of backslashes. */
const TRICKY = [
  'a "quoted" word',
  "brace } and { and ] [",
  "backslash at the end \\",
  "two \\\\ and three \\\\\\",
  'escaped quote \\" then }',
  "newline\nand tab\t",
  "日本語 and 🎉",
  "",
];

function payload(rnd: () => number): string {
  const obj: Record<string, unknown> = { session_id: "s-stdin", cwd: "/tmp/x" };
  const n = 1 + Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) {
    const parts = Array.from(
      { length: 1 + Math.floor(rnd() * 4) },
      () => TRICKY[Math.floor(rnd() * TRICKY.length)]!,
    );
    obj[`k${i}`] =
      rnd() < 0.3 ? { nested: parts, deeper: [{ x: parts.join("") }] } : rnd() < 0.5 ? parts : parts.join("");
  }
  return JSON.stringify(obj);
}

describe("readPayloadText: the payload ends where its outermost object closes, stdin left open", () => {
  test("every split of one payload into two chunks", async () => {
    const text = payload(prng(7));
    const bytes = new TextEncoder().encode(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const got = await readPayloadText(openStream([bytes.subarray(0, cut), bytes.subarray(cut)]), 1000);
      expect(got).toBe(text);
      expect(parsePayload("stop", got).session_id).toBe("s-stdin");
    }
  });

  test("random payloads in random chunks, with trailing bytes after the object", async () => {
    const rnd = prng(11);
    for (let n = 0; n < 300; n++) {
      const text = payload(rnd);
      const bytes = new TextEncoder().encode(`${text}\n`);
      const parts: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; ) {
        const len = 1 + Math.floor(rnd() * 40);
        parts.push(bytes.subarray(at, at + len));
        at += len;
      }
      const got = await readPayloadText(openStream(parts), 1000);
      // The read stops at the chunk that closes the object: what follows it in that chunk is kept.
      expect(got.trimEnd()).toBe(text);
      expect(parsePayload("stop", got).session_id).toBe("s-stdin");
    }
  });

  test("an object still open (a string not closed, a brace inside a string) waits for the timeout", async () => {
    for (const partial of [
      '{"session_id":"s", "a": "still } open',
      '{"session_id":"s", "a": "\\"}"',
      '{"a": {"b": 1}',
    ]) {
      const got = await readPayloadText(openStream([new TextEncoder().encode(partial)]), 30);
      expect(got).toBe(partial);
      expect(() => parsePayload("stop", got)).toThrow("no complete JSON payload on stdin after 30 ms");
    }
  });
});
