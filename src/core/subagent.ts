/**
 * Subagent conversations as one L3 row (docs/architecture.md): inline sidechains of the main transcript
 * (core/assemble.ts) and a subagent's own transcript file (`<session>/subagents/agent-<id>.jsonl`)
 * render the same way. Pure.
 */
import { isObject, type JsonObject, parseLine, type RawLine, str } from "./jsonl.ts";
import type { DetailDraft, ToolCall } from "./model.ts";
import { clip } from "./text.ts";
import { entryBlocks, parseTime, ToolCalls, toolResultText } from "./transcript-blocks.ts";

const SUBAGENT_LINE_CAP = 400;

/** Renders a subagent conversation compactly: its prompt as input, its steps as output lines. */
export class SubagentRenderer {
  readonly lines: string[] = [];
  prompt: string | null = null;

  add(entry: JsonObject): void {
    const type = entry.type;
    for (const b of entryBlocks(entry)) {
      if (!isObject(b)) continue;
      if (type === "user") {
        if (b.type === "text") {
          const text = str(b.text) ?? "";
          if (this.prompt === null) this.prompt = text;
          else this.lines.push(`[user] ${clip(text, SUBAGENT_LINE_CAP)}`);
        } else if (b.type === "tool_result") {
          const flag = b.is_error === true ? " (error)" : "";
          this.lines.push(`[result${flag}] ${clip(toolResultText(b.content), SUBAGENT_LINE_CAP)}`);
        }
      } else if (type === "assistant") {
        if (b.type === "text") this.lines.push(`[assistant] ${str(b.text) ?? ""}`);
        else if (b.type === "tool_use")
          this.lines.push(
            `[tool] ${str(b.name) ?? "?"} ${clip(JSON.stringify(b.input ?? {}), SUBAGENT_LINE_CAP)}`,
          );
      }
    }
  }

  render(): string {
    return this.lines.join("\n");
  }
}

export interface SubagentDraft {
  agentId: string | undefined;
  sessionId: string | undefined;
  detail: DetailDraft;
  toolCalls: ToolCall[];
  firstTimestamp: number | undefined;
  skippedLines: number;
}

/** A subagent transcript (`<session>/subagents/agent-<id>.jsonl`) becomes one L3 row of its parent's turn. */
export function assembleSubagent(lines: Iterable<RawLine>): SubagentDraft {
  const renderer = new SubagentRenderer();
  const calls = new ToolCalls();
  const toolCalls: ToolCall[] = [];
  let agentId: string | undefined;
  let sessionId: string | undefined;
  let first: number | undefined;
  let last = 0;
  let skipped = 0;
  for (const line of lines) {
    const e = parseLine(line.text);
    if (!e) {
      skipped++;
      continue;
    }
    try {
      addSubagentEntry(e);
    } catch {
      // Same rule as the main transcript: one entry that cannot be handled is skipped, not fatal.
      skipped++;
    }
  }
  function addSubagentEntry(e: JsonObject): void {
    agentId ??= str(e.agentId);
    sessionId ??= str(e.sessionId);
    const ts = parseTime(e.timestamp);
    if (ts !== undefined) {
      first ??= ts;
      last = ts;
    }
    if (e.type !== "user" && e.type !== "assistant") return;
    renderer.add(e);
    for (const b of entryBlocks(e)) {
      if (!isObject(b)) continue;
      if (b.type === "tool_use") calls.use(b, last, toolCalls);
      else if (b.type === "tool_result") calls.answerBlock(b, e.toolUseResult, last);
    }
  }
  return {
    agentId,
    sessionId,
    detail: {
      kind: "subagent",
      toolName: agentId ? `agent-${agentId}` : "subagent",
      toolUseId: null,
      input: renderer.prompt,
      output: renderer.render(),
      isError: false,
      createdAt: first ?? 0,
    },
    toolCalls,
    firstTimestamp: first,
    skippedLines: skipped,
  };
}
