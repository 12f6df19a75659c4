/**
 * Activity extraction (docs/contract.md, activity events): a tool call and its result in, zero
 * or more events out. The same function serves the PostToolUse hook and transcript capture, so
 * both paths store the same events for one call (and the database keys them on `tool_use_id`).
 * Pure. Each kind of tool has its own module under events/; this one dispatches and redacts,
 * and is the only one importers name.
 */

import { bashEvents } from "./events/bash.ts";
import { draft, type EventDraft, errorEvent, failed, summaryLine } from "./events/common.ts";
import { fileEdit, fileWrite } from "./events/files.ts";
import {
  exitPlanEvents,
  questionEvents,
  skillEvents,
  taskEvents,
  taskUpdateEvents,
  todoEvents,
} from "./events/tasks.ts";
import { isObject, type Json, type JsonObject } from "./jsonl.ts";
import type { ToolCall } from "./model.ts";
import { redact } from "./redact.ts";

export {
  DETAIL_TEXT_MAX,
  EVENT_TYPES,
  type EventDraft,
  type EventType,
  exitCodeOf,
  isEventType,
  SUMMARY_MAX,
  shortPath,
  summaryLine,
} from "./events/common.ts";
export { writeKind } from "./events/files.ts";
export { gitSubcommand } from "./events/git.ts";
export { toolCallFromPostToolUse } from "./events/payload.ts";
export { answersOf } from "./events/tasks.ts";
export { type TestOutcome, testOutcome, testRunner } from "./events/tests.ts";

const FILE_EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit"]);

/** Events of one tool call (docs/activity.md). A call without a result yet yields only what its start tells. */
export function extractEvents(call: ToolCall): EventDraft[] {
  const r = call.result;
  if (call.name === "Task" || call.name === "Agent") return taskEvents(call, r);
  if (!r) return [];
  if (call.name === "Bash") return bashEvents(call, r);
  if (r.isError) return [errorEvent(call, r)];
  if (FILE_EDIT_TOOLS.has(call.name)) return fileEdit(call, r);
  switch (call.name) {
    case "Write":
      return fileWrite(call, r);
    case "apply_patch":
      // Codex's edits (docs/hosts.md): loaded only for them, off every hook's eager graph.
      return (require("./events/patch.ts") as typeof import("./events/patch.ts")).patchEvents(call, r);
    case "TodoWrite":
      return todoEvents(call, r);
    case "TaskUpdate":
      return taskUpdateEvents(call);
    case "ExitPlanMode":
      return exitPlanEvents(call, r);
    case "EnterPlanMode":
      return [draft(call, "phase_change", "Entered plan mode", { from: "implement", to: "plan" })];
    case "AskUserQuestion":
      return questionEvents(call, r);
    case "Skill":
      return skillEvents(call);
    default:
      return failed(r) ? [errorEvent(call, r)] : [];
  }
}

function mapStrings(v: Json, f: (s: string) => string): Json {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = mapStrings(x, f);
    return out;
  }
  return v;
}

/** Every stored string of an event passes through redaction (docs/redaction.md), its detail value by value. */
export function redactEvent(d: EventDraft): EventDraft {
  return {
    ...d,
    summary: summaryLine(redact(d.summary)),
    detail: mapStrings(d.detail, redact) as JsonObject,
  };
}
