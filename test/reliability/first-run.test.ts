import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { childEnv, finished, SCALE } from "./harness.ts";

const PROCESSES = 8;
const ROUNDS = 20 * SCALE;
const CALLS = 6; // two turns each: post-tool-use, subagent-stop, stop

/** One window's first minute on a fresh machine: SessionStart, its first prompt, two turns. */
function firstRun(home: string, work: string, index: number, go: string) {
  const script = `const { runHook } = await import(${JSON.stringify(join(import.meta.dir, "../../src/hooks/run.ts"))});
    const { runWorkload, sessionOf } = await import(${JSON.stringify(join(import.meta.dir, "writer.ts"))});
    // All at once: each waits, its code loaded, until every one is ready.
    const fs = require("node:fs");
    fs.writeFileSync(${JSON.stringify(work)} + "/ready-${index}", "");
    while (!fs.existsSync(${JSON.stringify(go)})) Bun.sleepSync(1);
    const sid = sessionOf(${index});
    const base = { session_id: sid, transcript_path: ${JSON.stringify(work)} + "/" + sid + ".jsonl", cwd: "/home/dev/writer-${index}" };
    const fails = [];
    for (const [event, extra] of [["session-start", { source: "startup" }], ["user-prompt-submit", { prompt: "hello" }]]) {
      const out = await runHook(event, JSON.stringify({ ...base, hook_event_name: event, ...extra }), process.env);
      if (out.exitCode !== 0) fails.push(out.stderr);
    }
    fails.push(...(await runWorkload(${JSON.stringify(work)}, ${index}, ${CALLS}, process.env)));
    for (const f of fails) process.stderr.write(f);
    process.exitCode = fails.length ? 1 : 0;`;
  return Bun.spawn(["bun", "-e", script], {
    env: childEnv({ THROUGHLINE_HOME: home }),
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe("the first run under parallel windows (reliability tier)", () => {
  test(`${PROCESSES} processes creating a fresh home at once, ${ROUNDS} times: no error, every write present`, async () => {
    using dir = tempDir("tl-first-");
    for (let round = 0; round < ROUNDS; round++) {
      const home = join(dir.path, `home-${round}`, "tl"); // not there yet: the first writer makes it
      const work = join(dir.path, `work-${round}`);
      mkdirSync(work, { recursive: true });
      const go = join(work, "go");
      const procs = Array.from({ length: PROCESSES }, (_, i) => firstRun(home, work, i, go));
      while (readdirSync(work).filter((f) => f.startsWith("ready-")).length < PROCESSES) await Bun.sleep(5);
      writeFileSync(go, "");
      const results = await Promise.all(procs.map(finished));
      expect({ round, stderr: results.map((r) => r.stderr).join("") }).toEqual({ round, stderr: "" });
      expect(results.map((r) => r.exitCode)).toEqual(Array(PROCESSES).fill(0));
      const db = new Database(join(home, "throughline.db"), { readonly: true });
      try {
        const n = (sql: string) => (db.query(sql).get() as { n: number }).n;
        expect({ round, errors: n("SELECT count(*) n FROM hook_errors") }).toEqual({ round, errors: 0 });
        expect(n("SELECT count(*) n FROM sessions")).toBe(PROCESSES);
        expect(n("SELECT count(*) n FROM turns")).toBe(PROCESSES * (CALLS / 3));
        expect(n("SELECT count(*) n FROM sqlite_master WHERE name = 'bodies_fts'")).toBe(1);
      } finally {
        db.close();
      }
    }
  }, 600_000);
});
