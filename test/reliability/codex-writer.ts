/**
 * One Codex writer of the reliability tier (docs/hosts.md): a Codex session whose hooks fire in
 * the order Codex fires them, against a rollout written the way Codex writes it. Per turn:
 * UserPromptSubmit (the rollout holds the turn's start and the hook's developer message, not yet
 * the prompt), PreCompact mid-turn (the prompt and the shell call are written), Stop (the turn is
 * complete). Each hook call opens its own connection, as each hook process does. Run as a
 * process (`bun codex-writer.ts <dir> <index> <calls>`) or imported.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { runHook } from "../../src/hooks/run.ts";
import { RolloutBuilder, rolloutPath } from "../helpers/codex-rollout.ts";

export function codexSessionOf(index: number): string {
  return `0000c0de-0000-7000-8000-${String(index).padStart(12, "0")}`;
}

/** Runs `calls` hook calls (a multiple of 3 ends every turn with its Stop); returns each failure's stderr. */
export async function runCodexWorkload(
  dir: string,
  index: number,
  calls: number,
  env: Record<string, string | undefined>,
): Promise<string[]> {
  const sid = codexSessionOf(index);
  const cwd = `/home/dev/codex-writer-${index}`;
  const path = rolloutPath(dir, sid);
  mkdirSync(dirname(path), { recursive: true });
  const b = new RolloutBuilder(sid, cwd);
  writeFileSync(path, b.text());
  let sent = b.lines.length;
  const failures: string[] = [];
  let clock = Date.parse("2026-12-07T00:00:00.000Z") + index * 1_000_000;
  let turn = 0;
  let reply = "";
  let prompt = "";
  let turnId = "";
  /** Writes the turn's pending lines up to (not including) the first one `until` matches. */
  const writeUntil = (until: ((line: string) => boolean) | null) => {
    let end = sent;
    while (end < b.lines.length && !(until?.(b.lines[end]!) ?? false)) end++;
    appendFileSync(
      path,
      b.lines
        .slice(sent, end)
        .map((l) => `${l}\n`)
        .join(""),
    );
    sent = end;
  };
  const fire = async (event: string, extra: Record<string, unknown>) => {
    clock += 1000;
    const hookEventName = {
      "user-prompt-submit": "UserPromptSubmit",
      "pre-compact": "PreCompact",
      stop: "Stop",
    }[event];
    const payload = { session_id: sid, transcript_path: path, cwd, hook_event_name: hookEventName, ...extra };
    const out = await runHook(event, JSON.stringify(payload), env, () => clock);
    if (out.exitCode !== 0) failures.push(out.stderr);
  };
  for (let k = 0; k < calls; k++) {
    switch (k % 3) {
      case 0: {
        turn++;
        turnId = `w${index}-t${turn}`;
        prompt = `codex writer ${index} prompt ${turn}: run the tests`;
        reply = `codex writer ${index} done ${turn}`;
        b.turn(prompt, reply, {
          shell: {
            cmd: `bun test src/mod${turn}.test.ts`,
            output: `${turn} pass\n`,
            exit: turn % 5 === 0 ? 1 : 0,
          },
          injected: `INJECTED-MARKER writer ${index} turn ${turn}`,
          turnId,
        });
        writeUntil((l) => l.includes('"role":"user"'));
        await fire("user-prompt-submit", { turn_id: turnId, prompt });
        break;
      }
      case 1:
        writeUntil((l) => l.includes('"role":"assistant"'));
        await fire("pre-compact", { turn_id: turnId, trigger: "auto" });
        break;
      default:
        writeUntil(null);
        await fire("stop", { turn_id: turnId, stop_hook_active: false, last_assistant_message: reply });
    }
  }
  return failures;
}

if (import.meta.main) {
  const [dir, index, calls] = process.argv.slice(2);
  const failures = await runCodexWorkload(dir!, Number(index), Number(calls), process.env);
  for (const f of failures) process.stderr.write(f);
  process.exitCode = failures.length === 0 ? 0 : 1;
}
