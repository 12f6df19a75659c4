/**
 * Activity extraction (SPEC §7): a tool call and its result in, zero or more events out.
 * The same function serves the PostToolUse hook and transcript capture, so both paths store
 * the same events for one call (and the database keys them on `tool_use_id`). Pure.
 */
import { isObject, type Json, type JsonObject, str } from "./jsonl.ts";
import type { ToolCall, ToolResult } from "./model.ts";
import { redact } from "./redact.ts";
import { heredocBody, programName, simpleCommands } from "./shell.ts";
import { clip, flatLine } from "./text.ts";

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

/** One line, at most this many characters (SPEC §7). */
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
function headLine(text: string): string {
  const cleaned = text
    .replace(/<\/?tool_use_error>/g, "")
    .replace(/^Exit code -?\d+\s*\n?/, "")
    .replace(/^Error:\s*/, "")
    .replace(/\\n/g, "\n");
  for (const line of cleaned.split("\n")) if (line.trim()) return line.trim();
  return "";
}

function draft(
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

function structured(r: ToolResult | undefined): JsonObject | undefined {
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

function failed(r: ToolResult): boolean {
  if (r.isError) return true;
  const code = exitCodeOf(r);
  return code !== null && code !== 0;
}

function errorEvent(call: ToolCall, r: ToolResult): EventDraft {
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

// ── files ──────────────────────────────────────────────────────────────────────────────

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

function fileEdit(call: ToolCall, r: ToolResult): EventDraft[] {
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

function fileWrite(call: ToolCall, r: ToolResult): EventDraft[] {
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

// ── git ────────────────────────────────────────────────────────────────────────────────

/** Git options that come before the subcommand and take a value as the next word. */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"]);

/** `git [global options] <sub> args…` → `[sub, args]`; null when the words are not a git command. */
export function gitSubcommand(words: readonly string[]): [string, string[]] | null {
  if (programName(words[0] ?? "") !== "git") return null;
  let i = 1;
  while (i < words.length && words[i]!.startsWith("-")) {
    i += GIT_VALUE_OPTIONS.has(words[i]!) ? 2 : 1;
  }
  const sub = words[i];
  return sub === undefined ? null : [sub, words.slice(i + 1)];
}

function cleanMessage(m: string): string {
  const fromHeredoc = m.includes("<<") ? heredocBody(m) : null;
  let msg = fromHeredoc ?? m;
  msg = msg.replace(/^@'\n?|\n?'@$/g, "").replace(/^@"\n?|\n?"@$/g, "");
  return msg.trim();
}

interface CommitArgs {
  message: string | null;
  messageFile: string | null;
  amend: boolean;
}

function commitArgs(args: readonly string[]): CommitArgs {
  const messages: string[] = [];
  let messageFile: string | null = null;
  let amend = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--amend") amend = true;
    else if (a === "-m" || a === "--message") messages.push(args[++i] ?? "");
    else if (a.startsWith("--message=")) messages.push(a.slice(10));
    else if (a === "-F" || a === "--file") messageFile = args[++i] ?? null;
    else if (a.startsWith("--file=")) messageFile = a.slice(7);
    else if (/^-[a-zA-Z]+$/.test(a) && !a.startsWith("--")) {
      // Bundled short flags: `-am "msg"`; `-m` must be the last letter to take the next word.
      if (a.endsWith("m")) messages.push(args[++i] ?? "");
      else if (a.endsWith("F")) messageFile = args[++i] ?? null;
      else if (/^-[a-zA-Z]*m./.test(a)) messages.push(a.slice(a.indexOf("m") + 1));
    }
  }
  const message = messages.map(cleanMessage).filter(Boolean).join("\n\n");
  return { message: message || null, messageFile, amend };
}

/** `[main 1a2b3c4] subject` (also `[main (root-commit) 1a2b3c4]`) in git's commit output. */
function commitOutput(text: string): { branch: string; hash: string; subject: string } | null {
  const m = /\[([^\]\s]+)(?: \([^)]*\))? ([0-9a-f]{7,40})\] ([^\r\n]*)/.exec(text);
  return m ? { branch: m[1]!, hash: m[2]!, subject: m[3]!.trim() } : null;
}

function isBranchTarget(target: string): boolean {
  if (target === "." || target === "-" || target === "") return target === "-";
  return !/\.[A-Za-z0-9]{1,6}$/.test(target) || /^v?\d+\.\d+/.test(target);
}

function checkoutOf(sub: string, args: readonly string[]): { target: string; create: boolean } | null {
  if (args.includes("--")) return null; // `git checkout -- file`: restoring files
  let create = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-b" || a === "-B" || a === "-c" || a === "-C" || a === "--orphan" || a === "--create") {
      create = true;
      const name = args[++i];
      if (name) return { target: name, create };
    } else if (a.startsWith("--create=")) return { target: a.slice(9), create: true };
    else if (!a.startsWith("-")) positional.push(a); // other flags (--track, --detach, -f) take no value
  }
  if (positional.length !== 1) return null;
  const target = positional[0]!;
  if (sub === "checkout" && !isBranchTarget(target)) return null;
  return { target, create };
}

// ── tests ──────────────────────────────────────────────────────────────────────────────

const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
const DIRECT_RUNNERS = new Set([
  "jest",
  "vitest",
  "mocha",
  "ava",
  "pytest",
  "py.test",
  "rspec",
  "phpunit",
  "pest",
  "ctest",
  "tox",
  "nox",
  "karma",
  "jasmine",
  "nextest",
  "busted",
  "prove",
]);
/** `<tool> test` runners. */
const TEST_SUBCOMMAND = new Set([
  "go",
  "cargo",
  "mix",
  "dotnet",
  "mvn",
  "mvnw",
  "gradle",
  "gradlew",
  "deno",
  "swift",
  "flutter",
  "dart",
  "zig",
  "rails",
  "rake",
  "lein",
  "sbt",
  "stack",
  "cabal",
  "bazel",
  "meson",
]);
/** Launchers whose first argument is the real program: `npx jest`, `uv run pytest`. */
const LAUNCHERS: Record<string, number> = { npx: 1, bunx: 1, pnpx: 1 };

/** The test runner a simple command runs, as a short name (`bun test`, `pytest`, …); null when none. */
export function testRunner(words: readonly string[]): string | null {
  let w = [...words];
  for (let guard = 0; guard < 4; guard++) {
    const p = programName(w[0] ?? "");
    if (LAUNCHERS[p]) w = w.slice(1).filter((x, i) => i > 0 || !x.startsWith("-"));
    else if (
      (p === "uv" || p === "poetry" || p === "pipenv" || p === "hatch" || p === "pdm") &&
      w[1] === "run"
    )
      w = w.slice(2);
    else if (p === "bundle" && w[1] === "exec") w = w.slice(2);
    else if ((p === "pnpm" || p === "yarn") && (w[1] === "exec" || w[1] === "dlx")) w = w.slice(2);
    else if (/^python[\d.]*$/.test(p) || p === "py") {
      const m = w.indexOf("-m");
      if (m < 0) return null;
      const mod = w[m + 1] ?? "";
      if (mod === "pytest" || mod === "unittest" || mod === "nose2" || mod === "tox")
        return `python -m ${mod}`;
      return null;
    } else break;
    while (w[0]?.startsWith("-")) w = w.slice(1);
  }
  const p = programName(w[0] ?? "");
  const args = w.slice(1).filter((a) => !a.startsWith("-"));
  if (PACKAGE_MANAGERS.has(p)) {
    const first = args[0] ?? "";
    if (first === "test" || first === "t") return `${p} test`;
    if (first === "run" && /^test(?:[:\-_].*)?$/.test(args[1] ?? "")) return `${p} run ${args[1]}`;
    if (p === "yarn" && /^test[:\-_]/.test(first)) return `yarn ${first}`;
    return null;
  }
  if (DIRECT_RUNNERS.has(p)) return p;
  if (p === "playwright" && args[0] === "test") return "playwright test";
  if (p === "cypress" && args[0] === "run") return "cypress run";
  if (p === "make" && (args.includes("test") || args.includes("check") || args.includes("tests")))
    return `make ${args.find((a) => a === "test" || a === "check" || a === "tests")}`;
  if (TEST_SUBCOMMAND.has(p)) {
    const sub = args[0] ?? "";
    if (sub === "test" || (p === "zig" && sub === "build" && args[1] === "test")) return `${p} test`;
    if (p === "cargo" && sub === "nextest") return "cargo nextest";
  }
  return null;
}

export interface TestOutcome {
  outcome: "pass" | "fail" | "unknown";
  passed: number | null;
  failed: number | null;
}

function lastNumber(text: string, re: RegExp): number | null {
  let n: number | null = null;
  for (const m of text.matchAll(re)) n = Number(m[1]);
  return n;
}

/** Pass/fail of a test run from its exit status and the summary lines runners print. */
export function testOutcome(r: ToolResult): TestOutcome {
  const text = r.text.length > 20_000 ? r.text.slice(-20_000) : r.text;
  const failedN =
    lastNumber(text, /\b(\d+) (?:failed|failures?|failing|fail|errors?)\b/gi) ??
    lastNumber(text, /\b(?:Failures|Failed|failed):\s*(\d+)/g);
  let passed =
    lastNumber(text, /\b(\d+) (?:passed|passing|pass|successful|succeeded)\b/gi) ??
    lastNumber(text, /\bPassed:\s*(\d+)/g);
  const total = lastNumber(text, /\b(\d+) (?:tests?|examples?|specs?)\b/gi);
  if (passed === null && total !== null && failedN !== null) passed = Math.max(0, total - failedN);
  if (/^(?:Command running in background|Command was manually backgrounded)/.test(r.text))
    return { outcome: "unknown", passed: null, failed: null };
  const fail =
    failed(r) ||
    (failedN !== null && failedN > 0) ||
    /^FAIL\b|test result: FAILED|^FAILED\b|FAILURES!|Tests failed|✗ \d+ tests? failed/m.test(text);
  if (fail) return { outcome: "fail", passed, failed: failedN };
  const ok =
    (passed !== null && passed > 0) ||
    (failedN === 0 && total !== null) ||
    /^ok\s|test result: ok\.|^OK \(|^OK$|All tests passed|Passed!/m.test(text);
  return { outcome: ok ? "pass" : "unknown", passed, failed: failedN };
}

function bashEvents(call: ToolCall, r: ToolResult): EventDraft[] {
  const cmd = str(call.input.command) ?? "";
  const out: EventDraft[] = [];
  const bad = failed(r);
  const commands = simpleCommands(cmd);
  let committed = false;
  let runner: string | null = null;
  for (const words of commands) {
    const git = gitSubcommand(words);
    if (git) {
      const [sub, args] = git;
      if (sub === "commit" && !committed && !bad) {
        committed = true;
        const a = commitArgs(args);
        const o = commitOutput(r.text);
        const message = a.message ?? o?.subject ?? null;
        const subject = (message ?? "").split("\n")[0]!.trim();
        const detail: JsonObject = { command: clip(cmd, 500), message: message ? clip(message, 2000) : null };
        if (o) {
          detail.hash = o.hash;
          detail.branch = o.branch;
        }
        if (a.amend) detail.amend = true;
        if (a.messageFile) detail.message_file = a.messageFile;
        const what =
          subject || (a.messageFile ? `message from ${a.messageFile}` : a.amend ? "(amended)" : "");
        const where = o ? ` ${o.hash}${o.branch ? ` on ${o.branch}` : ""}` : "";
        out.push(draft(call, "git_commit", `${a.amend ? "Amended" : "Committed"}${where}: ${what}`, detail));
      } else if ((sub === "checkout" || sub === "switch") && !bad) {
        const c = checkoutOf(sub, args);
        if (c)
          out.push(
            draft(
              call,
              "git_checkout",
              `${c.create ? "Created and switched to" : "Switched to"} ${c.target}`,
              { target: c.target, create: c.create, command: clip(cmd, 500) },
            ),
          );
      }
      continue;
    }
    runner ??= testRunner(words);
  }
  if (runner) {
    const t = testOutcome(r);
    const counts =
      t.passed !== null || t.failed !== null
        ? ` (${[t.passed !== null ? `${t.passed} passed` : "", t.failed !== null ? `${t.failed} failed` : ""].filter(Boolean).join(", ")})`
        : "";
    const verdict =
      t.outcome === "pass" ? "Tests passed" : t.outcome === "fail" ? "Tests failed" : "Tests ran";
    out.push(
      draft(call, "test_run", `${verdict}: ${runner}${counts} — ${summaryLine(cmd, 60)}`, {
        command: clip(cmd, 500),
        runner,
        outcome: t.outcome,
        passed: t.passed,
        failed: t.failed,
        ...(exitCodeOf(r) !== null ? { exit_code: exitCodeOf(r) } : {}),
      }),
    );
  }
  if (bad) out.push(errorEvent(call, r));
  return out;
}

// ── todos, plans, questions, skills ────────────────────────────────────────────────────

interface Todo {
  key: string;
  content: string;
  status: string;
}

function todosOf(v: Json | undefined): Todo[] | null {
  if (!Array.isArray(v)) return null;
  const out: Todo[] = [];
  for (const t of v) {
    if (!isObject(t)) continue;
    const content = str(t.content) ?? str(t.subject) ?? "";
    out.push({ key: str(t.id) ?? content, content, status: str(t.status) ?? "pending" });
  }
  return out;
}

const STATUS_VERB: Record<string, string> = {
  in_progress: "Started",
  completed: "Completed",
  pending: "Reopened",
  cancelled: "Cancelled",
};

function todoEvents(call: ToolCall, r: ToolResult): EventDraft[] {
  const s = structured(r);
  const next = todosOf(s?.newTodos) ?? todosOf(call.input.todos) ?? [];
  const prev = todosOf(s?.oldTodos);
  const out: EventDraft[] = [];
  if (prev === null) {
    // Without the previous list only the current focus is known.
    const active = next.find((t) => t.status === "in_progress");
    if (active)
      out.push(
        draft(call, "phase_change", `Working on: ${active.content}`, {
          task: active.content,
          to: "in_progress",
          from: null,
        }),
      );
    return out;
  }
  if (prev.length === 0 && next.length > 0) {
    out.push(
      draft(
        call,
        "phase_change",
        `Planned ${next.length} task${next.length === 1 ? "" : "s"}: ${next.map((t) => t.content).join("; ")}`,
        { planned: next.map((t) => clip(t.content, 200)) },
      ),
    );
  }
  const before = new Map(prev.map((t) => [t.key, t]));
  const byContent = new Map(prev.map((t) => [t.content, t]));
  for (const t of next) {
    const old = before.get(t.key) ?? byContent.get(t.content);
    const from = old?.status ?? null;
    if (from === t.status) continue;
    if (from === null && t.status === "pending") continue; // a new item, already counted as planned
    const verb = STATUS_VERB[t.status] ?? `Marked ${t.status}`;
    out.push(draft(call, "phase_change", `${verb}: ${t.content}`, { task: t.content, from, to: t.status }));
  }
  return out;
}

function taskUpdateEvents(call: ToolCall): EventDraft[] {
  const status = str(call.input.status);
  if (!status) return [];
  const subject =
    str(call.input.subject) ?? str(call.input.activeForm) ?? `task ${str(call.input.taskId) ?? "?"}`;
  const verb = STATUS_VERB[status] ?? `Marked ${status}`;
  return [draft(call, "phase_change", `${verb}: ${subject}`, { task: subject, to: status, from: null })];
}

function planTitle(plan: string): string {
  for (const line of plan.split("\n")) {
    const t = line
      .replace(/^#+\s*/, "")
      .replace(/^Plan:\s*/i, "")
      .trim();
    if (t) return t;
  }
  return "";
}

function exitPlanEvents(call: ToolCall, r: ToolResult): EventDraft[] {
  const s = structured(r);
  const plan = str(call.input.plan) ?? str(s?.plan) ?? "";
  const title = planTitle(plan);
  return [
    draft(call, "decision", `Plan approved${title ? `: ${title}` : ""}`, {
      kind: "plan_approved",
      plan: clip(plan, 2000),
      ...(str(s?.filePath) ? { plan_file: str(s?.filePath)! } : {}),
    }),
    draft(call, "phase_change", "Left plan mode: implementation starts", { from: "plan", to: "implement" }),
  ];
}

/** Question → answer pairs from the structured result, else from the result text. */
export function answersOf(call: ToolCall, r: ToolResult): [string, string][] {
  const s = structured(r);
  const answers = isObject(s?.answers) ? s.answers : null;
  if (answers) {
    const pairs: [string, string][] = [];
    for (const [q, a] of Object.entries(answers)) {
      const text =
        typeof a === "string" ? a : Array.isArray(a) ? a.map(String).join(", ") : JSON.stringify(a);
      pairs.push([q, text]);
    }
    if (pairs.length > 0) return pairs;
  }
  const pairs: [string, string][] = [];
  for (const m of r.text.matchAll(/"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"/g)) pairs.push([m[1]!, m[2]!]);
  if (pairs.length > 0) return pairs;
  const qs = Array.isArray(call.input.questions) ? call.input.questions : [];
  const first = qs.find(isObject);
  return first ? [[str(first.question) ?? "question", summaryLine(r.text, 200)]] : [];
}

function questionEvents(call: ToolCall, r: ToolResult): EventDraft[] {
  return answersOf(call, r).map(([q, a]) =>
    draft(call, "decision", `Answered: ${summaryLine(q, 60)} → ${a}`, {
      kind: "question_answered",
      question: clip(q, 500),
      answer: clip(a, 500),
    }),
  );
}

function agentName(call: ToolCall): string {
  return str(call.input.subagent_type) ?? str(call.input.agent_type) ?? "general-purpose";
}

function taskEvents(call: ToolCall, r: ToolResult | undefined): EventDraft[] {
  const description = str(call.input.description) ?? summaryLine(str(call.input.prompt) ?? "", 80);
  const agent = agentName(call);
  const s = structured(r);
  const duration = typeof s?.totalDurationMs === "number" ? s.totalDurationMs : null;
  const startTs = r && duration !== null && call.ts >= r.ts ? r.ts - duration : call.ts;
  const out: EventDraft[] = [
    draft(
      call,
      "skill_start",
      `${call.name} started (${agent}): ${description}`,
      { kind: "agent", agent, description: clip(description, 300) },
      startTs,
    ),
  ];
  if (!r) return out;
  const status = str(s?.status);
  if (status === "async_launched" || s?.isAsync === true) return out; // still running in background
  if (failed(r)) {
    out.push(
      draft(call, "skill_end", `${call.name} failed (${agent}): ${description}`, {
        kind: "agent",
        agent,
        description: clip(description, 300),
        status: "failed",
      }),
    );
    out.push(errorEvent(call, r));
    return out;
  }
  const stats: string[] = [];
  if (duration !== null) stats.push(`${Math.round(duration / 1000)} s`);
  if (typeof s?.totalToolUseCount === "number") stats.push(`${s.totalToolUseCount} tool uses`);
  const interrupted = s?.wasInterrupted === true;
  out.push(
    draft(
      call,
      "skill_end",
      `${call.name} ${interrupted ? "interrupted" : "finished"} (${agent}): ${description}${stats.length ? ` (${stats.join(", ")})` : ""}`,
      {
        kind: "agent",
        agent,
        description: clip(description, 300),
        status: interrupted ? "interrupted" : (status ?? "completed"),
        ...(duration !== null ? { duration_ms: duration } : {}),
        ...(typeof s?.totalToolUseCount === "number" ? { tool_uses: s.totalToolUseCount } : {}),
      },
    ),
  );
  return out;
}

function skillEvents(call: ToolCall): EventDraft[] {
  const name = str(call.input.skill) ?? str(call.input.command) ?? "skill";
  const args = str(call.input.args);
  return [
    draft(
      call,
      "skill_start",
      `Skill started: ${name}${args ? ` ${args}` : ""}`,
      { kind: "skill", skill: name, ...(args ? { args: clip(args, 300) } : {}) },
      call.ts,
    ),
  ];
}

const FILE_EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit"]);

/** Events of one tool call (SPEC §7). A call without a result yet yields only what its start tells. */
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

/** Every stored string of an event passes through redaction (SPEC §3), its detail value by value. */
export function redactEvent(d: EventDraft): EventDraft {
  return {
    ...d,
    summary: summaryLine(redact(d.summary)),
    detail: mapStrings(d.detail, redact) as JsonObject,
  };
}

// ── PostToolUse payloads ───────────────────────────────────────────────────────────────

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
