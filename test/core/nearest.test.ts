/**
 * The words near a query word no row holds, and the query again with them (core/did-you-mean.ts,
 * docs/search.md "Nearest words").
 */
import { describe, expect, test } from "bun:test";
import { mayBeMistyped, nearestWords, withNearest } from "../../src/core/did-you-mean.ts";

describe("nearestWords", () => {
  const texts = [
    "export async function refreshAccessToken(session) { return refreshAccessToken(session.id) }",
    "refreshAccessTokens() batches; see src/auth/token.ts and src/auth/tokens.ts",
    "Prisma generated the client; the renderer and the render loop",
  ];

  test("a dropped, doubled or swapped letter finds the word the memory holds, most frequent first", () => {
    expect(nearestWords("refreshAcessToken", texts)).toEqual([
      { word: "refreshAccessToken", count: 2 },
      { word: "refreshAccessTokens", count: 1 },
    ]);
    // both one edit away and as frequent: alphabetical
    expect(nearestWords("rendrer", texts).map((w) => w.word)).toEqual(["render", "renderer"]);
    expect(nearestWords("Prsima", texts)).toEqual([{ word: "Prisma", count: 1 }]);
  });

  test("a path is compared whole, with its dots and slashes", () => {
    expect(nearestWords("src/auth/tokn.ts", texts).map((w) => w.word)).toEqual([
      "src/auth/token.ts",
      "src/auth/tokens.ts",
    ]);
  });

  test("never the word itself; nothing for a word too far from every word", () => {
    expect(nearestWords("renderer", texts)).toEqual([{ word: "render", count: 1 }]);
    expect(nearestWords("zyzzyva", texts)).toEqual([]);
    // three edits away is beyond a quarter of a 9-letter word
    expect(nearestWords("rxnxexrer", texts)).toEqual([]);
  });

  test("a different first letter is another word, not a typo", () => {
    expect(nearestWords("tenderer", texts)).toEqual([]);
  });

  test("short plain words are taken as meant: they have real words an edit away", () => {
    expect(mayBeMistyped("choke")).toBe(false);
    expect(nearestWords("choke", ["chose the chore"])).toEqual([]);
    // a name is looked into however short
    expect(mayBeMistyped("Prsma")).toBe(true);
    expect(mayBeMistyped("v0.4x")).toBe(true);
    expect(mayBeMistyped("migraton")).toBe(true);
  });

  test("at most `max`, ties by count then alphabetically", () => {
    const many = ["cache1 cache2 cache2 cache3 cache4"];
    expect(nearestWords("cache5", many, 2)).toEqual([
      { word: "cache2", count: 2 },
      { word: "cache1", count: 1 },
    ]);
  });
});

describe("withNearest", () => {
  test("each unheld word with a near word is replaced where it stands whole", () => {
    const unheld = [
      { term: "refreshAcessToken", near: [{ word: "refreshAccessToken", count: 2 }] },
      { term: "zyzzyva", near: [] },
    ];
    expect(withNearest(["where did we set refreshAcessToken", "zyzzyva"], unheld)).toEqual([
      "where did we set refreshAccessToken",
      "zyzzyva",
    ]);
    expect(withNearest(["tokn", "tokns"], [{ term: "tokn", near: [{ word: "token", count: 1 }] }])).toEqual([
      "token",
      "tokns",
    ]);
  });

  test("in one pass, every whole occurrence in any case; a word inside a path is the path's to replace", () => {
    const near = (word: string) => [{ word, count: 1 }];
    expect(
      withNearest(
        ["validaton", "src/validaton.ts"],
        [
          { term: "validaton", near: near("validation") },
          { term: "src/validaton.ts", near: near("src/validate.ts") },
        ],
      ),
    ).toEqual(["validation", "src/validate.ts"]);
    expect(
      withNearest(["Validaton, then validaton."], [{ term: "Validaton", near: near("validation") }]),
    ).toEqual(["validation, then validation."]);
    // a phrase is replaced where it first stands whole
    expect(
      withNearest(["the refresh tokn flow"], [{ term: "refresh tokn", near: near("refresh token") }]),
    ).toEqual(["the refresh token flow"]);
  });
  test("null when no unheld word has a near word: nothing to try", () => {
    expect(withNearest(["zyzzyva"], [{ term: "zyzzyva", near: [] }])).toBeNull();
    expect(withNearest(["cart"], [])).toBeNull();
  });
});
