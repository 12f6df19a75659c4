/**
 * A prompt that hands nothing over is answered without writing: neither the database file nor
 * its WAL changes (docs/benchmarks.md). The first prompt, a `/tl` and a pending handoff still
 * take the write path.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { fileDigest } from "../../harness/pull.ts";
import { runHook } from "../../src/hooks/run.ts";

describe("user-prompt-submit with nothing to hand over", () => {
  test("writes nothing: same database and WAL bytes; /tl still stores its baton", async () => {
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
    // The hook's commit waits in the WAL for a later checkpoint (src/db/open.ts, closeKeepingLog).
    const state = () => [fileDigest(db), existsSync(`${db}-wal`) ? fileDigest(`${db}-wal`) : "no wal"];
    const before = state();
    for (const p of ["second", "third, a longer one"]) {
      const out = await prompt(p);
      expect(out).toEqual({ exitCode: 0, stdout: "", stderr: "" });
      expect(state()).toEqual(before);
    }
    // A baton is a write: the normal path runs and stores it.
    expect((await prompt("/tl")).exitCode).toBe(0);
    expect(state()).not.toEqual(before);
    expect(Buffer.concat([readFileSync(db), readFileSync(`${db}-wal`)]).includes(Buffer.from("q-1"))).toBe(
      true,
    );
  });
});
