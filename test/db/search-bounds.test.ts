/**
 * A chain-scoped search bounds its walk of each index by an id range holding every row of the
 * chain (docs/search.md, "Scopes"), read from the spans the writers keep per chain key (schema 15).
 * A search with them finds exactly what it finds without them: checked for every chain of a
 * database of interleaved projects, a fork, a merge and rows before a first prompt, on every
 * index, for long, short, several and missing terms, under small and large caps; and the spans
 * hold every row however the rows came: a replay, Stops one at a time rewriting the open turn, a
 * merge, a forget, and the migration that first fills them.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { replay } from "../../src/capture/replay.ts";
import { foldCase, type SearchKind, textMatch } from "../../src/core/search.ts";
import { caseFolds } from "../../src/core/snippet.ts";
import { openForWrite } from "../../src/db/open.ts";
import type { Scope } from "../../src/db/project.ts";
import { resolveChain } from "../../src/db/queries/chain.ts";
import { deleteSelection } from "../../src/db/queries/forget.ts";
import { mergeChain } from "../../src/db/queries/handoff.ts";
import { type SearchQuery, scopeBounds, searchCandidates } from "../../src/db/queries/search.ts";
import { MIGRATIONS } from "../../src/db/schema.ts";
import { rowsOutsideSpans, spannedRows } from "../helpers/spans.ts";

const KINDS: SearchKind[] = ["l2", "l3", "events"];
const A = "aaaaaaaa-0000-4000-8000-00000000b001";
const B = "bbbbbbbb-0000-4000-8000-00000000b002";
const C = "cccccccc-0000-4000-8000-00000000b003";
const FORK = "dddddddd-0000-4000-8000-00000000b004";
const LONE = "eeeeeeee-0000-4000-8000-00000000b005";

/** `turns` turns of shared words, each with a Bash call and an edit; `note`: a line before the first prompt. */
function session(b: TranscriptBuilder, tag: string, turns: number, note?: string): TranscriptBuilder {
  if (note) b.system("informational", { content: note });
  for (let i = 1; i <= turns; i++) {
    b.user(`${tag} step ${i}: tune the zebracache ab module`);
    b.tool("Bash", { command: `make zebracache-${tag}-${i}` }, i % 2 ? "zebracache ok" : "Error: ab failed");
    b.tool("Edit", { file_path: `/w/${tag}/src/m${i}.ts`, old_string: "a", new_string: "zebracache" }, "ok");
    b.say(`${tag} reply ${i}: zebracache tuned, step done.`);
    b.tick(60_000);
  }
  return b;
}

describe("search bounds", () => {
  let dir: ReturnType<typeof tempDir>;
  let db: Database;
  beforeAll(() => {
    dir = tempDir("tl-bounds-");
    db = openForWrite(join(dir.path, "tl.db"));
    const write = (id: string, b: TranscriptBuilder) => {
      const file = join(dir.path, `${id}.jsonl`);
      writeFileSync(file, b.text());
      return file;
    };
    // Replayed one file after another, as an import does, and then again interleaved in time:
    // the chains' id ranges overlap other sessions' rows.
    const a = session(
      new TranscriptBuilder(A, "/w/one", "2026-06-01T10:00:00.000Z"),
      "a",
      4,
      "a zebracache boot note",
    );
    const fork = session(a.fork(FORK, "2026-06-01T12:00:00.000Z"), "f", 2);
    const files = [
      write(A, a),
      write(
        B,
        session(new TranscriptBuilder(B, "/w/two", "2026-06-01T10:30:00.000Z"), "b", 5, "b zebracache note"),
      ),
      write(C, session(new TranscriptBuilder(C, "/w/one", "2026-06-01T11:00:00.000Z"), "c", 3)),
      write(FORK, fork),
      write(
        LONE,
        new TranscriptBuilder(LONE, "/w/one", "2026-06-01T13:00:00.000Z").system("informational", {
          content: "only a zebracache note",
        }),
      ),
    ];
    replay(db, files, { now: () => Date.parse("2026-06-02T00:00:00.000Z") });
    db.transaction(() => mergeChain(db, A, C))();
  });
  afterAll(() => {
    db.close();
    dir[Symbol.dispose]();
  });

  const chains = () =>
    (db.query("SELECT id FROM sessions ORDER BY id").all() as { id: string }[]).map((r) =>
      resolveChain(db, r.id),
    );
  const query = (scope: Scope, terms: string[], bounds?: SearchQuery["bounds"]): SearchQuery => ({
    scope,
    ...textMatch(terms, false, foldCase),
    folds: caseFolds(terms),
    ...(bounds !== undefined ? { bounds } : {}),
  });

  test("the database has what the cases need: rows before a first prompt, a fork, a merged chain", () => {
    expect(
      (db.query("SELECT count(*) AS n FROM details WHERE turn_id IS NULL").get() as { n: number }).n,
    ).toBeGreaterThan(0);
    expect(
      (db.query("SELECT count(*) AS n FROM sessions WHERE fork_uuid IS NOT NULL").get() as { n: number }).n,
    ).toBe(1);
    expect(resolveChain(db, A)).toBe(C);
  });

  test("the bounds hold every row of the scope, and are narrower than the table", () => {
    let narrower = 0;
    for (const live of new Set(chains()))
      for (const k of KINDS) {
        const scope: Scope = { kind: "chain", live };
        // No term: the scan of the scope's rows, all of them under this cap.
        const all = searchCandidates(db, k, query(scope, []), 1e9).candidates.map((c) => c.id);
        const bounds = scopeBounds(db, KINDS, scope)!.get(k)!;
        if (all.length === 0) expect(bounds).toBeNull();
        else {
          expect(bounds.lo).toBeLessThanOrEqual(Math.min(...all));
          expect(bounds.hi).toBeGreaterThanOrEqual(Math.max(...all));
        }
        const table = { l2: "bodies", l3: "details", events: "events" }[k];
        const span = db.query(`SELECT min(id) AS lo, max(id) AS hi FROM ${table}`).get() as {
          lo: number;
          hi: number;
        };
        if (bounds && (bounds.lo > span.lo || bounds.hi < span.hi)) narrower++;
      }
    expect(narrower).toBeGreaterThan(6);
    // One kind alone reads what it reads among the three.
    for (const live of new Set(chains()))
      for (const k of KINDS)
        expect(scopeBounds(db, [k], { kind: "chain", live })!.get(k)).toEqual(
          scopeBounds(db, KINDS, { kind: "chain", live })!.get(k)!,
        );
    expect(scopeBounds(db, KINDS, { kind: "project", project: "/w/one" })).toBeUndefined();
    expect(scopeBounds(db, KINDS, { kind: "all" })).toBeUndefined();
  });

  test("every chain, index, term and cap: the same candidates with the bounds as without", () => {
    const termSets = [
      ["zebracache"],
      ["step"],
      ["ab"],
      ["zebracache", "step"],
      ["error", "ab"],
      ["nowhere-xyz"],
      [],
    ];
    let compared = 0;
    let found = 0;
    for (const live of new Set(chains()))
      for (const k of KINDS) {
        const scope: Scope = { kind: "chain", live };
        const bounds = scopeBounds(db, KINDS, scope)!.get(k)!;
        for (const terms of termSets)
          for (const cap of [1, 2, 5, 200]) {
            const without = searchCandidates(db, k, query(scope, terms), cap);
            const withBounds = searchCandidates(db, k, query(scope, terms, bounds), cap);
            expect(withBounds).toEqual(without);
            compared++;
            found += without.candidates.length;
          }
      }
    expect(compared).toBe(4 * 3 * 7 * 4);
    expect(found).toBeGreaterThan(200);
  });

  test("the migration that first fills the spans gives what the writers keep", () => {
    expect(rowsOutsideSpans(db)).toEqual([]);
    const kept = db.query("SELECT * FROM chain_spans ORDER BY key, kind").all();
    expect(kept.length).toBeGreaterThan(8);
    const migration = MIGRATIONS[14] as string;
    db.run(
      "DROP TRIGGER bodies_span; DROP TRIGGER bodies_span_turn; DROP TRIGGER details_span; DROP TRIGGER details_span_turn; DROP TRIGGER events_span; DROP TABLE chain_spans",
    );
    db.run(migration);
    // The merge above moved A's rows under C's key: the migration reads them there too.
    expect(db.query("SELECT * FROM chain_spans ORDER BY key, kind").all()).toEqual(kept);
  });
});

describe("chain spans as the hooks write them", () => {
  test("Stops one at a time, a turn rewritten, a /clear merge and a forget: every row stays within its span", () => {
    using dir = tempDir("tl-spans-");
    const db = openForWrite(join(dir.path, "tl.db"));
    try {
      const file = join(dir.path, `${A}.jsonl`);
      const other = join(dir.path, `${B}.jsonl`);
      const a = new TranscriptBuilder(A, "/w/one", "2026-06-01T10:00:00.000Z");
      const b = new TranscriptBuilder(B, "/w/two", "2026-06-01T10:00:30.000Z");
      a.system("informational", { content: "a zebracache boot note" });
      // Two sessions written turn by turn, interleaved; each Stop reads the open turn again, whose
      // tool rows are rewritten when it grew (new ids above the old ones).
      for (let i = 1; i <= 4; i++) {
        for (const [tb, f, tag] of [
          [a, file, "a"],
          [b, other, "b"],
        ] as const) {
          tb.user(`${tag} step ${i}: tune the zebracache`);
          tb.tool("Bash", { command: `make z-${tag}-${i}` }, "zebracache ok");
          writeFileSync(f, tb.text());
          ingestTranscript(db, { path: f, now: Date.parse("2026-06-02T00:00:00.000Z") });
          tb.tool(
            "Edit",
            { file_path: `/w/${tag}/m${i}.ts`, old_string: "a", new_string: "zebracache" },
            "ok",
          );
          tb.say(`${tag} reply ${i}: zebracache tuned.`);
          tb.tick(60_000);
          writeFileSync(f, tb.text());
          ingestTranscript(db, { path: f, now: Date.parse("2026-06-02T00:00:00.000Z") });
        }
      }
      expect(rowsOutsideSpans(db)).toEqual([]);
      // B continues A's chain (what a /clear's SessionStart does): A's rows now count under B's key.
      db.transaction(() => mergeChain(db, A, B))();
      expect(resolveChain(db, A)).toBe(B);
      expect(rowsOutsideSpans(db)).toEqual([]);
      const scope: Scope = { kind: "chain", live: B };
      for (const k of KINDS) {
        const q = { scope, ...textMatch(["zebracache"], false, foldCase), folds: caseFolds(["zebracache"]) };
        const without = searchCandidates(db, k, q, 200);
        if (k !== "events") expect(without.candidates.length).toBeGreaterThan(0);
        expect(searchCandidates(db, k, { ...q, bounds: scopeBounds(db, [k], scope)!.get(k)! }, 200)).toEqual(
          without,
        );
      }
      db.run("DELETE FROM turns WHERE id = (SELECT min(id) FROM turns)");
      expect(rowsOutsideSpans(db)).toEqual([]);
      expect(spannedRows(db)).toBeGreaterThan(30);
      // A forget of everything leaves no span behind: a session id is not kept for nothing.
      const all = {
        session: null,
        before: Date.parse("2100-01-01T00:00:00.000Z"),
        project: null,
        match: null,
      };
      db.transaction(() => deleteSelection(db, all))();
      expect(db.query("SELECT count(*) AS n FROM turns").get()).toEqual({ n: 0 });
      expect(db.query("SELECT key, kind FROM chain_spans").all()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
