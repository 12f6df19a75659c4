/**
 * core/query.ts reads ASCII queries with ASCII twins of its Unicode classes (a Unicode property
 * class is slow to compile in a cold process). In ASCII, each twin must match exactly what its
 * Unicode class matches: every character alone, and generated words at their edges.
 */
import { describe, expect, test } from "bun:test";
import { ASCII_TWINS, identifierParts, parseQuery } from "../../src/core/query.ts";

const ASCII_CHARS = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).concat([
  "\t",
  "\n",
  "\r",
]);

describe("ASCII twins of the query's Unicode classes", () => {
  test("each twin matches the same ASCII characters as its Unicode class", () => {
    for (const [name, { ascii, any }] of Object.entries(ASCII_TWINS))
      for (const ch of ASCII_CHARS) {
        const a = new RegExp(ascii.source, ascii.flags.replace("g", ""));
        const u = new RegExp(any.source, any.flags.replace("g", ""));
        expect([name, ch, a.test(ch)]).toEqual([name, ch, u.test(ch)]);
      }
  });

  test("generated tokens trim and split alike by either class", () => {
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const edges = ASCII_TWINS.tokenEdges;
    for (let i = 0; i < 5_000; i++) {
      const w = Array.from(
        { length: 1 + Math.floor(next() * 10) },
        () => ASCII_CHARS[Math.floor(next() * 95)]!,
      ).join("");
      expect(w.replace(edges.ascii, "")).toBe(w.replace(edges.any, ""));
      expect(w.split(ASCII_TWINS.notAlnum.ascii)).toEqual(w.split(ASCII_TWINS.notAlnum.any));
    }
  });

  test("a query reads the same either way: ASCII words beside a non-ASCII word", () => {
    expect(identifierParts("refreshAccessToken")).toEqual(["refresh", "Access", "Token"]);
    const plain = parseQuery(["why did the users_migration fail?"]).map((t) => t.text);
    // The same words with a non-ASCII word added take the Unicode path for the whole argument.
    const mixed = parseQuery(["why did the users_migration fail? é"]).map((t) => t.text);
    expect(mixed.slice(0, plain.length)).toEqual(plain);
  });
});
