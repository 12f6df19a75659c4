import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SAMPLE, tempDir } from "../../harness/db.ts";
import { openForWrite } from "../../src/db/open.ts";
import { SCHEMA_VERSION } from "../../src/db/version.ts";
import { CLI, childEnv, finished, isOneLine, SCALE } from "./harness.ts";

const KILLS = 60 * SCALE;

function schemaOf(path: string): { version: number; names: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      version: (db.query("PRAGMA user_version").get() as { user_version: number }).user_version,
      names: (db.query("SELECT name FROM sqlite_master ORDER BY name").values() as string[][]).map(
        (r) => r[0]!,
      ),
    };
  } finally {
    db.close();
  }
}

describe("schema creation is whole or absent (reliability tier)", () => {
  test(`a first replay SIGKILLed at ${KILLS} points of its start: the schema is whole or absent, a reader never errors on it`, async () => {
    using dir = tempDir("tl-schema-");
    const ref = join(dir.path, "ref.db");
    openForWrite(ref).close();
    const whole = schemaOf(ref).names;
    const env = childEnv({});
    // The sweep spans a whole unkilled run, so it passes through the migration at every step.
    const t0 = performance.now();
    Bun.spawnSync(["bun", CLI, "replay", SAMPLE, "--db", join(dir.path, "timed.db")], { env });
    const span = performance.now() - t0;
    const seen = { absent: 0, empty: 0, whole: 0, killed: 0 };
    for (let k = 0; k < KILLS; k++) {
      const db = join(dir.path, `k${k}`, "throughline.db");
      const p = Bun.spawn(["bun", CLI, "replay", SAMPLE, "--db", db], {
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const timer = setTimeout(() => p.kill("SIGKILL"), (span * k) / KILLS);
      const r = await finished(p);
      clearTimeout(timer);
      if (r.signal === "SIGKILL") seen.killed++;
      if (!(Bun.file(db).size > 0)) {
        seen.absent++;
        continue;
      }
      const s = schemaOf(db);
      if (s.version === 0) {
        expect(s.names).toEqual([]);
        seen.empty++;
      } else {
        expect({ k, version: s.version, names: s.names }).toEqual({
          k,
          version: SCHEMA_VERSION,
          names: whole,
        });
        seen.whole++;
      }
      // A reader on what the kill left: the memory, or the one line that there is none yet.
      const read = Bun.spawnSync(["bun", CLI, "status", "--db", db], { env });
      const stderr = read.stderr.toString();
      if (read.exitCode !== 0) {
        expect(isOneLine(stderr)).toBe(true);
        expect(stderr).toContain("no throughline database");
      } else expect(stderr).toBe("");
    }
    // The sweep really cut runs short, before and after the schema was made.
    expect(seen.killed).toBeGreaterThan(KILLS / 3);
    expect(seen.whole).toBeGreaterThan(0);
  }, 300_000);
});
