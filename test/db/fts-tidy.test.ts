/**
 * The Stop worker's merge step (db/queries/fts-deferral.ts `tidyIndexes`; docs/search.md, "Speed"):
 * turn after turn, each ingested in its own transaction as a Stop ingests it, the full-text indexes
 * stay in few segments with the step and keep more without it; the step loses no row, leaves each
 * index whole and changes no search result; during a bulk ingest it waits.
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { count, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestSession } from "../../src/capture/session.ts";
import { openForWrite } from "../../src/db/open.ts";
import { beginDeferral, endDeferral, tidyIndexes } from "../../src/db/queries/fts-deferral.ts";
import { USERMERGE } from "../../src/db/schema.ts";
import { INDEXES, indexState, queriesOf, searchOutputs, segmentsOf } from "../helpers/fts.ts";

const NOW = Date.parse("2026-06-01T00:00:00Z");
const TURNS = 160;

/** Turn `i` of a session: a prompt, a Bash call with its output, an edit and a reply. */
function addTurn(b: TranscriptBuilder, i: number): void {
  b.user(`turn ${i}: look at the ${["cart", "queue", "token", "schema"][i % 4]} handler number ${i * 7}`)
    .tool(
      "Bash",
      { command: `grep -rn handler${i} src/` },
      `src/h${i}.ts:${i}: export function handler${i}() {}`,
    )
    .tool("Edit", { file_path: `/home/dev/tidy/src/h${i}.ts`, old_string: "a", new_string: `b${i}` }, "ok")
    .say(
      `Changed handler${i}; the ${["billing", "logger", "render", "upload"][i % 4]} path now returns early.`,
    );
}

/** Each turn written and ingested as a Stop does, then `after` (the merge step, or nothing). */
function grow(dir: string, name: string, after: (db: Database) => void): { path: string; most: number[] } {
  const path = join(dir, `${name}.db`);
  const transcript = join(dir, `${name}.jsonl`);
  const b = new TranscriptBuilder("fts-tidy-0001", "/home/dev/tidy");
  const db = openForWrite(path);
  try {
    // FTS5's own merges come in waves: the most segments each index held after any turn.
    let most = [0, 0, 0];
    for (let i = 0; i < TURNS; i++) {
      addTurn(b, i);
      writeFileSync(transcript, b.text());
      ingestSession(db, {
        path: transcript,
        sessionId: "fts-tidy-0001",
        project: "/home/dev/tidy",
        now: NOW + i,
      });
      after(db);
      most = segmentsOf(db).map((n, k) => Math.max(n, most[k]!));
    }
    expect(count(db, "SELECT count(*) AS n FROM turns")).toBe(TURNS);
    return { path, most };
  } finally {
    db.close();
  }
}

describe("the Stop worker's merge step", () => {
  test("turn after turn it keeps each index in fewer segments, with the same rows and the same search results", async () => {
    using dir = tempDir("tl-fts-tidy-");
    const plain = grow(dir.path, "plain", () => {});
    const tidied = grow(dir.path, "tidied", (db) => tidyIndexes(db));
    // FTS5 alone (automerge 4) lets a level fill to four segments; the step merges a level at two.
    // (The events index of these turns stays small: its rows come from the edits alone.)
    for (let k = 0; k < 2; k++) expect(tidied.most[k]!).toBeLessThan(plain.most[k]!);
    for (const n of tidied.most) expect(n).toBeLessThanOrEqual(Math.ceil(Math.log2(TURNS)));
    // Whole (FTS5's integrity check), the same rows, and the same answers.
    expect(indexState(tidied.path)).toEqual(indexState(plain.path));
    const queries = queriesOf(plain.path, 8, 24);
    expect(queries.length).toBeGreaterThan(10);
    expect(await searchOutputs(tidied.path, queries)).toEqual(await searchOutputs(plain.path, queries));
    const db = openForWrite(tidied.path);
    try {
      for (const t of INDEXES)
        expect((db.query(`SELECT v FROM ${t}_config WHERE k = 'usermerge'`).get() as { v: number }).v).toBe(
          USERMERGE,
        );
    } finally {
      db.close();
    }
  }, 60_000);

  test("during a bulk ingest it merges nothing", () => {
    using dir = tempDir("tl-fts-tidy-deferral-");
    const { path } = grow(dir.path, "deferred", () => {});
    const db = openForWrite(path);
    try {
      const owner = { pid: process.pid, startedAt: NOW };
      const since = beginDeferral(db, owner, NOW);
      const before = segmentsOf(db);
      tidyIndexes(db, 10_000);
      expect(segmentsOf(db)).toEqual(before);
      endDeferral(db, owner, NOW, since);
      tidyIndexes(db);
      for (let k = 0; k < INDEXES.length; k++) expect(segmentsOf(db)[k]!).toBeLessThanOrEqual(before[k]!);
    } finally {
      db.close();
    }
  });
});
