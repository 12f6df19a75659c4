/**
 * Synonyms are other words (docs/search.md, "Query rules"): each must begin a word where it is
 * found, and the table holds no short word that is mostly the start of unrelated ones. And a query
 * word with a NUL in it is two words.
 */
import { describe, expect, test } from "bun:test";
import { foldCase } from "../../src/core/fts-terms.ts";
import { parseQuery, termHeld } from "../../src/core/query.ts";

const held = (word: string, text: string) => termHeld(text, foldCase(text), parseQuery([word])[0]!);

describe("synonyms", () => {
  test("a synonym begins a word: redis for database, not inside predis", () => {
    const [database] = parseQuery(["database"]);
    const synonyms = database!.forms.filter((f) => f.synonym);
    expect(synonyms.map((f) => f.s)).toContain("redis");
    expect(synonyms.every((f) => f.start)).toBe(true);
    expect(held("database", "the redis cache")).toBe(true);
    expect(held("database", "the predis client")).toBe(false);
  });
  test("no short synonym that starts unrelated words (ide: identifier, ram: random, cert: certainly)", () => {
    expect(held("editor", "each identifier and idea")).toBe(false);
    expect(held("memory", "a random ramp")).toBe(false);
    expect(held("certificate", "certainly")).toBe(false);
    expect(held("editor", "opened it in vscode")).toBe(true);
  });
});

describe("a NUL in a query", () => {
  test("is a space: SQLite would read the index query cut short (the web view's q=%00)", () => {
    const terms = parseQuery(["ab\u0000cdef"]);
    expect(terms.map((t) => t.text)).toContain("cdef");
    expect(terms.flatMap((t) => [t.text, ...t.forms.map((f) => f.s)]).join("")).not.toContain("\u0000");
  });
});
