/**
 * A prompt that hands nothing over is answered from a read-only look: the database file is
 * not written and no WAL is created (docs/benchmarks.md). The first prompt, a `/tl` and a
 * pending handoff still take the write path.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "../../src/hooks/run.ts";
import { tempDir } from "../helpers/db.ts";
import { fileDigest } from "../helpers/pull.ts";

describe("user-prompt-submit with nothing to hand over", () => {
  test("writes nothing: same database bytes, no -wal; /tl still stores its baton", async () => {
    using dir = tempDir("tl-quiet-");
    const db = join(dir.path, "tl.db");
    const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir.path, HOME: dir.path };
    const base = { session_id: "q-1", transcript_path: join(dir.path, "q.jsonl"), cwd: dir.path };
    const prompt = (p: string) =>
      runHook(
        "user-prompt-submit",
        JSON.stringify({ ...base, hook_event_name: "UserPromptSubmit", prompt: p }),
        env,
      );
    expect(
      (await runHook("session-start", JSON.stringify({ ...base, source: "startup" }), env)).exitCode,
    ).toBe(0);
    expect((await prompt("first")).exitCode).toBe(0); // consumes the pending row: the write path
    expect(existsSync(`${db}-wal`)).toBe(false); // the last writer checkpointed and removed it
    const before = fileDigest(db);
    for (const p of ["second", "third, a longer one"]) {
      const out = await prompt(p);
      expect(out).toEqual({ exitCode: 0, stdout: "", stderr: "" });
      expect(existsSync(`${db}-wal`)).toBe(false);
      expect(fileDigest(db)).toBe(before);
    }
    // A baton is a write: the normal path runs and stores it.
    expect((await prompt("/tl")).exitCode).toBe(0);
    expect(fileDigest(db)).not.toBe(before);
    expect(readFileSync(db).includes(Buffer.from("q-1"))).toBe(true);
  });
});
