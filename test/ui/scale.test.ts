/**
 * A 100,000-turn database: the first page of each list view answers in well under ~100 ms
 * (paged, indexed reads; docs/ui.md "Paging"). Rows are written straight into a temp database
 * (capture's speed is not what is measured here).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request } from "node:http";
import { join } from "node:path";
import { startUi, type UiServer } from "../../src/commands/_ui-server.ts";
import { openForWrite } from "../../src/db/open.ts";
import { tempDir } from "../helpers/db.ts";

const TURNS = 100_000;
const CHAIN = "99999999-0000-4000-8000-000000000001";
const dir = tempDir("tl-ui-scale-");
let server: UiServer;

beforeAll(async () => {
  const path = join(dir.path, "throughline.db");
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
    for (let i = 1; i <= TURNS; i++) {
      const s = i % 10 === 0 ? `99999999-0000-4000-8000-00000000000${(i % 9) + 2}` : CHAIN;
      const id = Number(turn.run({ s, n: i, at: t0 + i * 60_000 }).lastInsertRowid);
      body.run({ t: id, s, r: "user", x: `prompt ${i} about the parser`, f: null });
      body.run({ t: id, s, r: "assistant", x: `reply ${i}: done`, f: `reply ${i}: done` });
    }
  })();
  db.close();
  server = await startUi({ dbPath: path, port: 0, configDir: join(dir.path, "claude") });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  dir[Symbol.dispose]();
});

function timedGet(path: string): Promise<{ status: number; ms: number; body: string }> {
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

describe(`${TURNS.toLocaleString("en-US")} turns`, () => {
  for (const [name, path, holds] of [
    ["projects", "/", "/work/p0"],
    ["a project's chains", "/project?p=%2Fwork%2Fp0", CHAIN],
    ["a chain's first page of turns", `/chain?s=${CHAIN}`, `prompt ${TURNS - 1} about`],
    ["a chain's 20th page", `/chain?s=${CHAIN}&page=20`, "older →"],
    ["the push", `/push?s=${CHAIN}`, "of 9,500"],
    ["search, first page", "/search?q=parser", "Results 1–20, more on the next page"],
    ["search, 2nd page", "/search?q=parser&page=2", "Results 21–40"],
  ] as const)
    test(`${name}: first answer in under 100 ms`, async () => {
      await timedGet(path); // the page cache warmed once, as a browser's second look would find it
      const times: number[] = [];
      let last = { status: 0, ms: 0, body: "" };
      for (let i = 0; i < 3; i++) {
        last = await timedGet(path);
        times.push(last.ms);
      }
      expect(last.status).toBe(200);
      expect(last.body).toContain(holds);
      const best = Math.min(...times);
      console.log(`ui scale: ${name}: ${best.toFixed(1)} ms (best of 3)`);
      expect(best).toBeLessThan(100);
    });
});
