/**
 * The CLI run inside the test process (the export round-trip tests call it hundreds of times:
 * a process per call would dominate their time), with what it printed captured.
 */

import { shellWords } from "../../harness/pull.ts";
import { openForRead } from "../../src/db/open.ts";
import { runCli as runInProcess } from "../../src/main.ts";

/** Run the CLI in this process against `db` and return stdout; any stderr or exit code fails. */
export async function cliInProcess(db: string, args: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const saved = { exit: process.exitCode, db: process.env.THROUGHLINE_DB };
  console.log = (...a: unknown[]) => void out.push(`${a.map(String).join(" ")}\n`);
  console.error = (...a: unknown[]) => void err.push(`${a.map(String).join(" ")}\n`);
  process.exitCode = 0;
  process.env.THROUGHLINE_DB = db;
  let code: number | string | undefined;
  try {
    await runInProcess(args);
  } finally {
    console.log = log;
    console.error = error;
    code = process.exitCode;
    process.exitCode = saved.exit;
    if (saved.db === undefined) delete process.env.THROUGHLINE_DB;
    else process.env.THROUGHLINE_DB = saved.db;
  }
  if (code || err.length > 0) throw new Error(`${args.join(" ")}: exit ${code}: ${err.join("")}`);
  return out.join("");
}

/** The arguments after the invocation of a command the push baked in. */
export function bakedArgs(command: string): string[] {
  const words = shellWords(command);
  return words.slice(words.indexOf("recall"));
}

/** Each chain of `db` with its longest prompt and its last end time: what a round-trip test reads it by. */
export function chainsWithLongestPrompt(db: string): { live: string; prompt: string | null; last: number }[] {
  const r = openForRead(db);
  try {
    return r
      .query<{ live: string; prompt: string | null; last: number }, []>(
        `SELECT t.session_id AS live, max(t.ended_at) AS last,
                (SELECT b.text FROM bodies b JOIN turns f ON f.id = b.turn_id WHERE f.session_id = t.session_id
                 AND b.role = 'user' ORDER BY length(b.text) DESC LIMIT 1) AS prompt
         FROM turns t GROUP BY t.session_id ORDER BY t.session_id`,
      )
      .all();
  } finally {
    r.close();
  }
}
