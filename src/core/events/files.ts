/** File events: Edit, MultiEdit, NotebookEdit and Write calls (docs/activity.md). Pure. */

import { isObject, type JsonObject, str } from "../jsonl.ts";
import type { ToolCall, ToolResult } from "../model.ts";
import { draft, type EventDraft, shortPath, structured } from "./common.ts";

function patchCounts(s: JsonObject | undefined): { added: number; removed: number } | null {
  const patch = s?.structuredPatch;
  if (!Array.isArray(patch)) return null;
  let added = 0;
  let removed = 0;
  for (const hunk of patch) {
    if (!isObject(hunk) || !Array.isArray(hunk.lines)) continue;
    for (const l of hunk.lines) {
      if (typeof l !== "string") continue;
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

function lineCount(text: string | undefined): number {
  if (!text) return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function countsSuffix(c: { added: number; removed: number } | null): string {
  return c ? ` (+${c.added} −${c.removed})` : "";
}

export function fileEdit(call: ToolCall, r: ToolResult): EventDraft[] {
  const s = structured(r);
  const input = call.input;
  const path = str(input.file_path) ?? str(s?.filePath) ?? str(input.notebook_path) ?? "(unknown file)";
  if (call.name === "NotebookEdit") {
    const mode = str(input.edit_mode) ?? "replace";
    const cell =
      str(input.cell_id) ?? (typeof input.cell_number === "number" ? String(input.cell_number) : null);
    return [
      draft(call, "file_edit", `Edited notebook ${shortPath(path)} (${mode}${cell ? ` cell ${cell}` : ""})`, {
        path,
        tool: call.name,
        edit_mode: mode,
        ...(cell ? { cell } : {}),
      }),
    ];
  }
  let counts = patchCounts(s);
  if (!counts) {
    if (call.name === "MultiEdit" && Array.isArray(input.edits)) {
      counts = { added: 0, removed: 0 };
      for (const e of input.edits) {
        if (!isObject(e)) continue;
        counts.added += lineCount(str(e.new_string));
        counts.removed += lineCount(str(e.old_string));
      }
    } else if (call.name === "Edit")
      counts = { added: lineCount(str(input.new_string)), removed: lineCount(str(input.old_string)) };
  }
  const detail: JsonObject = { path, tool: call.name };
  if (counts) {
    detail.added = counts.added;
    detail.removed = counts.removed;
  }
  if (call.name === "MultiEdit" && Array.isArray(input.edits)) detail.edits = input.edits.length;
  if (input.replace_all === true) detail.replace_all = true;
  const edits =
    call.name === "MultiEdit" && Array.isArray(input.edits) ? `, ${input.edits.length} edits` : "";
  return [
    draft(
      call,
      "file_edit",
      `Edited ${shortPath(path)}${countsSuffix(counts)}${edits ? edits.replace(/^, /, " ") : ""}`,
      detail,
    ),
  ];
}

/** Write creates or replaces: the structured result says which, else its text or `originalFile`. */
export function writeKind(r: ToolResult): "create" | "update" | null {
  const s = structured(r);
  if (s?.type === "create" || s?.type === "update") return s.type;
  if (s && "originalFile" in s) return s.originalFile === null || s.originalFile === "" ? "create" : "update";
  if (/^File created successfully/.test(r.text)) return "create";
  if (/has been (?:updated|overwritten)/.test(r.text)) return "update";
  return null;
}

export function fileWrite(call: ToolCall, r: ToolResult): EventDraft[] {
  const s = structured(r);
  const path = str(call.input.file_path) ?? str(s?.filePath) ?? "(unknown file)";
  const kind = writeKind(r);
  const lines = lineCount(str(call.input.content) ?? str(s?.content));
  if (kind === "create")
    return [
      draft(call, "file_create", `Created ${shortPath(path)} (${lines} lines)`, {
        path,
        tool: call.name,
        lines,
      }),
    ];
  const counts = patchCounts(s);
  return [
    draft(
      call,
      "file_edit",
      `Rewrote ${shortPath(path)}${counts ? countsSuffix(counts) : ` (${lines} lines)`}`,
      {
        path,
        tool: call.name,
        lines,
        mode: kind === "update" ? "overwrite" : "write",
        ...(counts ? { added: counts.added, removed: counts.removed } : {}),
      },
    ),
  ];
}
