/**
 * One tool call as a person reads it (the web view, docs/ui.md): a one-line title (`Bash: make
 * -j4 → exit 2`, `Edit src/x.ts`, `Read src/y.ts`), an edit as a diff, a todo list as a
 * checklist. Pure: the input is the stored JSON of the call, the results its stored outputs.
 */
import { isObject, type JsonObject } from "./jsonl.ts";
import { flatLine } from "./text.ts";
import { projectPath } from "./tool-digest.ts";

/** The longest command, pattern or path a title shows. */
const TITLE_CUT = 120;

/** The call's input as an object; null when it is not stored or not an object. */
export function parseInput(input: string | null): JsonObject | null {
  if (!input) return null;
  try {
    const v: unknown = JSON.parse(input);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

const text = (o: JsonObject | null, ...keys: string[]): string | null => {
  for (const k of keys) {
    const v = o?.[k];
    if (typeof v === "string" && v.trim() !== "") return v;
  }
  return null;
};

/** How a call ended, from its results: `exit 2` (Claude Code's `Exit code 2`), `error`, or null. */
export function callOutcome(results: readonly { text: string; isError: boolean }[]): string | null {
  const failed = results.find((r) => r.isError);
  if (!failed) return null;
  const code = /^Exit code (\d+)/.exec(failed.text.trimStart());
  return code ? `exit ${code[1]}` : "error";
}

function todoTitle(o: JsonObject | null): string {
  const todos = todoItems(o);
  const done = todos.filter((t) => t.status === "completed").length;
  return todos.length > 0 ? `Todo list: ${done} of ${todos.length} done` : "Todo list";
}

/** The part of the title after the tool's name: what it acted on. */
function subject(name: string, o: JsonObject | null, project: string | null): string | null {
  const path = text(o, "file_path", "notebook_path", "path");
  const shown = path ? projectPath(path, project) : null;
  switch (name) {
    case "Bash":
      return text(o, "command");
    case "Edit":
    case "MultiEdit":
    case "Write":
    case "Read":
    case "NotebookEdit":
    case "NotebookRead":
    case "LS":
      return shown;
    case "Grep":
    case "Glob": {
      const pattern = text(o, "pattern");
      return pattern ? `"${pattern}"${shown ? ` in ${shown}` : ""}` : shown;
    }
    case "WebFetch":
      return text(o, "url");
    case "WebSearch":
      return text(o, "query");
    default:
      return text(o, "description", "command", "file_path", "path", "url", "query", "pattern", "prompt");
  }
}

/** `Bash: make -j4 → exit 2`, `Edit src/x.ts`, `Grep "TODO" in src`, `Todo list: 2 of 5 done`. */
export function callTitle(
  name: string,
  input: string | null,
  results: readonly { text: string; isError: boolean }[],
  project: string | null,
): string {
  const o = parseInput(input);
  const outcome = callOutcome(results);
  const end = outcome ? ` → ${outcome}` : "";
  if (name === "TodoWrite") return todoTitle(o) + end;
  const what = subject(name, o, project);
  if (what === null) return name + end;
  const sep = name === "Bash" || !["Edit", "MultiEdit", "Write", "Read", "LS"].includes(name) ? ": " : " ";
  return `${name}${sep}${flatLine(what, TITLE_CUT)}${end}`;
}

export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

/** Past this many cells (old lines × new lines) a diff is every old line out, every new line in. */
const DIFF_CELLS = 250_000;

/** A line diff of two texts (longest common subsequence), the common head and tail kept as context. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const ctx = (lines: string[]): DiffLine[] => lines.map((t) => ({ op: " ", text: t }));
  const middle: DiffLine[] = [];
  if (x.length * y.length > DIFF_CELLS) {
    for (const t of x) middle.push({ op: "-", text: t });
    for (const t of y) middle.push({ op: "+", text: t });
  } else {
    // lcs[i][j]: the common subsequence of x[i..] and y[j..].
    const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        middle.push({ op: " ", text: x[i++]! });
        j++;
      } else if (i < x.length && (j === y.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!))
        middle.push({ op: "-", text: x[i++]! });
      else middle.push({ op: "+", text: y[j++]! });
    }
  }
  return [...ctx(a.slice(0, head)), ...middle, ...ctx(a.slice(a.length - tail))];
}

/** The diffs an edit or a write made, one per change (a MultiEdit has several); null for other tools. */
export function callDiffs(name: string, input: string | null): DiffLine[][] | null {
  const o = parseInput(input);
  if (!o) return null;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  if (name === "Edit" && ("old_string" in o || "new_string" in o))
    return [lineDiff(str(o.old_string), str(o.new_string))];
  if (name === "MultiEdit" && Array.isArray(o.edits))
    return o.edits.filter(isObject).map((e) => lineDiff(str(e.old_string), str(e.new_string)));
  if (name === "Write" && typeof o.content === "string") return [lineDiff("", o.content)];
  if (name === "NotebookEdit" && typeof o.new_source === "string") return [lineDiff("", o.new_source)];
  return null;
}

export interface TodoItem {
  content: string;
  status: "pending" | "in_progress" | "completed" | string;
}

/** The items of a TodoWrite call, in order; [] for anything else. */
export function todoItems(o: JsonObject | null): TodoItem[] {
  const todos = o?.todos;
  if (!Array.isArray(todos)) return [];
  return todos.filter(isObject).map((t) => ({
    content: typeof t.content === "string" ? t.content : "",
    status: String(t.status ?? ""),
  }));
}
