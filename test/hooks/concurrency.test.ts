import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { count, REPO, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";

// docs/contract.md#reliability: several sessions' hooks write at once; none is lost, none fails with "database is locked".
describe("concurrent writers", () => {
  test("8 sessions' Stop hooks at the same moment all land", async () => {
    using dir = tempDir();
    const env = { ...process.env, THROUGHLINE_DB: join(dir.path, "tl.db"), THROUGHLINE_DETACH: "0" };
    const payloads = Array.from({ length: 8 }, (_, i) => {
      const id = `dddddddd-0000-4000-8000-00000000000${i}`;
      const b = new TranscriptBuilder(id, `/home/dev/p${i}`);
      for (let t = 1; t <= 5; t++)
        b.user(`p${i} prompt ${t}`).tool("Bash", { command: "bun test" }, `${t} pass`).say(`p${i} done ${t}`);
      const path = join(dir.path, `${id}.jsonl`);
      writeFileSync(path, b.text());
      return JSON.stringify({
        session_id: id,
        transcript_path: path,
        cwd: `/home/dev/p${i}`,
        hook_event_name: "Stop",
      });
    });
    const procs = payloads.map((p) =>
      Bun.spawn(["bun", join(REPO, "src", "cli.ts"), "hook", "stop"], {
        stdin: Buffer.from(p),
        env,
        stderr: "pipe",
      }),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    const errs = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect(codes).toEqual(Array(8).fill(0));
    expect(errs.join("")).toBe("");
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect(count(db, "SELECT count(*) n FROM turns")).toBe(40);
    expect(count(db, "SELECT count(DISTINCT origin_session_id) n FROM turns")).toBe(8);
    expect(count(db, "SELECT count(*) n FROM hook_errors")).toBe(0);
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();
  }, 60_000);
});
