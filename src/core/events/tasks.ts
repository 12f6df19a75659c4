/** Events of todos, plans, questions, skills and subagent tasks (docs/activity.md). Pure. */

import { isObject, type Json, str } from "../jsonl.ts";
import type { ToolCall, ToolResult } from "../model.ts";
import { clip, plural } from "../text.ts";
import { draft, type EventDraft, errorEvent, failed, structured, summaryLine } from "./common.ts";

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

export function todoEvents(call: ToolCall, r: ToolResult): EventDraft[] {
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
        `Planned ${plural(next.length, "task")}: ${next.map((t) => t.content).join("; ")}`,
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

export function taskUpdateEvents(call: ToolCall): EventDraft[] {
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

export function exitPlanEvents(call: ToolCall, r: ToolResult): EventDraft[] {
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

export function questionEvents(call: ToolCall, r: ToolResult): EventDraft[] {
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

export function taskEvents(call: ToolCall, r: ToolResult | undefined): EventDraft[] {
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

export function skillEvents(call: ToolCall): EventDraft[] {
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
