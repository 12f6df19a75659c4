/**
 * Reading a transcript entry's time and message blocks, shared by the main transcript's
 * assembly (core/assemble.ts), a subagent's (core/subagent.ts) and the monitor's reading
 * (core/usage.ts). Pure.
 */
import { ASSEMBLED_TYPES, isObject, type Json, type JsonObject, str } from "./jsonl.ts";
import type { ToolCall, ToolResult } from "./model.ts";

export function parseTime(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * When an entry was activity of its session: its own timestamp, for an entry of the
 * conversation (ASSEMBLED_TYPES); the client's bookkeeping lines (a queued prompt, a mode
 * switch) are not. A session's last activity is the newest of these, never a file's mtime or
 * when throughline read it: each captured turn ends at it (`turns.ended_at`, read by `status`
 * through db/queries/sessions.ts `LAST_ACTIVITY`), and `monitor` and the web view's Live page
 * take it from the transcript (usage.ts).
 */
export function activityTime(entry: JsonObject): number | undefined {
  if (!ASSEMBLED_TYPES.has(str(entry.type) ?? "")) return undefined;
  return parseTime(entry.timestamp);
}

export function blocksOf(message: Json | undefined): Json[] {
  if (!isObject(message)) return [];
  const c = message.content;
  if (typeof c === "string") return [{ type: "text", text: c }];
  return Array.isArray(c) ? c : [];
}

/** The blocks of an entry's `message`. */
export function entryBlocks(entry: JsonObject): Json[] {
  return blocksOf(isObject(entry.message) ? entry.message : undefined);
}

export function mediaMarker(block: JsonObject, label: "image" | "document"): string {
  const source = isObject(block.source) ? block.source : {};
  const media = str(source.media_type) ?? "unknown";
  const data = str(source.data);
  const size = data ? ` ${Math.max(1, Math.round((data.length * 3) / 4 / 1024))} KB` : "";
  return `[${label}: ${media}${size}]`;
}

/** Text of a tool_result `content`: string, or a list of text/image/tool_reference blocks. */
export function toolResultText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content) {
    if (!isObject(b)) continue;
    if (b.type === "text") parts.push(str(b.text) ?? "");
    else if (b.type === "image" || b.type === "document") parts.push(mediaMarker(b, b.type));
    else if (b.type === "tool_reference") parts.push(`[tool: ${str(b.tool_name) ?? "?"}]`);
  }
  return parts.join("\n");
}

/**
 * Pairs each tool_use block with the tool_result that answers it, by id: the calls, with their
 * results, feed the activity index (docs/activity.md).
 */
export class ToolCalls {
  private readonly byId = new Map<string, ToolCall>();

  /** A tool_use block becomes a call, appended to `into`. */
  use(block: JsonObject, ts: number, into: ToolCall[]): ToolCall {
    const call: ToolCall = {
      id: str(block.id) ?? "",
      name: str(block.name) ?? "unknown",
      input: isObject(block.input) ? block.input : {},
      ts,
    };
    if (call.id) this.byId.set(call.id, call);
    into.push(call);
    return call;
  }

  /** The call a tool_result answers, now holding `result`; undefined when no call has that id. */
  answer(toolUseId: string | undefined, result: ToolResult): ToolCall | undefined {
    const call = toolUseId ? this.byId.get(toolUseId) : undefined;
    if (call) call.result = result;
    return call;
  }

  /** The result a tool_result block carries, its text read from the block. */
  answerBlock(block: JsonObject, structured: Json | undefined, ts: number): ToolCall | undefined {
    return this.answer(str(block.tool_use_id), {
      text: toolResultText(block.content),
      isError: block.is_error === true,
      structured,
      ts,
    });
  }
}
