import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rng } from "../../harness/cuts.ts";
import { FIXTURES, memoryHash, SAMPLE, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { runHook } from "../../src/hooks/run.ts";
import { CLI, childEnv, corpusFiles, finished, killReplayAndStop, SCALE } from "./harness.ts";

const PARALLEL = 8;
const KILLS = 20 * SCALE;

/**
 * Integrity alone: a kill before the schema was created leaves a valid database with no
 * tables, and one during creation (before WAL is on) a hot journal that only a writer may roll
 * back, as the next writer does.
 */
function integrityOf(path: string): unknown {
  const db = new Database(path);
  try {
    return db.query("PRAGMA integrity_check").get();
  } finally {
    db.close();
  }
}

function hashOf(path: string): { hash: string; integrity: unknown } {
  const db = new Database(path, { readonly: true });
  try {
    return { hash: memoryHash(db), integrity: db.query("PRAGMA integrity_check").get() };
  } finally {
    db.close();
  }
}

/** The project's fixtures, and two recorded sessions with their subagents (every corpus file at a larger scale). */
function replayInputs(): string[] {
  const corpus = corpusFiles().filter((f) => SCALE > 1 || /spotter-(258c7280|ae4a77f8)/.test(f));
  return [join(FIXTURES, "transcripts"), SAMPLE, ...corpus];
}

describe("replay in parallel and writers killed mid-way (docs/testing.md, reliability tier)", () => {
  test(`${PARALLEL} parallel replays of the same files hold what one replay holds`, async () => {
    using dir = tempDir("tl-prep-");
    const inputs = replayInputs();
    const seq = openForWrite(join(dir.path, "seq.db"));
    replay(seq, inputs);
    const want = memoryHash(seq);
    seq.close();
    const par = join(dir.path, "par.db");
    const runs = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        finished(
          Bun.spawn(
            ["bun", CLI, "replay", ...(i % 2 ? [...inputs].reverse() : inputs), "--json", "--db", par],
            {
              env: childEnv({}),
              stdout: "pipe",
              stderr: "pipe",
            },
          ),
        ),
      ),
    );
    expect(runs.map((r) => r.stderr).join("")).toBe("");
    expect(runs.map((r) => r.exitCode)).toEqual(Array(PARALLEL).fill(0));
    expect(hashOf(par)).toEqual({ hash: want, integrity: { integrity_check: "ok" } });
  }, 120_000);

  /** A session that grows by a turn (and a subagent step) before every run. */
  function growing(dir: string) {
    const sid = "99999999-0000-4000-8000-000000000001";
    const path = join(dir, `${sid}.jsonl`);
    const agentDir = join(dir, sid, "subagents");
    mkdirSync(agentDir, { recursive: true });
    const agent = join(agentDir, "agent-k1.jsonl");
    writeFileSync(path, "");
    writeFileSync(agent, "");
    const b = new TranscriptBuilder(sid, "/home/dev/crash");
    let written = 0;
    let n = 0;
    return {
      sid,
      path,
      grow() {
        n++;
        // A large tool output, so that each run spends most of its time writing.
        b.user(`crash prompt ${n}`).tool(
          "Bash",
          { command: `bun test ${n}` },
          `${n} pass ${"log line ".repeat(40_000)}`,
        );
        b.say(`crash answer ${n} ${"word ".repeat(200)}`);
        const text = b.text();
        appendFileSync(path, text.slice(written));
        written = text.length;
        appendFileSync(
          agent,
          `${JSON.stringify({ type: "assistant", isSidechain: true, agentId: "k1", sessionId: sid, uuid: `k1-${n}`, timestamp: b.time, message: { role: "assistant", content: [{ type: "text", text: `step ${n}` }] } })}\n`,
        );
      },
    };
  }

  test(`replay and hook stop killed at ${KILLS} random points each: integrity ok, a rerun converges`, async () => {
    using dir = tempDir("tl-crash-");
    const r = rng(424242);
    const dbReplay = join(dir.path, "replay.db");
    const dbStop = join(dir.path, "stop.db");
    const s = growing(dir.path);
    const env = childEnv({});
    const payload = () =>
      JSON.stringify({ session_id: s.sid, transcript_path: s.path, cwd: "/home/dev/crash" });
    s.grow();
    // How long an unkilled run of each takes here: the kill points spread over that span.
    using scratch = tempDir("tl-crash-time-");
    // Turns stay within the 20-turn window, so no summary depends on how many Stops ran.
    const killed = await killReplayAndStop({
      path: s.path,
      payload,
      grow: () => s.grow(),
      dbReplay,
      dbStop,
      scratch: scratch.path,
      env,
      kills: KILLS,
      r,
      integrity: (db) => expect(integrityOf(db)).toEqual({ integrity_check: "ok" }),
    });
    // Some runs must really have died, or nothing was tested.
    expect(killed).toBeGreaterThan(0);
    const rerun = Bun.spawnSync(["bun", CLI, "replay", s.path, "--db", dbReplay], { env });
    expect(rerun.exitCode).toBe(0);
    const stop = await runHook("stop", payload(), { ...env, THROUGHLINE_DB: dbStop });
    expect(stop.stderr).toBe("");
    using fresh = tempDir("tl-crash-ref-");
    const refReplay = openForWrite(join(fresh.path, "r.db"));
    replay(refReplay, [s.path]);
    const wantReplay = memoryHash(refReplay);
    refReplay.close();
    const refStop = join(fresh.path, "s.db");
    expect((await runHook("stop", payload(), { ...env, THROUGHLINE_DB: refStop })).stderr).toBe("");
    expect(hashOf(dbReplay)).toEqual({ hash: wantReplay, integrity: { integrity_check: "ok" } });
    expect(hashOf(dbStop)).toEqual({ hash: hashOf(refStop).hash, integrity: { integrity_check: "ok" } });
  }, 180_000);
});
