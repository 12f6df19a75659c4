/**
 * Forks with the real client (docs/contract.md#forks): `claude -p --resume <id> --fork-session`
 * writes a new session file that repeats the parent's entries with the same uuids. The fork
 * stores only its own turn, and each branch's push and search list every turn once; the
 * parent's push is the same after the fork as before.
 */
import { describe, expect, test } from "bun:test";
import {
  createHome,
  e2eSkipReason,
  findTranscript,
  installHooks,
  queryDb,
  runPrint,
  runThroughline,
} from "../../harness/e2e/driver.ts";
import { held, nonce } from "../../harness/e2e/scenario.ts";
import { lastPrompt } from "../../harness/e2e/stand-in.ts";

const SKIP = e2eSkipReason();

interface ContextJson {
  turns: { turn_key: string }[];
  text: string;
}

describe.skipIf(SKIP !== null)("a fork of a -p session (real Claude Code)", () => {
  test("-p turns, then --resume <id> --fork-session: stored turns = distinct turns, each branch lists each turn once", async () => {
    await using h = await createHome({ script: (_r, body) => `Answer to: ${lastPrompt(body)}` });
    installHooks(h);
    const tag = nonce();
    const prompts = [`first ${tag} wombatplan`, `second ${tag} wombatplan`, `fork ${tag} otterpath`];
    const answer = (p: string) => `Answer to: ${p}`;

    const first = await runPrint(h, prompts[0]!, held(h, prompts[0]!, answer(prompts[0]!)));
    const parent = first.sessionId;
    // --resume without --fork-session appends to the same file: still one session.
    const second = await runPrint(h, prompts[1]!, {
      resume: parent,
      ...held(h, prompts[1]!, answer(prompts[1]!)),
    });
    expect(second.sessionId).toBe(parent);
    const context = (s: string) => {
      const r = runThroughline(h, ["context", "--session", s, "--json"]);
      expect(r.exitCode).toBe(0);
      return JSON.parse(r.stdout) as ContextJson;
    };
    const search = (word: string, s: string) => {
      const r = runThroughline(h, ["search", word, "--session", s, "--json"]);
      expect(r.exitCode).toBe(0);
      return (JSON.parse(r.stdout) as { results: { turn_key: string }[] }).results
        .map((x) => x.turn_key)
        .sort();
    };
    const parentPush = context(parent);
    expect(parentPush.turns.map((t) => t.turn_key)).toEqual([`${parent}:1`, `${parent}:2`]);

    const forked = await runPrint(h, prompts[2]!, {
      resume: parent,
      extraArgs: ["--fork-session"],
      ...held(h, prompts[2]!, answer(prompts[2]!)),
    });
    const fork = forked.sessionId;
    expect(fork).not.toBe(parent);
    // The client wrote a new file repeating the parent's entries (what this test is about).
    const copied = findTranscript(h, fork);
    expect(copied).not.toBeNull();

    const stored = queryDb(h, (db) =>
      db.query("SELECT origin_session_id AS origin, turn_number AS n FROM turns ORDER BY started_at").all(),
    );
    expect(stored).toEqual([
      { origin: parent, n: 1 },
      { origin: parent, n: 2 },
      { origin: fork, n: 3 },
    ]);

    expect(context(fork).turns.map((t) => t.turn_key)).toEqual([`${parent}:1`, `${parent}:2`, `${fork}:3`]);
    expect(context(fork).text.match(new RegExp(`\\[user\\]: first ${tag}`, "g"))?.length).toBe(1);
    expect(context(parent)).toEqual(parentPush);
    expect(search("wombatplan", fork)).toEqual([`${parent}:1`, `${parent}:2`]);
    expect(search("otterpath", fork)).toEqual([`${fork}:3`]);
    expect(search("wombatplan", parent)).toEqual([`${parent}:1`, `${parent}:2`]);
    expect(search("otterpath", parent)).toEqual([]);

    // A replay of the same two files into an empty database, fork first, holds the same turns.
    const db2 = `${h.root}/replayed.db`;
    const r = runThroughline(h, ["replay", copied!, findTranscript(h, parent)!, "--db", db2]);
    expect(r.exitCode).toBe(0);
    const again = runThroughline(h, ["context", "--session", fork, "--json", "--db", db2]);
    expect((JSON.parse(again.stdout) as ContextJson).turns.map((t) => t.turn_key)).toEqual([
      `${parent}:1`,
      `${parent}:2`,
      `${fork}:3`,
    ]);
  }, 180_000);
});
