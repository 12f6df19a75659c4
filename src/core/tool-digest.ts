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
/** At most this many identifiers per edited or written file, in the push's short form. */
const NAMES_PER_FILE = 12;

/** How much of a tool line one form shows: the push's short form, or the pulls' full one. */
export interface DigestForm {
  /** The longest command, pattern or error text one entry shows. */
  entryCut: number;
  /** At most this many identifiers per edited or written file. */
  namesPerFile: number;
  /** At most this many identifiers per read file, taken from what the read returned (0: none). */
  namesPerRead: number;
  /** Paths under the project shown relative to it (shorter), or as the tools were given them. */
  relative: boolean;
  /** Backquoted spans of an edit or a write (`gh gist create`) count as names. */
  spans: boolean;
}

/** The push's short lines. */
export const PUSH_FORM: DigestForm = {
  entryCut: ENTRY_CUT,
  namesPerFile: NAMES_PER_FILE,
  namesPerRead: 0,
  relative: true,
  spans: false,
};

/** `recall --l2`'s full lines: chosen by the continuation measurement (docs/benchmarks.md). */
export const FULL_FORM: DigestForm = {
  entryCut: 600,
  namesPerFile: 200,
  namesPerRead: 100,
  relative: false,
  spans: true,
};

const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit", "str_replace_based_edit_tool"]);
const WRITE_TOOLS = new Set(["Write", "create_file"]);
const READ_TOOLS = new Set(["Read", "NotebookRead", "view"]);
const SEARCH_TOOLS = new Set(["Grep", "Glob", "LS"]);
/** Bookkeeping tools whose inputs are the turn's plan, not its work: `detail` has them. */
const SILENT_TOOLS = new Set(["TodoWrite", "TaskCreate", "TaskUpdate", "ExitPlanMode", "EnterPlanMode"]);

/**
 * snake_case, camelCase, PascalCase with an inner capital, CONSTANT_CASE: names, not words; file
 * names with an extension (`parser.ts`, `stdbool.h`), with their directories when given; and what
 * a text put in backquotes (a command, a flag: `gh gist create`), without them.
 */
const NAME = /(?:[\w.-]+\/)*[A-Za-z_][\w-]*\.[A-Za-z][A-Za-z0-9]{0,9}(?![\w.])|[A-Za-z_][A-Za-z0-9_]{3,63}/g;
/** The same, with a backquoted span first (its text in group 1): the full form's names. */
const NAME_OR_SPAN = new RegExp(`\`([^\`\\n]{2,40})\`|${NAME.source}`, "g");
const FILE_NAME = /\.[A-Za-z][A-Za-z0-9]{0,9}$/;
const INNER_CAP = /[a-z0-9][A-Z]|[A-Z]{2}[a-z]/;

function isName(w: string): boolean {
  if (FILE_NAME.test(w)) return w.length >= 5 && !/^\d/.test(w);
  return (w.includes("_") && /[A-Za-z]{2}/.test(w) && !/^_+$/.test(w)) || INNER_CAP.test(w);
}

/** The names `added` holds that `removed` does not, in order of first appearance. */
export function newNames(
  added: string | null,
  removed: string | null,
  max = NAMES_PER_FILE,
  spans = false,
): string[] {
  if (!added) return [];
  const old = new Set<string>();
  const pattern = spans ? NAME_OR_SPAN : NAME;
  if (removed) for (const m of removed.matchAll(pattern)) old.add(m[1] ?? m[0]);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of added.matchAll(pattern)) {
    const w = m[1]?.trim() ?? m[0];
    if (m[1] !== undefined ? w === "" : !isName(w)) continue;
    if (seen.has(w) || old.has(w)) continue;
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
export function toolDigest(
  uses: readonly ToolUse[],
  project: string | null,
  form: DigestForm = PUSH_FORM,
): string {
  const entryCut = form.entryCut;
  const shown = (path: string) => (form.relative ? projectPath(path, project) : path);
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
      const path = shown(u.path);
      const key = `${verb === "read" ? "read" : "write"}\u0000${path}`;
      let entry = files.get(key);
      if (!entry) {
        entry = { verb, path, names: [] };
        files.set(key, entry);
        fileOrder.push(key);
        if (!parts.some((p) => p.key === verb)) parts.push({ key: verb, text: "" });
      }
      const [from, not, max] =
        verb === "read" ? [u.output, null, form.namesPerRead] : [u.added, u.removed, form.namesPerFile];
      if (max > 0)
        for (const n of newNames(from, not, max, form.spans))
          if (entry.names.length < max && !entry.names.includes(n)) entry.names.push(n);
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
      const where = u.pattern !== null && u.path ? ` in ${shown(u.path)}` : "";
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
  form: DigestForm = PUSH_FORM,
): string {
  const digest = toolDigest(uses, project, form);
  return digest === "" ? "" : fit(`tools: ${digest}`, max);
}
