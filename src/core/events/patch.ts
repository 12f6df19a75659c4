/** File events of a Codex `apply_patch` call: one per file its patch adds, updates or deletes (docs/hosts.md). Pure. */

import { str } from "../jsonl.ts";
import type { ToolCall, ToolResult } from "../model.ts";
import { draft, type EventDraft, shortPath } from "./common.ts";

interface PatchFile {
  op: "add" | "update" | "delete";
  path: string;
  movedTo: string | null;
  added: number;
  removed: number;
}

const FILE_HEAD = /^\*\*\* (Add|Update|Delete) File: (.+)$/;

/** The files of an apply_patch envelope (`*** Begin Patch` … `*** End Patch`), in order. */
export function patchFiles(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  let cur: PatchFile | null = null;
  for (const line of patch.split("\n")) {
    const head = FILE_HEAD.exec(line);
    if (head) {
      const op = head[1]!.toLowerCase() as PatchFile["op"];
      cur = { op, path: head[2]!.trim(), movedTo: null, added: 0, removed: 0 };
      files.push(cur);
    } else if (!cur || line.startsWith("*** End")) {
    } else if (line.startsWith("*** Move to: ")) cur.movedTo = line.slice(13).trim();
    else if (line.startsWith("+")) cur.added++;
    else if (line.startsWith("-")) cur.removed++;
  }
  return files;
}

export function patchEvents(call: ToolCall, r: ToolResult): EventDraft[] {
  return patchFiles(str(call.input.patch) ?? "").map((f) => {
    const tool = call.name;
    if (f.op === "add")
      return draft(call, "file_create", `Created ${shortPath(f.path)} (${f.added} lines)`, {
        path: f.path,
        tool,
        lines: f.added,
      });
    if (f.op === "delete")
      return draft(call, "file_edit", `Deleted ${shortPath(f.path)}`, { path: f.path, tool, mode: "delete" });
    const moved = f.movedTo ? ` → ${shortPath(f.movedTo)}` : "";
    return draft(call, "file_edit", `Edited ${shortPath(f.path)}${moved} (+${f.added} −${f.removed})`, {
      path: f.movedTo ?? f.path,
      tool,
      added: f.added,
      removed: f.removed,
      ...(f.movedTo ? { moved_from: f.path } : {}),
      ...(r.isError ? { failed: true } : {}),
    });
  });
}
