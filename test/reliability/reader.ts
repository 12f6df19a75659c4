/**
 * One reader of the reads-beside-writers test: every read command, in turn, `rounds` times, each
 * run in this process with its own connection (as each command process opens its own). A read
 * of the fixed session must print what it printed before any writer started; `status` must never
 * count fewer turns than the read before it. Prints one JSON line: reads, failed, wrong, examples.
 * Run as `bun reader.ts <db> <rounds> <expected.json>`.
 */
import { readFileSync } from "node:fs";
import { cliInProcess } from "../helpers/cli-in-process.ts";

export const SESSION = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13"; // test/fixtures/sample
const AFTER = "2027-01-01T00:00:00.000Z";

/** Every read command, scoped to the fixture session where it takes a scope. */
export const FIXED_READS: string[][] = [
  ["context", "--session", SESSION],
  ["context", "--session", SESSION, "--json"],
  ["recall", "--l2", "--session", SESSION, "--before", AFTER, "--last", "3"],
  ["recall", "--l1", "--session", SESSION, "--before", AFTER],
  ["recall", "commits", "--project", "/home/dev/todo-api"],
  ["recall", "due", "--project", "/home/dev/todo-api", "--json"],
  ["detail", "2026-11-30T09:12:04.000Z", "--session", SESSION],
  ["detail", "--item", "1"],
  ["search", "due", "--project", "/home/dev/todo-api"],
  ["search", "due", "--project", "/home/dev/todo-api", "--json"],
];

if (import.meta.main) {
  const [db, rounds, expectedPath] = process.argv.slice(2);
  const expected = JSON.parse(readFileSync(expectedPath!, "utf8")) as string[];
  let reads = 0;
  let failed = 0;
  let wrong = 0;
  let lastTurns = 0;
  const examples: string[] = [];
  const note = (what: string) => void (examples.length < 5 && examples.push(what.slice(0, 400)));
  for (let r = 0; r < Number(rounds); r++) {
    for (const [i, args] of FIXED_READS.entries()) {
      reads++;
      try {
        const out = await cliInProcess(db!, args);
        if (out !== expected[i]) {
          wrong++;
          note(`${args.join(" ")}: printed something else`);
        }
      } catch (err) {
        failed++;
        note(`${args.join(" ")}: ${(err as Error).message}`);
      }
    }
    reads++;
    try {
      const status = JSON.parse(await cliInProcess(db!, ["status", "--json"])).counts as { turns: number };
      if (status.turns < lastTurns) {
        wrong++;
        note(`status: ${status.turns} turns after ${lastTurns}`);
      }
      lastTurns = status.turns;
    } catch (err) {
      failed++;
      note(`status: ${(err as Error).message}`);
    }
  }
  console.log(JSON.stringify({ reads, failed, wrong, examples }));
}
