import { type Case, call, extractCases } from "../helpers/events.ts";

const cases: Case[] = [
  // decisions
  [
    "ExitPlanMode approved",
    call(
      "ExitPlanMode",
      { plan: "# Plan: Add search\n\n1. index" },
      { text: "User has approved your plan.", s: { plan: "x" } },
    ),
    ["decision", "phase_change"],
    /^Plan approved: Add search$/,
  ],
  [
    "ExitPlanMode rejected",
    call("ExitPlanMode", { plan: "# P" }, { text: "User chose to stay in plan mode", error: true }),
    ["error"],
  ],
  [
    "AskUserQuestion with structured answers",
    call(
      "AskUserQuestion",
      { questions: [{ question: "Which DB?" }, { question: "Tabs?" }] },
      { text: "", s: { answers: { "Which DB?": "SQLite", "Tabs?": "Spaces" } } },
    ),
    ["decision", "decision"],
    /^Answered: Which DB\? → SQLite$/,
  ],
  [
    "AskUserQuestion from the result text",
    call(
      "AskUserQuestion",
      { questions: [{ question: "Which DB?" }] },
      { text: 'User has answered your questions: "Which DB?"="SQLite". You can now continue.' },
    ),
    ["decision"],
    /Which DB\? → SQLite/,
  ],

  // phases
  [
    "TodoWrite transitions",
    call(
      "TodoWrite",
      {},
      {
        s: {
          oldTodos: [
            { content: "Parse", status: "in_progress", id: "1" },
            { content: "Index", status: "pending", id: "2" },
          ],
          newTodos: [
            { content: "Parse", status: "completed", id: "1" },
            { content: "Index", status: "in_progress", id: "2" },
          ],
        },
      },
    ),
    ["phase_change", "phase_change"],
    /^Completed: Parse$/,
  ],
  [
    "first TodoWrite plans the tasks",
    call(
      "TodoWrite",
      {},
      {
        s: {
          oldTodos: [],
          newTodos: [
            { content: "A", status: "pending" },
            { content: "B", status: "pending" },
          ],
        },
      },
    ),
    ["phase_change"],
    /^Planned 2 tasks: A; B$/,
  ],
  [
    "TodoWrite without the old list",
    call(
      "TodoWrite",
      { todos: [{ content: "A", status: "in_progress" }] },
      { text: "Todos have been modified" },
    ),
    ["phase_change"],
    /^Working on: A$/,
  ],
  [
    "TodoWrite with no change",
    call(
      "TodoWrite",
      {},
      {
        s: {
          oldTodos: [{ content: "A", status: "pending" }],
          newTodos: [{ content: "A", status: "pending" }],
        },
      },
    ),
    [],
  ],
  [
    "EnterPlanMode",
    call("EnterPlanMode", {}, { text: "Entered plan mode." }),
    ["phase_change"],
    /Entered plan mode/,
  ],
  [
    "TaskUpdate",
    call("TaskUpdate", { taskId: "3", status: "completed" }, { text: "ok" }),
    ["phase_change"],
    /^Completed: task 3$/,
  ],

  // skills and agents
  [
    "Skill",
    call("Skill", { skill: "pdf", args: "x.pdf" }, { text: "Launching skill: pdf" }),
    ["skill_start"],
    /^Skill started: pdf x\.pdf$/,
  ],
  [
    "Skill that failed",
    call("Skill", { skill: "commit" }, { text: "Unknown skill: commit", error: true }),
    ["error"],
  ],
  [
    "Task that finished",
    call(
      "Task",
      { description: "Explore", subagent_type: "Explore", prompt: "p" },
      { text: "done", s: { status: "completed", totalDurationMs: 42_000, totalToolUseCount: 7 } },
    ),
    ["skill_start", "skill_end"],
    /^Task started \(Explore\): Explore$/,
  ],
  ["Task still running", call("Task", { description: "Explore", prompt: "p" }), ["skill_start"]],
  [
    "Task launched in the background",
    call("Task", { description: "bg", prompt: "p" }, { text: "launched", s: { status: "async_launched" } }),
    ["skill_start"],
  ],
  [
    "Agent that failed",
    call("Agent", { description: "x", prompt: "p" }, { text: "InputValidationError", error: true }),
    ["skill_start", "skill_end", "error"],
  ],
];

extractCases(cases);
