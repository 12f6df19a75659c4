/**
 * The small session behind the push/pull golden files: 24 turns from 23:30 to 01:02 UTC
 * (it crosses midnight), tools, thinking and narration, and three long replies near the end
 * so the push leaves window turns out. Regenerate the committed JSONL with
 * `bun test/helpers/pull-fixture.ts`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isoAt, Jsonl } from "../../harness/pull.ts";

export const PULL_SESSION = "5e1f0c2a-9b7d-4c3e-8a21-0f6b2d9c4e17";
export const PULL_FIXTURE = join(import.meta.dir, "..", "fixtures", "pull", `${PULL_SESSION}.jsonl`);
const START = "2026-03-01T23:30:00.000Z";

const TOPICS = [
  "set up the parser for the config file",
  "add a test for empty input",
  "handle comments starting with #",
  "support quoted values",
  "report the line number on errors",
  "add an --strict flag",
  "document the format in README.md",
  "make the CLI print a summary",
  "fix the off-by-one in the line counter",
  "add Windows line endings support",
  "benchmark parsing a 10 MB file",
  "stream the input instead of reading it whole",
  "add a --json output mode",
  "validate keys against a schema",
  "explain the schema errors better",
  "add a changelog entry",
  "bump the version to 0.3.0",
  "write the release notes",
  "check the CI matrix on macOS",
  "add the 日本語 key test 🎌",
  "review the error messages",
  "plan the plugin API",
  "sketch the plugin loader",
  "ok, do it",
];

function longReply(topic: string, lines: number): string {
  const body = Array.from(
    { length: lines },
    (_, i) =>
      `- ${i + 1}. For "${topic}": checked case ${i + 1} of ${lines}; result stable, no regressions, notes kept in docs/notes.md.`,
  );
  return `Summary for ${topic}:\n\n${body.join("\n")}\n\nNext step: confirm and I will continue.`;
}

export function buildPullFixture(): Jsonl {
  const j = new Jsonl(PULL_SESSION);
  TOPICS.forEach((topic, i) => {
    const n = i + 1;
    let t = i * 4 * 60_000; // a turn every four minutes
    const at = () => {
      t += 7_000;
      return isoAt(START, t);
    };
    j.user(isoAt(START, t), n === 24 ? topic : `Please ${topic}.`);
    if (n % 3 === 0) j.think(at(), `The user wants to ${topic}; smallest change first.`);
    if (n % 2 === 0) j.say(at(), `Let me look at the code for: ${topic}.`);
    if (n % 4 !== 1) j.tool(at(), "Bash", { command: "bun test" }, `${n} pass\n0 fail`);
    if (n % 5 === 0)
      j.tool(at(), "Edit", { file_path: "src/parse.ts", old_string: "a", new_string: "b" }, "ok");
    if (n === 7) j.tool(at(), "Bash", { command: "false" }, "exit code 1", true);
    if (n === 11) return; // interrupted: the prompt alone is a turn, with no reply
    const reply =
      n >= 21 && n <= 23
        ? longReply(topic, n === 22 ? 34 : 26)
        : `Done: ${topic}. Tests pass (${n} pass, 0 fail).`;
    j.say(at(), reply);
  });
  return j;
}

if (import.meta.main) writeFileSync(PULL_FIXTURE, buildPullFixture().text());
