/**
 * The CLI run inside the test process (the export round-trip tests call it hundreds of times:
 * a process per call would dominate their time), with what it printed captured.
 */
import { runCli as runInProcess } from "../../src/main.ts";
import { shellWords } from "./pull.ts";

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
