/**
 * The activity index on real transcripts (docs/activity.md), counted independently from the raw JSONL:
 * every successful file-changing call is one file_edit/file_create event, every successful
 * Bash `git commit` one git_commit event, and every failed tool result has an error event.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_TRANSCRIPTS, corpusTranscripts, tempDb } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";

const DIR = CORPUS_TRANSCRIPTS;
const present = existsSync(DIR);
const files = corpusTranscripts();

const FILE_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
/** `git commit`, allowing git's global options (`-C dir`, `-c k=v`, `--no-pager`) before it. */
const GIT_COMMIT = /(?:^|[\s;&|("'`])git\s+(?:(?:-C|-c)\s+\S+\s+|--[\w-]+(?:=\S+)?\s+)*commit(?![\w-])/;

interface RawCall {
  name: string;
  command: string;
  error: boolean | null; // null: no result in the file
}

/** tool_use id → call and outcome, straight from the JSONL lines (first use, first result). */
function rawCalls(path: string): Map<string, RawCall> {
  const calls = new Map<string, RawCall>();
  const results = new Map<string, boolean>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    let e: { message?: { content?: unknown } };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const content = e?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as Record<string, unknown>[]) {
      if (b?.type === "tool_use" && typeof b.id === "string" && !calls.has(b.id)) {
        const input = (b.input ?? {}) as Record<string, unknown>;
        calls.set(b.id, {
          name: String(b.name),
          command: typeof input.command === "string" ? input.command : "",
          error: null,
        });
      } else if (
        b?.type === "tool_result" &&
        typeof b.tool_use_id === "string" &&
        !results.has(b.tool_use_id)
      ) {
        results.set(b.tool_use_id, b.is_error === true);
      }
    }
  }
  for (const [id, err] of results) {
    const c = calls.get(id);
    if (c) c.error = err;
  }
  return calls;
}

describe.skipIf(!present)("activity index over the corpus", () => {
  let env: ReturnType<typeof tempDb>;
  let db: Database;
  beforeAll(() => {
    env = tempDb();
    db = env.db;
    replay(db, [DIR]);
  }, 120_000);
  afterAll(() => env?.[Symbol.dispose]());

  const eventsOf = (type: string, ids: string[]) =>
    (
      db
        .query(
          "SELECT count(*) AS n FROM events WHERE type = $type AND tool_use_id IN (SELECT value FROM json_each($ids))",
        )
        .get({ type, ids: JSON.stringify(ids) }) as { n: number }
    ).n;

  for (const f of files) {
    test(f, () => {
      const calls = [...rawCalls(join(DIR, f)).entries()];
      const ids = calls.map(([id]) => id);
      const ok = calls.filter(([, c]) => c.error === false);

      const edits = ok.filter(([, c]) => FILE_TOOLS.has(c.name)).length;
      expect(eventsOf("file_edit", ids) + eventsOf("file_create", ids)).toBe(edits);

      const commits = ok.filter(([, c]) => c.name === "Bash" && GIT_COMMIT.test(c.command)).length;
      expect(eventsOf("git_commit", ids)).toBe(commits);

      const failed = calls.filter(([, c]) => c.error === true).map(([id]) => id);
      const covered = new Set(
        (
          db
            .query(
              "SELECT DISTINCT tool_use_id AS id FROM events WHERE type = 'error' AND tool_use_id IN (SELECT value FROM json_each($ids))",
            )
            .all({ ids: JSON.stringify(failed) }) as { id: string }[]
        ).map((r) => r.id),
      );
      expect(failed.filter((id) => !covered.has(id))).toEqual([]);
    });
  }

  test("the corpus yields every event type it has evidence for", () => {
    const types = (
      db.query("SELECT DISTINCT type FROM events ORDER BY type").all() as { type: string }[]
    ).map((r) => r.type);
    for (const t of [
      "file_edit",
      "file_create",
      "git_commit",
      "test_run",
      "error",
      "decision",
      "phase_change",
    ])
      expect(types).toContain(t);
    for (const r of db.query("SELECT summary FROM events").all() as { summary: string }[]) {
      expect(r.summary.length).toBeLessThanOrEqual(120);
      expect(r.summary).not.toContain("\n");
    }
  });
});
