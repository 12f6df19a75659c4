/**
 * Continuity on real data (docs/contract.md#the-push): for every main-session transcript of the shared
 * corpus, after replay, the pushed turns, the turns returned by the `recall --l2` command
 * baked into the push text and those returned by the baked `recall --l1` command are
 * disjoint and together are every turn of the chain, in order. The commands are run exactly
 * as written in the text. Skipped when ../shared/corpus is absent.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  CLI_INVOCATION,
  CORPUS_TRANSCRIPTS,
  corpusTranscripts,
  REPO,
  tempDir,
  USER_PATH,
} from "../../harness/db.ts";
import { bakedCommands } from "../../harness/pull.ts";
import { replay } from "../../src/capture/replay.ts";
import { nextOlderTurn, renderContext } from "../../src/core/context.ts";
import { isControlCommand } from "../../src/core/push-header.ts";
import { CONTEXT_BUDGET } from "../../src/core/turn-block.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { loadContextInput } from "../../src/db/queries/chain.ts";
import { chainKeyOf } from "../../src/db/queries/sessions.ts";

const DIR = CORPUS_TRANSCRIPTS;
const all = corpusTranscripts();
const mains = all.filter((f) => !f.includes(".sub-agent-"));

async function cli(args: string[], db: string): Promise<string> {
  return run(["bun", join(REPO, "src", "cli.ts"), ...args], { ...process.env, THROUGHLINE_DB: db });
}

async function run(argv: string[], env: Record<string, string | undefined>): Promise<string> {
  const proc = Bun.spawn(argv, { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${argv.join(" ")}: exit ${code}: ${err}`);
  return out;
}

/** Run a command exactly as the push wrote it, through a shell with a user's PATH, plus `--json`. */
async function bakedKeys(command: string | null, db: string): Promise<string[]> {
  if (command === null) return [];
  const out = JSON.parse(
    await run(["/bin/sh", "-c", `${command} --json`], {
      PATH: USER_PATH,
      HOME: process.env.HOME,
      THROUGHLINE_DB: db,
    }),
  );
  return out.turns.map((t: { turn_key: string }) => t.turn_key);
}

describe.skipIf(mains.length === 0)("continuity over the corpus", () => {
  for (const file of mains)
    test.concurrent(file, async () => {
      using tmp = tempDir("tl-corpus-");
      const db = join(tmp.path, "throughline.db");
      const w = openForWrite(db);
      const subs = all.filter((f) => f.startsWith(`${file.replace(/\.jsonl$/, "")}.sub-agent-`));
      const report = replay(
        w,
        [file, ...subs].map((f) => join(DIR, f)),
      );
      w.close();
      const session = report.sessions[0]!.session_id;

      const r = openForRead(db);
      let chain: string[];
      let input: ReturnType<typeof loadContextInput>;
      try {
        // Chain order is start time, then origin, then turn number. It is the transcript's own
        // order except where a file replays earlier prompts with their original timestamps
        // (sessionshare-general-tool-calls: turns 7-12 repeat 1-6 to the millisecond, which
        // also makes it a real same-millisecond boundary case).
        chain = r
          .query<{ k: string }, { s: string }>(
            `SELECT origin_session_id || ':' || turn_number AS k FROM turns WHERE session_id = ${chainKeyOf("$s")}
               ORDER BY started_at, origin_session_id, turn_number`,
          )
          .all({ s: session })
          .map((x) => x.k);
        input = loadContextInput(r, session);
      } finally {
        r.close();
      }

      const ctx = JSON.parse(await cli(["context", "--session", session, "--json"], db));
      expect(ctx.text).toBe(renderContext(input, CLI_INVOCATION).text);
      const baked = bakedCommands(ctx.text);
      expect(baked).toEqual(ctx.pull);
      const [l1, l2] = await Promise.all([bakedKeys(baked.l1, db), bakedKeys(baked.l2, db)]);
      const pushed: string[] = ctx.turns.map((t: { turn_key: string }) => t.turn_key);
      expect([...l1, ...l2, ...pushed]).toEqual(chain);
      expect(new Set([...l1, ...l2, ...pushed]).size).toBe(chain.length);

      // The current position names a real instruction, never a bare `/exit`, `/clear`, `/model`…
      const latest = /^Latest prompt \[[\d:]+\]: (.*)$/m.exec(ctx.text)?.[1];
      if (latest !== undefined && input.window.some((t) => !isControlCommand(t.user)))
        expect(isControlCommand(latest)).toBe(false);

      // Budget: never over the cap; maximal fill whenever a window turn was left out.
      expect(ctx.text.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
      expect(ctx.stats.total_chars).toBe(ctx.text.length);
      if (!ctx.stats.truncated_newest)
        expect(nextOlderTurn(input, ctx.stats.injected_turns, CLI_INVOCATION)).not.toBe("would_fit");
    }, 60_000);
});
