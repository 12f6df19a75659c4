/**
 * One writer of the parallel-writers test: a session whose hooks fire in the order Claude Code
 * fires them (post-tool-use per call, subagent-stop as a subagent file grows, stop per turn).
 * Each hook call opens its own connection, as each hook process does. Run as a process
 * (`bun writer.ts <dir> <index> <calls>`) for the parallel run, imported for the sequential one.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { runHook } from "../../src/hooks/run.ts";

export function sessionOf(index: number): string {
  return `77777777-0000-4000-8000-${String(index).padStart(12, "0")}`;
}

/** Runs `calls` hook calls; returns the stderr of every call that failed. */
export async function runWorkload(
  dir: string,
  index: number,
  calls: number,
  env: Record<string, string | undefined>,
): Promise<string[]> {
  const sid = sessionOf(index);
  const cwd = `/home/dev/writer-${index}`;
  const transcript = join(dir, `${sid}.jsonl`);
  const agentDir = join(dir, sid, "subagents");
  mkdirSync(agentDir, { recursive: true });
  const agent = join(agentDir, `agent-w${index}.jsonl`);
  const b = new TranscriptBuilder(sid, cwd, `2026-05-0${1 + (index % 9)}T08:00:00.000Z`);
  writeFileSync(transcript, "");
  writeFileSync(agent, "");
  const failures: string[] = [];
  let clock = Date.parse("2026-05-10T00:00:00.000Z") + index * 1_000_000;
  let written = 0;
  let turn = 0;
  let lastText = "";
  let agentLines = 0;
  const fire = async (event: string, extra: Record<string, unknown>) => {
    clock += 1000;
    const payload = { session_id: sid, transcript_path: transcript, cwd, hook_event_name: event, ...extra };
    const out = await runHook(event, JSON.stringify(payload), env, () => clock);
    if (out.exitCode !== 0) failures.push(out.stderr);
  };
  const flush = () => {
    const text = b.text();
    appendFileSync(transcript, text.slice(written));
    written = text.length;
  };
  for (let k = 0; k < calls; k++) {
    switch (k % 3) {
      case 0: {
        turn++;
        const toolId = `toolu_w${index}_${turn}`;
        b.user(`writer ${index} prompt ${turn}: edit src/mod${turn}.ts`);
        b.tool("Edit", { file_path: `/home/dev/writer-${index}/src/mod${turn}.ts` }, "edited", {
          id: toolId,
        });
        flush();
        await fire("post-tool-use", {
          tool_name: "Edit",
          tool_use_id: toolId,
          tool_input: { file_path: `/home/dev/writer-${index}/src/mod${turn}.ts` },
          tool_response: { success: true },
        });
        break;
      }
      case 1: {
        agentLines++;
        appendFileSync(
          agent,
          `${JSON.stringify({
            type: agentLines === 1 ? "user" : "assistant",
            isSidechain: true,
            agentId: `w${index}`,
            sessionId: sid,
            uuid: `w${index}-a${agentLines}`,
            timestamp: new Date(Date.parse(b.time) + agentLines).toISOString(),
            message:
              agentLines === 1
                ? { role: "user", content: `review writer ${index}` }
                : { role: "assistant", content: [{ type: "text", text: `step ${agentLines}` }] },
          })}\n`,
        );
        await fire("subagent-stop", { agent_transcript_path: agent, agent_id: `w${index}` });
        break;
      }
      default: {
        lastText = `writer ${index} done ${turn}`;
        b.say(lastText);
        flush();
        await fire("stop", { last_assistant_message: lastText, stop_hook_active: false });
      }
    }
  }
  return failures;
}

if (import.meta.main) {
  const [dir, index, calls] = process.argv.slice(2);
  const failures = await runWorkload(dir!, Number(index), Number(calls), process.env);
  for (const f of failures) process.stderr.write(f);
  process.exitCode = failures.length === 0 ? 0 : 1;
}
