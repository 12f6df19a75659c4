/** What a hook prints for Codex (src/core/host.ts, docs/hosts.md): the push names Codex, not Claude Code. */
import { describe, expect, test } from "bun:test";
import { codexHookOutput, codexWording } from "../../src/core/host.ts";
import { renderHeader } from "../../src/core/push-header.ts";

const PUSH = [
  "# Resume context after compaction (throughline)",
  "Claude Code has just compacted this conversation: the summary above is its own, and lossy.",
  "## How to pull the rest (read-only; run with Bash)",
  "- Older turns: `throughline recall --l1 --session s1`",
].join("\n");

describe("the push as Codex receives it", () => {
  test("names Codex and its shell, never Claude Code or Bash, and grows by no character", () => {
    const out = JSON.parse(codexHookOutput("session-start", PUSH));
    const text: string = out.hookSpecificOutput.additionalContext;
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(text).toContain("Codex has just compacted this conversation");
    expect(text).toContain("## How to pull the rest (read-only; run in shell)");
    expect(text).not.toContain("Claude Code");
    expect(text).not.toContain("Bash");
    expect(text.length).toBeLessThanOrEqual(PUSH.length);
    expect(text).toContain("`throughline recall --l1 --session s1`");
  });

  test("the phrases it rewrites are the ones the push renderer prints", () => {
    const header = renderHeader(
      { totalTurns: 3, firstStartedAt: null } as Parameters<typeof renderHeader>[0],
      null,
      { kind: "compaction", since: null },
    );
    expect(codexWording(header)).not.toContain("Claude Code");
    expect(codexWording(header)).toContain("Codex has just compacted this conversation");
  });
});
