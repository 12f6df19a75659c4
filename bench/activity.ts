/**
 * Benches of the activity index and search (docs/contract.md#performance), called by bench/run.ts:
 * `hook post-tool-use` (goal ≤ 2× floor), and `search <words>` / `recall <words>` on a
 * generated database of 100,000 turns and ~500,000 events (goal ≤ 5× floor). The database is
 * generated with SQL (recursive CTEs) once and reused while its content version holds.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openForRead, openForWrite } from "../src/db/open.ts";
import { asStopsKeepIt } from "./hook-fixtures.ts";
import { measure, round, WORK } from "./lib.ts";

export const ACTIVITY_TURNS = 100_000;
export const EVENTS_PER_TURN = 5;
const SESSIONS = 100;
const PROJECT = "/bench/activity";
/** Bump when the generated content changes: an older database is rebuilt. */
const MARKER = "bench-activity-v5-indexes-tidied";

const WORDS = JSON.stringify([
  "auth",
  "cart",
  "session",
  "token",
  "parser",
  "schema",
  "router",
  "cache",
  "billing",
  "search",
  "index",
  "worker",
  "queue",
  "config",
  "logger",
  "upload",
  "render",
  "client",
  "server",
  "metrics",
]);
const w = (expr: string) => `json_extract('${WORDS}', '$[' || ((${expr}) % 20) || ']')`;

function reusable(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    const db = openForRead(path);
    try {
      const marker = db.query("SELECT 1 AS x FROM sessions WHERE id = $id").get({ id: MARKER });
      const n = db.query<{ n: number }, []>("SELECT count(*) AS n FROM turns").get()!.n;
      return marker !== null && n === ACTIVITY_TURNS;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/**
 * 100 sessions of 1,000 turns in one project; each turn has a prompt and an answer (L2), two
 * L3 rows, and five events of every type. About one turn in a hundred mentions
 * `refreshAccessToken`, the word searched for.
 */
export function buildActivityDb(path: string): void {
  if (reusable(path)) return;
  for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
  const db = openForWrite(path);
  const perSession = ACTIVITY_TURNS / SESSIONS;
  const t0 = Date.UTC(2025, 0, 1);
  const params = { per: perSession, t0, project: PROJECT, n: ACTIVITY_TURNS, sessions: SESSIONS };
  db.transaction(() => {
    db.query(
      `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < $sessions - 1)
       INSERT INTO sessions (id, project, transcript_path, created_at, updated_at)
       SELECT printf('bench-act-%03d', i), $project, NULL, $t0 + i * $per * 90000, $t0 + (i + 1) * $per * 90000 FROM s`,
    ).run(params);
    db.query(
      "INSERT INTO sessions (id, project, transcript_path, created_at, updated_at) VALUES ($id, '/bench/marker', NULL, 0, 0)",
    ).run({ id: MARKER });
    db.query(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $n - 1)
       INSERT INTO turns (id, session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars)
       SELECT i + 1, printf('bench-act-%03d', i / $per), printf('bench-act-%03d', i / $per), i % $per + 1,
              $t0 + i * 90000, $t0 + i * 90000 + 60000, 100, 400 FROM n`,
    ).run(params);
    // A turn's rows are written together, as a Stop writes them: each chain's rows then sit in a
    // narrow id range, as they do in a real database (a chain-scoped search reads by that range).
    db.run(
      `INSERT INTO bodies (turn_id, origin_session_id, role, text, final_text)
       SELECT turn_id, origin_session_id, role, text, final_text FROM (
       SELECT id AS turn_id, 0 AS o, origin_session_id, 'user' AS role,
              'Please look at the ' || ${w("id * 7")} || ' ' || ${w("id * 3 + 1")} || ' code path and fix the ' || ${w("id * 11 + 2")}
              || ' bug in src/' || ${w("id")} || '/' || ${w("id * 13")} || '.ts' ||
              CASE WHEN id % 100 = 0 THEN ' where refreshAccessToken returns early' ELSE '' END AS text,
              NULL AS final_text
       FROM turns
       UNION ALL
       SELECT id, 1, origin_session_id, 'assistant',
              'I read the ' || ${w("id * 5")} || ' module. The ' || ${w("id * 7 + 3")} || ' handler called the ' || ${w("id * 9")}
              || ' helper twice, so the ' || ${w("id * 17 + 4")} || ' state went stale. I changed the guard, added a test for the '
              || ${w("id * 19")} || ' case and ran the suite: all green. Next I would look at the ' || ${w("id * 23 + 6")} || ' worker.',
              'Fixed the ' || ${w("id * 7 + 3")} || ' handler.'
       FROM turns) ORDER BY turn_id, o`,
    );
    db.run(
      `INSERT INTO details (turn_id, origin_session_id, source, ord, kind, tool_name, tool_use_id, input, output, is_error, created_at, ikey)
       SELECT turn_id, origin_session_id, source, ord, kind, tool_name, tool_use_id, input, output, is_error, created_at, ikey FROM (
       SELECT id AS turn_id, origin_session_id, 'transcript' AS source, 0 AS ord, 'tool_input' AS kind, 'Bash' AS tool_name, 'toolu_b' || id AS tool_use_id,
              '{"command":"grep -rn ' || ${w("id * 3")} || ' src"}' AS input, NULL AS output, 0 AS is_error,
              started_at + 1000 AS created_at, origin_session_id || ':' || turn_number || ':0' AS ikey
       FROM turns
       UNION ALL
       SELECT id, origin_session_id, 'transcript', 1, 'tool_output', 'Bash', 'toolu_b' || id, NULL,
              'src/' || ${w("id * 3")} || '/index.ts:' || (id % 300) || ': export function ' || ${w("id * 29")} || 'Handler() {'
              || CASE WHEN id % 250 = 0 THEN ' return refreshAccessToken(session) }' ELSE ' }' END,
              0, started_at + 2000, origin_session_id || ':' || turn_number || ':1'
       FROM turns) ORDER BY turn_id, ord`,
    );
    // Five events per turn, cycling through the ten types.
    db.run(
      `WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < ${EVENTS_PER_TURN - 1})
       INSERT INTO events (session_id, origin_session_id, project, turn_number, seq, ts, type, summary, detail, tool_use_id, ikey)
       SELECT t.session_id, t.origin_session_id, '${PROJECT}', t.turn_number, t.turn_number * ${EVENTS_PER_TURN} + k.j,
              t.started_at + 3000 + k.j * 1000, x.type,
              CASE x.type
                WHEN 'file_edit' THEN 'Edited src/' || ${w("t.id + k.j")} || '/' || ${w("t.id * 3 + k.j")} || '.ts (+' || (t.id % 40) || ' −' || (t.id % 9) || ')'
                WHEN 'file_create' THEN 'Created src/' || ${w("t.id + k.j")} || '/' || ${w("t.id * 7")} || '.test.ts (' || (t.id % 200) || ' lines)'
                WHEN 'git_commit' THEN 'Committed ' || printf('%07x', t.id * 2654435761 % 268435456) || ' on main: fix: ' || ${w("t.id * 5")} || ' ' || ${w("t.id * 11")}
                WHEN 'git_checkout' THEN 'Switched to feat/' || ${w("t.id")}
                WHEN 'test_run' THEN 'Tests ' || CASE WHEN t.id % 4 = 0 THEN 'failed' ELSE 'passed' END || ': bun test (' || (t.id % 90) || ' passed, ' || CASE WHEN t.id % 4 = 0 THEN 2 ELSE 0 END || ' failed) — bun test'
                WHEN 'error' THEN 'Bash failed (exit 1): bun run build — cannot find module ./' || ${w("t.id * 13")}
                  || CASE WHEN t.id % 100 = 1 THEN ' in refreshAccessToken' ELSE '' END
                WHEN 'decision' THEN 'Answered: Which ' || ${w("t.id")} || ' strategy? → the ' || ${w("t.id * 3")} || ' one'
                WHEN 'phase_change' THEN 'Started: Rework the ' || ${w("t.id * 17")} || ' ' || ${w("t.id * 19")}
                WHEN 'skill_start' THEN 'Task started (Explore): Map the ' || ${w("t.id")} || ' flow'
                ELSE 'Task finished (Explore): Map the ' || ${w("t.id")} || ' flow (40 s, 9 tool uses)'
              END,
              json_object('path', 'src/' || ${w("t.id + k.j")} || '.ts', 'tool', 'Edit'),
              'toolu_e' || t.id || '_' || k.j, 'bench:' || t.id || ':' || k.j
       FROM turns t JOIN k
       JOIN (SELECT value AS type, key AS idx FROM json_each('["file_edit","file_create","git_commit","git_checkout","test_run","error","decision","phase_change","skill_start","skill_end"]')) x
         ON x.idx = (t.id * ${EVENTS_PER_TURN} + k.j) % 10
       ORDER BY t.id, k.j`,
    );
  })();
  // The indexes as the Stop worker keeps them: its step after every Stop would have merged the
  // segments this bulk build leaves.
  asStopsKeepIt(db);
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.run("ANALYZE");
  db.close();
}

export async function benchActivity(opts: {
  bin: string[];
  floorMs: number;
  runs: number;
}): Promise<Record<string, { median_ms: number; ratio: number; goal?: string; note?: string }>> {
  const path = join(WORK, "activity.db");
  const t0 = performance.now();
  buildActivityDb(path);
  const built = round((performance.now() - t0) / 1000, 1);
  const env = { THROUGHLINE_DB: path, NO_COLOR: "1" };
  const out: Record<string, { median_ms: number; ratio: number; goal?: string; note?: string }> = {};
  const add = (
    name: string,
    r: { median_ms: number; paired_ratio?: number },
    goal: string,
    note?: string,
  ) => {
    out[name] = {
      median_ms: r.median_ms,
      ratio: r.paired_ratio ?? round(r.median_ms / opts.floorMs),
      goal,
      ...(note ? { note } : {}),
    };
  };
  let n = 0;
  const payload = () =>
    JSON.stringify({
      session_id: "bench-act-099",
      transcript_path: "/bench/activity/bench-act-099.jsonl",
      cwd: PROJECT,
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: { file_path: `${PROJECT}/src/auth/token.ts`, old_string: "a", new_string: "b" },
      tool_response: { filePath: `${PROJECT}/src/auth/token.ts`, structuredPatch: [{ lines: ["-a", "+b"] }] },
      tool_use_id: `toolu_bench_${Date.now()}_${n++}`,
    });
  add(
    "hook post-tool-use",
    measure(opts.runs, () => [...opts.bin, "hook", "post-tool-use"], { stdin: payload, env }),
    "≤ 2×",
    `into ${ACTIVITY_TURNS * EVENTS_PER_TURN} events`,
  );
  // The same hook for a call that yields no event: the cost every hook pays (open, schema
  // check, close), against which the insert of an event is measured.
  add(
    "hook post-tool-use (Read: no event)",
    measure(opts.runs, () => [...opts.bin, "hook", "post-tool-use"], {
      stdin: () => payload().replace('"tool_name":"Edit"', '"tool_name":"Read"'),
      env,
    }),
    "baseline",
  );
  const note = `${ACTIVITY_TURNS} turns, ${ACTIVITY_TURNS * EVENTS_PER_TURN} events${built > 1 ? `, built in ${built} s` : ""}`;
  add(
    "search <words>",
    measure(opts.runs, () => [...opts.bin, "search", "refreshAccessToken", "--project", PROJECT], { env }),
    "≤ 5×",
    note,
  );
  add(
    "search <common words>",
    measure(opts.runs, () => [...opts.bin, "search", "cart", "handler", "--project", PROJECT], { env }),
    "≤ 5×",
  );
  // The scope the model's Bash searches by default: its session's chain (docs/search.md, "Scopes").
  add(
    "search <words> (its chain)",
    measure(opts.runs, () => [...opts.bin, "search", "refreshAccessToken", "--session", "bench-act-099"], {
      env,
    }),
    "≤ 3×",
    "the default scope in the model's Bash",
  );
  add(
    "search <common words> (its chain)",
    measure(opts.runs, () => [...opts.bin, "search", "cart", "handler", "--session", "bench-act-099"], {
      env,
    }),
    "≤ 3×",
  );
  add(
    "recall <words>",
    measure(opts.runs, () => [...opts.bin, "recall", "errors", "auth", "--project", PROJECT], { env }),
    "≤ 5×",
    "latest chain of the project",
  );
  add(
    "recall <words> --all",
    measure(
      opts.runs,
      () => [...opts.bin, "recall", "refreshAccessToken", "--all-sessions", "--project", PROJECT],
      {
        env,
      },
    ),
    "≤ 5×",
    "every session of the project",
  );
  add(
    "recall (summary)",
    measure(opts.runs, () => [...opts.bin, "recall", "--project", PROJECT], { env }),
    "≤ 5×",
  );
  return out;
}

if (import.meta.main) {
  // `bun bench/activity.ts`: build the database and time the queries against `bun src/cli.ts`.
  const { buildFloor } = await import("./lib.ts");
  const floorBin = await buildFloor();
  const runs = Number(process.env.BENCH_RUNS ?? 20);
  const floor = measure(runs, () => [floorBin], { stdin: () => "{}" });
  const bin = process.env.BENCH_BIN
    ? [process.env.BENCH_BIN]
    : ["bun", join(import.meta.dir, "..", "src", "cli.ts")];
  console.log({
    floor_ms: floor.median_ms,
    ...(await benchActivity({ bin, floorMs: floor.median_ms, runs })),
  });
}
