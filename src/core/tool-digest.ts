/**
 * What a turn's tools touched, in one line (docs/contract.md#the-push): the files read, edited and
 * created with their paths (an edit also names the identifiers it wrote), the commands run with
 * their outcome, what was searched or fetched. The push and `recall --l2` print it under each turn,
 * so a fact that only a tool ever showed (a path, a function an edit added, a failing command) is
 * where the model looks first. Pure: the rows come from db/queries/chain.ts `toolUsesOf`.
 */
import { fit, flatLine } from "./text.ts";

/** One tool call, with the few input fields the line names and the head of its result. */
export interface ToolUse {
  tool: string;
  /** file_path, notebook_path or path. */
  path: string | null;
  command: string | null;
  pattern: string | null;
  url: string | null;
  query: string | null;
  description: string | null;
  /** The text an edit or a write put in (cut at the source). */
  added: string | null;
  /** The text an edit replaced. */
  removed: string | null;
  isError: boolean;
  /** The head of the tool's result. */
  output: string | null;
}

/** The longest command, pattern or error text one entry shows. */
const ENTRY_CUT = 240;
/** At most this many identifiers per edited or written file. */
const NAMES_PER_FILE = 12;

const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit", "str_replace_based_edit_tool"]);
const WRITE_TOOLS = new Set(["Write", "create_file"]);
const READ_TOOLS = new Set(["Read", "NotebookRead", "view"]);
const SEARCH_TOOLS = new Set(["Grep", "Glob", "LS"]);
/** Bookkeeping tools whose inputs are the turn's plan, not its work: `detail` has them. */
const SILENT_TOOLS = new Set(["TodoWrite", "TaskCreate", "TaskUpdate", "ExitPlanMode", "EnterPlanMode"]);

/**
 * snake_case, camelCase, PascalCase with an inner capital, CONSTANT_CASE: names, not words; and
 * file names with an extension (`parser.ts`, `stdbool.h`), with their directories when given.
 */
const NAME = /(?:[\w.-]+\/)*[A-Za-z_][\w-]*\.[A-Za-z][A-Za-z0-9]{0,9}(?![\w.])|[A-Za-z_][A-Za-z0-9_]{3,63}/g;
const FILE_NAME = /\.[A-Za-z][A-Za-z0-9]{0,9}$/;
const INNER_CAP = /[a-z0-9][A-Z]|[A-Z]{2}[a-z]/;

function isName(w: string): boolean {
  if (FILE_NAME.test(w)) return w.length >= 5 && !/^\d/.test(w);
  return (w.includes("_") && /[A-Za-z]{2}/.test(w) && !/^_+$/.test(w)) || INNER_CAP.test(w);
}

/** The names `added` holds that `removed` does not, in order of first appearance. */
export function newNames(added: string | null, removed: string | null, max = NAMES_PER_FILE): string[] {
  if (!added) return [];
  const old = new Set<string>();
  if (removed) for (const m of removed.matchAll(NAME)) old.add(m[0]);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of added.matchAll(NAME)) {
    const w = m[0];
    if (seen.has(w) || old.has(w) || !isName(w)) continue;
    seen.add(w);
    out.push(w);
    if (out.length === max) break;
  }
  return out;
}

/** A path under the project is shown relative to it: shorter, and how the model names files. */
export function projectPath(path: string, project: string | null): string {
  if (project && project !== "/" && path.startsWith(`${project}/`)) return path.slice(project.length + 1);
  return path;
}

/** The first line of a failed result that says something (not Claude Code's `Exit code N`). */
function errorLine(output: string | null): string {
  if (!output) return "";
  const lines = output.split("\n", 8).map((l) => l.trim());
  const code = /^Exit code (\d+)$/.exec(lines[0] ?? "");
  const said = lines.find((l, i) => l !== "" && !(i === 0 && code) && !l.startsWith("<"));
  const text = said ? flatLine(said, ENTRY_CUT) : "";
  return code ? (text ? `exit ${code[1]}: ${text}` : `exit ${code[1]}`) : text;
}

interface FileEntry {
  verb: "read" | "edited" | "created";
  path: string;
  names: string[];
}

/**
 * `edited src/a.ts (parseArgs, MAX_LEN); read b.ts, c.ts; ran `npm test` (failed: exit 1: …)`.
 * Files under one verb are listed together; commands and searches in the order they ran.
 */
export function toolDigest(uses: readonly ToolUse[], project: string | null, entryCut = ENTRY_CUT): string {
  const files = new Map<string, FileEntry>();
  const parts: { key: string; text: string }[] = [];
  const fileOrder: string[] = [];
  for (const u of uses) {
    if (SILENT_TOOLS.has(u.tool)) continue;
    const failed = u.isError ? ` (failed${errorLine(u.output) ? `: ${errorLine(u.output)}` : ""})` : "";
    const verb = EDIT_TOOLS.has(u.tool)
      ? "edited"
      : WRITE_TOOLS.has(u.tool)
        ? "created"
        : READ_TOOLS.has(u.tool) && u.path
          ? "read"
          : null;
    if (verb && u.path) {
      const path = projectPath(u.path, project);
      const key = `${verb === "read" ? "read" : "write"}\u0000${path}`;
      let entry = files.get(key);
      if (!entry) {
        entry = { verb, path, names: [] };
        files.set(key, entry);
        fileOrder.push(key);
        if (!parts.some((p) => p.key === verb)) parts.push({ key: verb, text: "" });
      }
      if (verb !== "read")
        for (const n of newNames(u.added, u.removed))
          if (entry.names.length < NAMES_PER_FILE && !entry.names.includes(n)) entry.names.push(n);
      if (failed && verb !== "read") entry.path = `${path}${failed}`;
      continue;
    }
    if (u.command !== null) {
      parts.push({ key: "", text: `ran \`${flatLine(u.command, entryCut)}\`${failed}` });
      continue;
    }
    if (SEARCH_TOOLS.has(u.tool)) {
      const what = u.pattern ?? u.path;
      if (what === null) continue;
      const where = u.pattern !== null && u.path ? ` in ${projectPath(u.path, project)}` : "";
      parts.push({
        key: "",
        text: `${u.tool.toLowerCase()} "${flatLine(what, entryCut)}"${where}${failed}`,
      });
      continue;
    }
    if (u.url !== null) {
      parts.push({ key: "", text: `fetched ${flatLine(u.url, entryCut)}${failed}` });
      continue;
    }
    if (u.query !== null) {
      parts.push({ key: "", text: `searched the web for "${flatLine(u.query, entryCut)}"${failed}` });
      continue;
    }
    if (u.description !== null) {
      parts.push({ key: "", text: `${u.tool} "${flatLine(u.description, entryCut)}"${failed}` });
      continue;
    }
    if (failed) parts.push({ key: "", text: `${u.tool}${failed}` });
  }
  const out: string[] = [];
  for (const p of parts) {
    if (p.key === "") {
      out.push(p.text);
      continue;
    }
    const listed = fileOrder
      .map((k) => files.get(k)!)
      .filter((f) => f.verb === p.key)
      .map((f) => (f.names.length > 0 ? `${f.path} (${f.names.join(", ")})` : f.path));
    if (listed.length > 0) out.push(`${p.key} ${listed.join(", ")}`);
  }
  return out.join("; ");
}

/** The line under a turn: `  tools: …`, fitted to `max` characters; "" when no tool ran. */
export function toolLine(
  uses: readonly ToolUse[],
  project: string | null,
  max: number,
  entryCut = ENTRY_CUT,
): string {
  const digest = toolDigest(uses, project, entryCut);
  return digest === "" ? "" : fit(`tools: ${digest}`, max);
}
