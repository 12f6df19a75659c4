/**
 * How the list views grow with the database: the first page of each, at 1,000 and at 100,000
 * turns, in the same run (docs/ui.md "Paging and speed"). Machines here are noisy, so the test
 * holds a ratio, never a time: 100 times the turns must cost each view well under 100 times the
 * time (`MAX_GROWTH`), which an N+1 query or a quadratic render would not. Rows are written
 * straight into temp databases (capture's speed is not what is measured here).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request } from "node:http";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { startUi, type UiServer } from "../../src/commands/_ui-server.ts";
import { openForWrite } from "../../src/db/open.ts";

const TURNS = 100_000;
const SMALL = 1_000;
/**
 * Half of linear. Measured: 3–26 times (the projects view, which sums every turn of every
 * session, grows most; search, which reads a capped candidate set, not at all).
 */
const MAX_GROWTH = 50;
const CHAIN = "99999999-0000-4000-8000-000000000001";
const dir = tempDir("tl-ui-scale-");
let big: UiServer;
let small: UiServer;

async function serve(name: string, turns: number): Promise<UiServer> {
  const path = join(dir.path, `${name}.db`);
  const db = openForWrite(path);
  const t0 = Date.UTC(2026, 0, 1);
  db.transaction(() => {
    // Ten projects of one session each, one of them holding most of the turns as one chain.
    const session = db.query(
      "INSERT INTO sessions (id, project, created_at, updated_at) VALUES ($id, $project, $at, $at)",
    );
    for (let p = 0; p < 10; p++)
      session.run({
        id: p === 0 ? CHAIN : `99999999-0000-4000-8000-00000000000${p + 1}`,
        project: `/work/p${p}`,
        at: t0 + p,
      });
    const turn = db.query(
      `INSERT INTO turns (session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars)
       VALUES ($s, $s, $n, $at, $at + 1000, 40, 60)`,
    );
    const body = db.query(
      "INSERT INTO bodies (turn_id, origin_session_id, role, text, final_text) VALUES ($t, $s, $r, $x, $f)",
    );
    for (let i = 1; i <= turns; i++) {
      const s = i % 10 === 0 ? `99999999-0000-4000-8000-00000000000${(i % 9) + 2}` : CHAIN;
      const id = Number(turn.run({ s, n: i, at: t0 + i * 60_000 }).lastInsertRowid);
      body.run({ t: id, s, r: "user", x: `prompt ${i} about the parser`, f: null });
      body.run({ t: id, s, r: "assistant", x: `reply ${i}: done`, f: `reply ${i}: done` });
    }
  })();
  db.close();
  return startUi({ dbPath: path, port: 0, configDir: join(dir.path, `claude-${name}`) });
}

beforeAll(async () => {
  big = await serve("big", TURNS);
  small = await serve("small", SMALL);
}, 120_000);

afterAll(async () => {
  await big?.stop();
  await small?.stop();
  dir[Symbol.dispose]();
});

function timedGet(server: UiServer, path: string): Promise<{ status: number; ms: number; body: string }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        path,
        headers: { host: `127.0.0.1:${server.port}`, cookie: `tl_ui=${server.token}` },
      },
      (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - start, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe(`${SMALL.toLocaleString("en-US")} and ${TURNS.toLocaleString("en-US")} turns`, () => {
  for (const [name, path, holds] of [
    ["projects", "/", "/work/p0"],
    ["a project's chains", "/project?p=%2Fwork%2Fp0", CHAIN],
    ["a chain's first page of turns", `/chain?s=${CHAIN}`, "about the parser"],
    ["a chain's 10th page", `/chain?s=${CHAIN}&page=10`, "later turns →"],
    ["the push", `/push?s=${CHAIN}`, "of 9,500"],
    ["search, first page", "/search?q=parser", "Results 1–20, more on the next page"],
    ["search, 2nd page", "/search?q=parser&page=2", "Results 21–40"],
  ] as const)
    test(`${name}: 100 times the turns cost well under 100 times the time`, async () => {
      // The page cache warmed once, as a browser's second look would find it.
      await timedGet(small, path);
      await timedGet(big, path);
      const best = { small: Number.POSITIVE_INFINITY, big: Number.POSITIVE_INFINITY };
      // Interleaved, so a burst of load on the machine falls on both sizes alike.
      for (let i = 0; i < 5; i++)
        for (const [size, server] of [
          ["small", small],
          ["big", big],
        ] as const) {
          const r = await timedGet(server, path);
          expect(r.status).toBe(200);
          expect(r.body).toContain(holds);
          best[size] = Math.min(best[size], r.ms);
        }
      const growth = best.big / best.small;
      console.log(
        `ui scale: ${name}: ${best.small.toFixed(1)} ms at ${SMALL}, ${best.big.toFixed(1)} ms at ${TURNS} turns (${growth.toFixed(1)}×, best of 5)`,
      );
      expect(growth).toBeLessThan(MAX_GROWTH);
    });
});
