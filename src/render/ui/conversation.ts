/**
 * A turn as a conversation (docs/ui.md, "A chain reads as a conversation"): the prompt, then the
 * reply's text and its tool calls in the order they happened. Each call is one line that opens
 * (`<details>`) to its input and output; an edit opens to its diff, a todo list to a checklist.
 * Prompts and replies are Markdown (markdown.ts); every other value goes through the escape helper.
 */
import type { CallResult, ConversationItem, TurnRow } from "../../core/conversation.ts";
import { callDiffs, callTitle, type DiffLine, parseInput, todoItems } from "../../core/tool-call-view.ts";
import { type Html, href, html } from "../html.ts";
import { markdown } from "./markdown.ts";

/** How much of each item a page shows: the chain's pages show less than a turn's own page. */
export interface Cuts {
  /** Characters of a prompt or a reply's text. */
  text: number;
  /** Characters of a tool's input or output. */
  io: number;
  /** Lines of an edit's diff. */
  diff: number;
  /** Where the whole item is: the turn's page (on a chain page), or null (on the turn's own page). */
  whole: string | null;
}

export const CHAIN_CUTS: Omit<Cuts, "whole"> = { text: 8000, io: 600, diff: 40 };
export const TURN_CUTS: Omit<Cuts, "whole"> = { text: 8000, io: 8000, diff: 400 };

function cutNote(cut: Cuts, what: string): Html {
  return cut.whole
    ? html`<p class="cut">… ${what}; <a href="${cut.whole}">the turn's page</a> shows more</p>`
    : html`<p class="cut">… ${what}; <code>detail --item</code> prints it whole</p>`;
}

/** Markdown, cut at `cut.text` characters. */
export function prose(text: string, cut: Cuts): Html {
  const long = text.length > cut.text;
  return html`<div class="md">${markdown(long ? text.slice(0, cut.text) : text)}${long ? cutNote(cut, `cut at ${cut.text.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters`) : ""}</div>`;
}

/** Preformatted text, cut at `cut.io` characters. */
function pre(label: string, text: string, cut: Cuts, cls = ""): Html {
  const long = text.length > cut.io;
  return html`<div class="io${cls ? ` ${cls}` : ""}"><span class="io-label">${label}</span><pre>${long ? text.slice(0, cut.io) : text}</pre>${long ? cutNote(cut, `${(text.length - cut.io).toLocaleString("en-US")} more characters`) : ""}</div>`;
}

function diffBlock(diffs: DiffLine[][], cut: Cuts): Html {
  const lines = diffs.flatMap((d, i) => (i === 0 ? d : [{ op: " " as const, text: "⋯" }, ...d]));
  const shown = lines.slice(0, cut.diff);
  // <ins> and <del> per changed line (shown as blocks by style.css), bare text for context: the
  // lightest markup a diff of many lines can have.
  const rows = shown.map((l) =>
    l.op === " "
      ? html`  ${l.text}\n`
      : l.op === "+"
        ? html`<ins>+ ${l.text}</ins>`
        : html`<del>- ${l.text}</del>`,
  );
  return html`<pre class="diff">${rows}</pre>${lines.length > shown.length ? cutNote(cut, `${lines.length - shown.length} more lines of the diff`) : ""}`;
}

function diffCount(diffs: DiffLine[][]): Html {
  const lines = diffs.flat();
  const add = lines.filter((l) => l.op === "+").length;
  const del = lines.filter((l) => l.op === "-").length;
  return html` <span class="count"><span class="add">+${add}</span> <span class="del">−${del}</span></span>`;
}

const TODO_MARK: Record<string, string> = { completed: "☑", in_progress: "◐", pending: "☐" };

function checklist(input: string | null): Html {
  const items = todoItems(parseInput(input));
  return html`<ul class="todos">${items.map((t) => html`<li class="todo-${t.status}"><span class="box">${TODO_MARK[t.status] ?? "☐"}</span> ${t.content}</li>`)}</ul>`;
}

/**
 * A call's input as a person reads it: a command as `$ …`, a flat input as `name: value` lines,
 * anything nested as indented JSON.
 */
function inputText(name: string, input: string | null): string {
  const o = parseInput(input);
  if (!o) return input ?? "";
  if (name === "Bash" && typeof o.command === "string") return `$ ${o.command}`;
  const values = Object.values(o);
  if (values.every((v) => v === null || typeof v !== "object"))
    return Object.entries(o)
      .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join("\n");
  return JSON.stringify(o, null, 2);
}

function results(rs: readonly CallResult[], cut: Cuts): Html[] {
  return rs.map((r) => pre(r.isError ? "error" : "output", r.text, cut, r.isError ? "error" : ""));
}

/** One tool call: its line, and folded under it what it did. */
export function callItem(
  c: Extract<ConversationItem, { type: "call" }>,
  project: string | null,
  cut: Cuts,
): Html {
  const failed = c.results.some((r) => r.isError);
  const diffs = callDiffs(c.name, c.input);
  const todo = c.name === "TodoWrite";
  const body = diffs
    ? [
        diffBlock(diffs, cut),
        ...results(
          c.results.filter((r) => r.isError),
          cut,
        ),
      ]
    : todo
      ? [
          checklist(c.input),
          ...results(
            c.results.filter((r) => r.isError),
            cut,
          ),
        ]
      : [c.input === null ? "" : pre("input", inputText(c.name, c.input), cut), ...results(c.results, cut)];
  const kind = diffs ? " edit" : todo ? " todo" : "";
  return html`<details class="call${kind}${failed ? " error" : ""}" data-tool="${c.name}"><summary><span class="call-title">${callTitle(c.name, c.input, c.results, project)}</span>${diffs ? diffCount(diffs) : ""}</summary>
${body}
</details>`;
}

const NOTE_LABEL: Record<string, string> = {
  thinking: "Thinking",
  subagent: "Subagent",
  image: "Image",
  compaction: "Compaction",
  command_output: "Command output",
  notification: "Notification",
  ide_context: "IDE context",
  attachment: "Attachment",
  hook: "Hook",
  system: "System",
  meta: "Meta",
};

function noteItem(r: TurnRow, cut: Cuts): Html {
  const label = `${NOTE_LABEL[r.kind] ?? r.kind}${r.toolName ? ` · ${r.toolName}` : ""}${r.isError ? " (error)" : ""}`;
  const body =
    r.kind === "thinking"
      ? prose(r.output ?? "", cut)
      : [r.input ? pre("input", r.input, cut) : "", r.output ? pre("output", r.output, cut) : ""];
  return html`<details class="note note-${r.kind}${r.isError ? " error" : ""}"><summary>${label}</summary>${body}</details>`;
}

/** The reply: its text and calls in the order they happened. */
export function replyItems(items: readonly ConversationItem[], project: string | null, cut: Cuts): Html[] {
  return items.map((it) =>
    it.type === "text"
      ? prose(it.text, cut)
      : it.type === "call"
        ? callItem(it, project, cut)
        : noteItem(it.row, cut),
  );
}

/** Where the whole of a turn is shown: its own page. */
export function turnHref(id: number): string {
  return href("/turn", { id });
}
