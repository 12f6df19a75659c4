import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { memoryHash, tempDb } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { FINAL_TEXT } from "../../src/db/row-forms.ts";

// The ingest cursor is validated by the content before it, not by the file's inode
// (docs/benchmarks.md, "Where a Stop resumes"). These tests count bytes consumed and rows written,
// never time.

const ID = "cccccccc-0000-4000-8000-000000000060";

function sixtyTurns(): TranscriptBuilder {
  const b = new TranscriptBuilder(ID);
  for (let i = 1; i <= 60; i++) {
    b.user(`Step ${i}: update module ${i % 7}`);
    b.tool("Read", { file_path: `/p/m${i % 7}.ts` }, `// module ${i}\n${"x".repeat(2000)}`);
    b.say(`Module ${i % 7} updated (${i}).`);
  }
  return b;
}

/** Rows inserted, updated or deleted since the connection opened. */
const changes = (db: Database) => (db.query("SELECT total_changes() AS n").get() as { n: number }).n;

/** Replace `path` by a new file (a new inode) holding `bytes`, as a restore or a sync tool does. */
function replaceFile(path: string, bytes: Uint8Array | string): void {
  writeFileSync(`${path}.tmp`, bytes);
  renameSync(`${path}.tmp`, path);
}

describe("ingest cursor", () => {
  test("a transcript replaced by a byte-identical copy (new inode) is not read again", () => {
    using t = tempDb();
    const path = join(t.dir, `${ID}.jsonl`);
    const b = sixtyTurns();
    writeFileSync(path, b.text());
    expect(ingestTranscript(t.db, { path, now: 1 }).turns).toBe(60);
    const before = memoryHash(t.db);
    const inode = statSync(path).ino;

    replaceFile(path, readFileSync(path));
    expect(statSync(path).ino).not.toBe(inode);
    const rowsBefore = changes(t.db);
    const again = ingestTranscript(t.db, { path, now: 2 });
    expect(again.turns).toBe(0);
    expect(again.bytes).toBe(0);
    expect(changes(t.db) - rowsBefore).toBe(0);
    expect(memoryHash(t.db)).toBe(before);

    // The next Stop after the copy reads only the open turn and the new one.
    const size = statSync(path).size;
    b.user("Step 61: one more").say("Done (61).");
    appendFileSync(path, b.text().slice(size));
    const next = ingestTranscript(t.db, { path, now: 3 });
    expect(next.turns).toBe(2);
    expect(next.bytes).toBe(statSync(path).size - size);
  });

  test("a copy that grew while it was away resumes from the cursor", () => {
    using t = tempDb();
    const path = join(t.dir, `${ID}.jsonl`);
    const b = sixtyTurns();
    writeFileSync(path, b.text());
    ingestTranscript(t.db, { path, now: 1 });
    const size = statSync(path).size;
    b.user("Step 61: one more").say("Done (61).");
    replaceFile(path, b.text());
    const r = ingestTranscript(t.db, { path, now: 2 });
    expect(r.turns).toBe(2); // the re-read open turn and the new one
    expect(r.bytes).toBe(statSync(path).size - size);
  });

  test("a new file whose earlier bytes changed is read again from byte 0", () => {
    using t = tempDb();
    const path = join(t.dir, `${ID}.jsonl`);
    writeFileSync(path, sixtyTurns().text());
    ingestTranscript(t.db, { path, now: 1 });
    // Same length, one early prompt edited: only the content tells the files apart.
    const edited = readFileSync(path, "utf8").replace("Step 3: update module 3", "Step 3: rework module 3");
    replaceFile(path, edited);
    const r = ingestTranscript(t.db, { path, now: 2 });
    expect(r.bytes).toBe(statSync(path).size);
    expect(r.turns).toBe(60);
    const prompt = t.db
      .query(
        "SELECT b.text FROM bodies b JOIN turns t ON t.id = b.turn_id WHERE t.turn_number = 3 AND b.role = 'user'",
      )
      .get();
    expect(prompt).toEqual({ text: "Step 3: rework module 3" });
  });

  test("the same file edited in place before the cursor is read again too", () => {
    using t = tempDb();
    const path = join(t.dir, `${ID}.jsonl`);
    writeFileSync(path, sixtyTurns().text());
    ingestTranscript(t.db, { path, now: 1 });
    const inode = statSync(path).ino;
    // Edited in place just before the cursor, same length: the bytes checked on every run see it.
    writeFileSync(
      path,
      readFileSync(path, "utf8").replace("Module 4 updated (60).", "Module 4 updated [60]."),
    );
    expect(statSync(path).ino).toBe(inode);
    const r = ingestTranscript(t.db, { path, now: 2 });
    expect(r.bytes).toBe(statSync(path).size);
    const answer = t.db
      .query(
        `SELECT ${FINAL_TEXT("b")} AS final_text FROM bodies b JOIN turns t ON t.id = b.turn_id WHERE t.turn_number = 60 AND b.role = 'assistant'`,
      )
      .get();
    expect(answer).toEqual({ final_text: "Module 4 updated [60]." });
  });

  test("a cursor saved before fingerprints (device and inode) still resumes on the same file", () => {
    using t = tempDb();
    const path = join(t.dir, `${ID}.jsonl`);
    const b = sixtyTurns();
    writeFileSync(path, b.text());
    ingestTranscript(t.db, { path, now: 1 });
    const st = statSync(path);
    t.db
      .query("UPDATE ingest_cursors SET identity = $id WHERE transcript_path = $path")
      .run({ id: `${st.dev}:${st.ino}`, path });
    b.user("Step 61: one more").say("Done (61).");
    appendFileSync(path, b.text().slice(st.size));
    const r = ingestTranscript(t.db, { path, now: 2 });
    expect(r.bytes).toBe(statSync(path).size - st.size);
    // It now carries a fingerprint: a byte-identical copy is recognised from here on.
    replaceFile(path, readFileSync(path));
    expect(ingestTranscript(t.db, { path, now: 3 }).bytes).toBe(0);
  });
});
