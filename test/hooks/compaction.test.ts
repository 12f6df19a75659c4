import { describe, expect, test } from "bun:test";
import { count, runShell, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { CONTEXT_BUDGET } from "../../src/core/turn-block.ts";
import { chainKeyOf } from "../../src/db/queries/sessions.ts";
import { HookDriver } from "../helpers/hooks.ts";

const PROJECT = "/home/dev/project";
const MIN = 60_000;
const SID = "c0c0c0c0-aaaa-4bbb-8ccc-c0c0c0c0c0c0";

/** One turn mentioning FOOBAR<i>, captured by its Stop; ~2,500 characters so not all fit a push. */
async function turn(h: HookDriver, b: TranscriptBuilder, i: number): Promise<void> {
  b.user(`step ${i}: look at FOOBAR${i}`).say(`FOOBAR${i} is done. ${"detail ".repeat(330)}`);
  h.write(b);
  h.advance(MIN);
  await h.fire("stop", SID, { stop_hook_active: false });
}

/** What Claude Code writes when it compacts: PreCompact, the boundary and its summary, SessionStart(compact). */
async function compact(h: HookDriver, b: TranscriptBuilder, trigger: "auto" | "manual") {
  await h.fire("pre-compact", SID, { trigger, custom_instructions: null });
  b.at(new Date(h.clock).toISOString())
    .system("compact_boundary", {
      content: "Conversation compacted",
      parentUuid: null,
      compactMetadata: { trigger, preTokens: 50_000 },
    })
    .user(
      "This session is being continued from a previous conversation that ran out of context. Summary: FOOBAR work.",
      {
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
      },
    );
  h.write(b);
  h.advance(2000);
  return h.fire("session-start", SID, { source: "compact" });
}

/** The `recall --l2` command a push printed, run as printed through a user's shell. */
function runBakedL2(push: string, env: Record<string, string>): string {
  const cmd = /`([^`\n]* recall --l2 [^`\n]*)`/.exec(push)?.[1];
  expect(cmd).toBeDefined();
  const r = runShell(cmd!, { env: { THROUGHLINE_DB: env.THROUGHLINE_DB! } });
  expect(r.exitCode).toBe(0);
  return r.stdout;
}

/** The turns a push shows whole (its "## Recent turns" part). */
function recent(push: string): string {
  return push.slice(push.indexOf("## Recent turns"));
}

describe("the push after compaction (docs/contract.md#after-compaction)", () => {
  test("SessionStart(compact) hands the compacted turns back: the newest whole, the rest one baked pull away", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    const b = new TranscriptBuilder(SID, PROJECT, new Date(h.clock).toISOString());
    await h.fire("session-start", SID, { source: "startup" });
    for (let i = 0; i < 6; i++) await turn(h, b, i);

    const push = (await compact(h, b, "auto")).stdout;
    expect(push).toStartWith("# Resume context after compaction (throughline)");
    expect(push.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
    expect(recent(push)).toContain("FOOBAR5 is done.");
    // Not all six fit: the oldest ones come back word for word through the printed pull.
    expect(recent(push)).not.toContain("FOOBAR1 is done.");
    const pulled = runBakedL2(push, h.env);
    expect(pulled).toContain("[user]: step 1: look at FOOBAR1");
    expect(pulled).toContain(`FOOBAR1 is done. ${"detail ".repeat(330).trim()}`);

    // Recorded as a compaction's push: one row, told from a handoff's.
    h.read((db) =>
      expect(db.query("SELECT moment FROM injections WHERE session_id = $s").all({ s: SID })).toEqual([
        { moment: "compaction" },
      ]),
    );
  });

  test("a second compaction pushes only the turns since the first; the earlier ones stay one pull away", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    const b = new TranscriptBuilder(SID, PROJECT, new Date(h.clock).toISOString());
    await h.fire("session-start", SID, { source: "startup" });
    for (let i = 0; i < 3; i++) await turn(h, b, i);
    const first = (await compact(h, b, "manual")).stdout;
    expect(recent(first)).toContain("FOOBAR2 is done.");
    for (let i = 3; i < 5; i++) await turn(h, b, i);

    const second = (await compact(h, b, "auto")).stdout;
    expect(second).toStartWith("# Resume context after compaction (throughline)");
    expect(recent(second)).toContain("FOOBAR3 is done.");
    expect(recent(second)).toContain("FOOBAR4 is done.");
    for (const i of [0, 1, 2]) expect(second).not.toContain(`FOOBAR${i} is done.`);
    expect(runBakedL2(second, h.env)).toContain("FOOBAR2 is done.");

    // Compacted twice with nothing in between: nothing to push whole, the pulls still printed.
    const third = (await compact(h, b, "manual")).stdout;
    expect(third).toContain("(none since the compaction before this one: use the commands above)");
    expect(runBakedL2(third, h.env)).toContain("FOOBAR4 is done.");
  });

  test("/clear after a compaction still hands over the whole chain", async () => {
    using dir = tempDir();
    const h = new HookDriver(dir.path);
    const b = new TranscriptBuilder(SID, PROJECT, new Date(h.clock).toISOString());
    await h.fire("session-start", SID, { source: "startup" });
    for (let i = 0; i < 3; i++) await turn(h, b, i);
    await compact(h, b, "manual");
    await turn(h, b, 3);
    await h.fire("session-end", SID, { reason: "clear" });
    const next = "d0d0d0d0-aaaa-4bbb-8ccc-d0d0d0d0d0d0";
    h.advance(1000);
    await h.fire("session-start", next, { source: "clear" });
    h.advance(1000);
    const push = (await h.fire("user-prompt-submit", next, { prompt: "go on" })).stdout;
    expect(push).toStartWith("# Resume context (throughline)");
    expect(push).toContain("holds 4 turns");
    expect(recent(push)).toContain("FOOBAR3 is done.");
    h.read((db) =>
      expect(
        count(db, `SELECT count(*) n FROM turns WHERE session_id = ${chainKeyOf("$s")}`, { s: next }),
      ).toBe(4),
    );
  });
});
