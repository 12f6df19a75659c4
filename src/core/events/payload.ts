/** PostToolUse hook payloads turned into the ToolCall transcript capture also builds. Pure. */

import { isObject, type Json, type JsonObject, str } from "../jsonl.ts";
import type { ToolCall } from "../model.ts";

function responseText(name: string, resp: Json | undefined, error: string | undefined): string {
  if (error !== undefined) return error;
  if (typeof resp === "string") return resp;
  if (!isObject(resp)) return Array.isArray(resp) ? blocksText(resp) : "";
  if (name === "Bash") {
    const out = [str(resp.stdout) ?? "", str(resp.stderr) ?? ""].filter(Boolean).join("\n");
    return out;
  }
  if (Array.isArray(resp.content)) return blocksText(resp.content);
  if (typeof resp.content === "string" && name !== "Write") return resp.content;
  if (name === "Write") {
    const path = str(resp.filePath) ?? "";
    return resp.type === "create"
      ? `File created successfully at: ${path}`
      : `The file ${path} has been updated.`;
  }
  return "";
}

function blocksText(blocks: Json[]): string {
  return blocks
    .map((b) => (isObject(b) && b.type === "text" ? (str(b.text) ?? "") : ""))
    .filter(Boolean)
    .join("\n");
}

/**
 * A ToolCall from a PostToolUse (or PostToolUseFailure) hook payload. The payload carries no
 * call time: the call is placed at `now`, minus the duration the response reports, if any.
 * Null when the payload names no tool.
 */
export function toolCallFromPostToolUse(payload: JsonObject, now: number): ToolCall | null {
  const name = str(payload.tool_name);
  if (!name) return null;
  const input = isObject(payload.tool_input) ? payload.tool_input : {};
  const resp = payload.tool_response;
  const error = str(payload.error);
  const isError =
    payload.hook_event_name === "PostToolUseFailure" ||
    error !== undefined ||
    (isObject(resp) && (resp.is_error === true || resp.isError === true));
  const s = isObject(resp) ? resp : undefined;
  const duration = typeof s?.totalDurationMs === "number" ? s.totalDurationMs : 0;
  return {
    id: str(payload.tool_use_id) ?? "",
    name,
    input,
    ts: now - duration,
    result: {
      text: responseText(name, resp, error),
      isError,
      structured: resp === undefined ? undefined : resp,
      ts: now,
    },
  };
}
