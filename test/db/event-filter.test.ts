/**
 * How a keyword query reads the events (src/db/queries/events.ts): outside a chain a type word
 * narrows the index match itself (withTypes); inside a chain spanning few ids a typed query
 * scans the chain instead of the index. Either way the events found are exactly those a plain
 * filter over every event finds, whatever words their text holds.
 */
import { describe, expect, test } from "bun:test";
import { tempDb } from "../../harness/db.ts";
import type { EventType } from "../../src/core/events.ts";
import { textMatch } from "../../src/core/search.ts";
import {
  COUNT_CAP,
  countEvents,
  DIRECT_SCAN_SPAN,
  insertEvents,
  listEvents,
  rankCandidates,
  rankRows,
  scopeIds,
} from "../../src/db/queries/events.ts";

const WORDS = ["auth", "token", "error", "commit", "file_edit", "login", "cache"];
const TYPES: EventType[] = ["error", "file_edit", "git_commit", "test_run", "decision"];

/** A small deterministic generator: a failure names data that can be made again. */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}

/** An event of a random type whose text mentions random words, other types' among them. */
function randomDraft(next: (n: number) => number, i: number) {
  return {
    type: TYPES[next(TYPES.length)]!,
    ts: 1_700_000_000_000 + i,
    summary: Array.from({ length: 3 }, () => WORDS[next(WORDS.length)]).join(" "),
    detail: { note: WORDS[next(WORDS.length)]! },
    toolName: null,
    toolUseId: `toolu_f_${i}`,
  };
}

describe("type words in keyword queries", () => {
  test("project and all scopes: the same events as a filter over every event", () => {
    using t = tempDb();
    const next = generator(3);
    // Texts that mention other types' words too ("error" in a commit, "file_edit" in an error).
    const drafts = Array.from({ length: 600 }, (_, i) => randomDraft(next, i));
    insertEvents(t.db, { sessionId: "s-1", originSessionId: "s-1", project: "/p", turnNumber: 1 }, drafts);
    for (const scope of [{ kind: "project", project: "/p" } as const, { kind: "all" } as const])
      for (const types of [["error"], ["git_commit", "file_edit"], ["decision"]] as EventType[][])
        for (const word of ["auth", "error", "file_edit", "cache"]) {
          const filter = { scope, types, from: null, to: null, ...textMatch([word]) };
          const expected = drafts
            .filter(
              (d) =>
                types.includes(d.type) &&
                `${d.type} ${d.summary}\n${JSON.stringify(d.detail)}`.includes(word),
            )
            .map((d) => d.toolUseId)
            .reverse();
          expect(countEvents(t.db, filter)).toBe(Math.min(expected.length, COUNT_CAP + 1));
          expect(listEvents(t.db, filter, 1000).map((r) => r.tool_use_id)).toEqual(expected);
        }
  });

  test("chains: scanned when they span few ids, looked up in the index when they span many, the same events", () => {
    using t = tempDb();
    const next = generator(11);
    let n = 0;
    const draft = () => randomDraft(next, n++);
    const put = (chain: string, count: number) => {
      const drafts = Array.from({ length: count }, draft);
      insertEvents(t.db, { sessionId: chain, originSessionId: chain, project: "/p", turnNumber: 1 }, drafts);
      return drafts;
    };
    // "wide" has events on both sides of many others: its ids span more than DIRECT_SCAN_SPAN.
    const { wide, narrow } = t.db.transaction(() => {
      const first = put("wide", 200);
      put("filler", DIRECT_SCAN_SPAN + 100);
      return { wide: [...first, ...put("wide", 200)], narrow: put("narrow", 300) };
    })();
    for (const [live, drafts] of [
      ["wide", wide],
      ["narrow", narrow],
    ] as const) {
      const scope = { kind: "chain", live } as const;
      const ids = scopeIds(t.db, scope);
      expect(ids !== null && ids.hi - ids.lo >= DIRECT_SCAN_SPAN).toBe(live === "wide");
      for (const types of [["error"], ["git_commit", "file_edit"], null] as (EventType[] | null)[])
        for (const word of ["auth", "error", "cache"]) {
          const filter = { scope, ids, types, from: null, to: null, ...textMatch([word]) };
          const expected = drafts
            .filter(
              (d) =>
                (types === null || types.includes(d.type)) &&
                `${d.type} ${d.summary}\n${JSON.stringify(d.detail)}`.includes(word),
            )
            .map((d) => d.toolUseId)
            .reverse();
          expect(countEvents(t.db, filter)).toBe(Math.min(expected.length, COUNT_CAP + 1));
          expect(listEvents(t.db, filter, 1000).map((r) => r.tool_use_id)).toEqual(expected);
          expect(
            new Set(rankRows(filter, rankCandidates(t.db, filter), [word], 1000).map((r) => r.tool_use_id)),
          ).toEqual(new Set(expected));
        }
    }
  }, 60_000);
});
