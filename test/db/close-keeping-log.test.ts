/**
 * A hook's writer closes without SQLite's close-time checkpoint (src/db/open.ts,
 * closeKeepingLog; docs/benchmarks.md): its commit stays in the WAL, where every reader finds
 * it, the database file is left as it was, the WAL stays under its bound (every later open reads
 * it again), and a CLI writer's ordinary close folds it in.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { fileDigest } from "../../harness/pull.ts";
import { KEPT_LOG_MAX_BYTES, openForRead, openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";

const editPayload = (i: number, dir: string) =>
  JSON.stringify({
    session_id: "kl-1",
    transcript_path: join(dir, "kl-1.jsonl"),
    cwd: dir,
    hook_event_name: "PostToolUse",
    tool_name: "Edit",
    tool_input: { file_path: `${dir}/src/f${i}.ts`, old_string: "a", new_string: `b${i}` },
    tool_response: { filePath: `${dir}/src/f${i}.ts`, structuredPatch: [{ lines: ["-a", `+b${i}`] }] },
    tool_use_id: `toolu_keep_${i}`,
  });

describe("a hook's writer leaves its commit in the WAL", () => {
  test("the database file is untouched, readers see the commit, integrity holds", async () => {
    using dir = tempDir("tl-keeplog-");
    const db = join(dir.path, "tl.db");
    const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir.path, HOME: dir.path };
    openForWrite(db).close(); // a CLI writer: its close checkpoints and removes the WAL
    expect(existsSync(`${db}-wal`)).toBe(false);
    const file = fileDigest(db);
    expect((await runHook("post-tool-use", editPayload(1, dir.path), env)).exitCode).toBe(0);
    expect(fileDigest(db)).toBe(file);
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    const r = openForRead(db);
    try {
      expect(r.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      expect(r.query("SELECT tool_use_id FROM events").all()).toEqual([{ tool_use_id: "toolu_keep_1" }]);
    } finally {
      r.close();
    }
    // The next CLI writer's close (the last connection) folds the WAL into the file.
    openForWrite(db).close();
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(fileDigest(db)).not.toBe(file);
  });

  test("the WAL stays under its bound over many hooks: past it, a hook closes with the checkpoint", async () => {
    using dir = tempDir("tl-keeplog-");
    const db = join(dir.path, "tl.db");
    const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: dir.path, HOME: dir.path };
    openForWrite(db).close();
    let peak = 0;
    let kept = 0;
    let folded = 0;
    for (let i = 0; i < 400; i++) {
      expect((await runHook("post-tool-use", editPayload(i, dir.path), env)).exitCode).toBe(0);
      const size = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
      if (size > 0) kept++;
      else folded++;
      peak = Math.max(peak, size);
    }
    // Most hooks leave their commit in the WAL; every few, one folds it in and removes it.
    expect(kept).toBeGreaterThan(300);
    expect(folded).toBeGreaterThan(3);
    // The bound and the commit that crossed it (one PostToolUse writes a few pages).
    expect(peak).toBeLessThan(KEPT_LOG_MAX_BYTES + 64 * 4096);
    expect(statSync(db).size).toBeGreaterThan(100 * 4096); // checkpoints did reach the file
    const r = openForRead(db);
    try {
      expect(r.query("SELECT count(*) AS n FROM events").get()).toEqual({ n: 400 });
    } finally {
      r.close();
    }
  }, 60_000);
});
