/**
 * What every event extractor shares (docs/contract.md, activity events): the event types, the
 * one-line summary rule, and the error event any failed tool call becomes. Pure.
 */

import { isObject, type JsonObject, str } from "../jsonl.ts";
import type { ToolCall, ToolResult } from "../model.ts";
import { clip, flatLine } from "../text.ts";

export const EVENT_TYPES = [
  "file_edit",
  "file_create",
  "git_commit",
  "git_checkout",
  "test_run",
  "error",
  "decision",
  "phase_change",
  "skill_start",
  "skill_end",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(v: string): v is EventType {
  return (EVENT_TYPES as readonly string[]).includes(v);
}

/** One line, at most this many characters (docs/activity.md). */
export const SUMMARY_MAX = 120;
/** Free text kept in an event's detail (error heads, messages, plans) is cut to this length. */
export const DETAIL_TEXT_MAX = 1000;

export interface EventDraft {
  type: EventType;
  ts: number;
  /** One line, ≤ 120 characters. */
  summary: string;
  detail: JsonObject;
  toolName: string | null;
  toolUseId: string | null;
  /** Idempotency key for events that have no tool_use_id (notes, hook payloads without one). */
  key?: string;
}

/** A summary, or a part of one (a command, a question): one line, `max` characters at most, `…` where cut. */
export function summaryLine(text: string, max = SUMMARY_MAX): string {
  return flatLine(text, max, "…");
}

/** A path short enough for a summary: keep the tail, which names the file. */
export function shortPath(path: string, max = 60): string {
  if (path.length <= max) return path;
  const parts = path.split(/[\\/]/);
  let out = parts.pop() ?? path;
  if (out.length + 2 > max) return `…${out.slice(-(max - 1))}`;
  while (parts.length > 0 && out.length + parts[parts.length - 1]!.length + 3 <= max)
    out = `${parts.pop()}/${out}`;
  return `…/${out}`;
}

/** First non-empty line of a text, with tool-error wrappers removed. */
export function headLine(text: string): string {
  const cleaned = text
    .replace(/<\/?tool_use_error>/g, "")
    .replace(/^Exit code -?\d+\s*\n?/, "")
    .replace(/^Error:\s*/, "")
    .replace(/\\n/g, "\n");
  for (const line of cleaned.split("\n")) if (line.trim()) return line.trim();
  return "";
}

export function draft(
  call: ToolCall,
  type: EventType,
  summary: string,
  detail: JsonObject,
  ts = call.result?.ts ?? call.ts,
): EventDraft {
  return {
    type,
    ts,
    summary: summaryLine(summary),
    detail,
    toolName: call.name,
    toolUseId: call.id || null,
  };
}

export function structured(r: ToolResult | undefined): JsonObject | undefined {
  return r && isObject(r.structured) ? r.structured : undefined;
}

/** Exit code of a Bash result when it can be read: a structured field, or the `Exit code N` line. */
export function exitCodeOf(r: ToolResult): number | null {
  const s = structured(r);
  for (const k of ["exitCode", "exit_code", "returnCode"]) {
    const v = s?.[k];
    if (typeof v === "number" && Number.isInteger(v)) return v;
  }
  const m =
    /^Exit code (-?\d+)\s*(?:\n|$)/.exec(r.text) ?? /^Error: Exit code (-?\d+)\s*(?:\n|$)/.exec(r.text);
  return m ? Number(m[1]) : null;
}

export function failed(r: ToolResult): boolean {
  if (r.isError) return true;
  const code = exitCodeOf(r);
  return code !== null && code !== 0;
}

export function errorEvent(call: ToolCall, r: ToolResult): EventDraft {
  const input = call.input;
  const code = exitCodeOf(r);
  const detail: JsonObject = {
    tool: call.name,
    error: clip(r.text.trim() || String(r.structured ?? ""), DETAIL_TEXT_MAX),
  };
  let subject = "";
  if (call.name === "Bash") {
    const cmd = str(input.command) ?? "";
    detail.command = clip(cmd, 500);
    subject = summaryLine(cmd, 50);
  } else {
    const path = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
    if (path) {
      detail.path = path;
      subject = shortPath(path, 50);
    } else if (str(input.pattern)) subject = summaryLine(str(input.pattern)!, 40);
    else if (str(input.url)) subject = summaryLine(str(input.url)!, 50);
    else if (str(input.skill)) subject = str(input.skill)!;
    else if (str(input.description)) subject = summaryLine(str(input.description)!, 50);
  }
  if (code !== null) detail.exit_code = code;
  const how = code !== null && code !== 0 ? `failed (exit ${code})` : "failed";
  const head = headLine(r.text || (typeof r.structured === "string" ? r.structured : ""));
  const summary = `${call.name} ${how}${subject ? `: ${subject}` : ""}${head ? ` — ${head}` : ""}`;
  return draft(call, "error", summary, detail);
}
