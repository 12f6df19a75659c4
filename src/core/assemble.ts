/**
 * Turn assembly (SPEC §1, §3): transcript lines in, turns with their L2 and L3 out. Pure.
 */
import { isObject, type Json, type JsonObject, parseLine, type RawLine, str } from "./jsonl.ts";
import type { AssembleResult, DetailDraft, DetailKind, ToolCall, TurnDraft } from "./model.ts";
import { classifyPromptText, dropPrivate } from "./prompt.ts";

/** The result, plus where each skipped line ended, so a re-read of the open turn counts none twice. */
export interface Assembled extends AssembleResult {
  skippedEnds: number[];
}

export interface AssembleOptions {
  /** Number given to the first human prompt found in the lines (the cursor's open turn). */
  firstTurnNumber: number;
}

/** Keys of structured tool results that only duplicate (and dwarf) the result text. */
const BULKY_RESULT_KEYS = new Set([
  "originalFile",
  "structuredPatch",
  "content",
  "file",
  "newTodos",
  "oldTodos",
]);

export function parseTime(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

function blocksOf(message: Json | undefined): Json[] {
  if (!isObject(message)) return [];
  const c = message.content;
  if (typeof c === "string") return [{ type: "text", text: c }];
  return Array.isArray(c) ? c : [];
}

function mediaMarker(block: JsonObject, label: "image" | "document"): string {
  const source = isObject(block.source) ? block.source : {};
  const media = str(source.media_type) ?? "unknown";
  const data = str(source.data);
  const size = data ? ` ${Math.max(1, Math.round((data.length * 3) / 4 / 1024))} KB` : "";
  return `[${label}: ${media}${size}]`;
}

/** Text of a tool_result `content`: string, or a list of text/image/tool_reference blocks. */
function toolResultText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content) {
    if (!isObject(b)) continue;
    if (b.type === "text") parts.push(str(b.text) ?? "");
    else if (b.type === "image" || b.type === "document") parts.push(mediaMarker(b, b.type));
    else if (b.type === "tool_reference") parts.push(`[tool: ${str(b.tool_name) ?? "?"}]`);
  }
  return parts.join("\n");
}

const BASE64_RUN = /^[A-Za-z0-9+/=\s]{1024,}$/;

function compactStructured(v: Json | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  if (!isObject(v)) return JSON.stringify(v);
  const out: JsonObject = {};
  for (const [k, val] of Object.entries(v)) if (!BULKY_RESULT_KEYS.has(k)) out[k] = val;
  // Never store media payloads, wherever a tool put them.
  return JSON.stringify(out, (_k, val: unknown) =>
    typeof val === "string" && BASE64_RUN.test(val)
      ? `[base64 ${Math.round((val.length * 3) / 4 / 1024)} KB]`
      : val,
  );
}

function machineKind(text: string): DetailKind {
  const t = text.trimStart();
  if (t.startsWith("<local-command") || t.startsWith("<bash-")) return "command_output";
  if (t.startsWith("<task-notification>")) return "notification";
  if (t.startsWith("This session is being continued")) return "compaction";
  if (t.startsWith("[Request interrupted")) return "system";
  return "meta";
}

interface SidechainGroup {
  detail: DetailDraft;
  lines: string[];
}

const SUBAGENT_LINE_CAP = 400;

function cap(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)} …` : s;
}

/** Renders a subagent conversation compactly: its prompt as input, its steps as output lines. */
export class SubagentRenderer {
  readonly lines: string[] = [];
  prompt: string | null = null;

  add(entry: JsonObject): void {
    const type = entry.type;
    const message = isObject(entry.message) ? entry.message : undefined;
    for (const b of blocksOf(message)) {
      if (!isObject(b)) continue;
      if (type === "user") {
        if (b.type === "text") {
          const text = str(b.text) ?? "";
          if (this.prompt === null) this.prompt = text;
          else this.lines.push(`[user] ${cap(text, SUBAGENT_LINE_CAP)}`);
        } else if (b.type === "tool_result") {
          const flag = b.is_error === true ? " (error)" : "";
          this.lines.push(`[result${flag}] ${cap(toolResultText(b.content), SUBAGENT_LINE_CAP)}`);
        }
      } else if (type === "assistant") {
        if (b.type === "text") this.lines.push(`[assistant] ${str(b.text) ?? ""}`);
        else if (b.type === "tool_use")
          this.lines.push(
            `[tool] ${str(b.name) ?? "?"} ${cap(JSON.stringify(b.input ?? {}), SUBAGENT_LINE_CAP)}`,
          );
      }
    }
  }

  render(): string {
    return this.lines.join("\n");
  }
}

class Assembler {
  readonly turns: TurnDraft[] = [];
  readonly preamble: DetailDraft[] = [];
  readonly preambleCalls: ToolCall[] = [];
  private readonly calls = new Map<string, ToolCall>();
  private readonly seenUuids = new Set<string>();
  private readonly sidechains = new Map<string, SidechainGroup & { renderer: SubagentRenderer }>();
  private readonly groups: (SidechainGroup & { renderer: SubagentRenderer })[] = [];
  private current: TurnDraft | null = null;
  private assistantGroups: { id: string; texts: string[] }[] = [];
  private nextNumber: number;
  private lastTs = 0;
  sessionId: string | undefined;
  cwd: string | undefined;
  title: string | undefined;
  firstTs: number | undefined;
  lastSeenTs: number | undefined;
  readonly skippedEnds: number[] = [];
  ignored = 0;
  entries = 0;

  constructor(opts: AssembleOptions) {
    this.nextNumber = opts.firstTurnNumber;
  }

  private details(): DetailDraft[] {
    return this.current ? this.current.details : this.preamble;
  }

  private addDetail(d: Omit<DetailDraft, "createdAt"> & { createdAt?: number }): void {
    this.details().push({ ...d, createdAt: d.createdAt ?? this.lastTs });
  }

  private finishTurn(): void {
    const t = this.current;
    if (!t) return;
    const texts = this.assistantGroups.flatMap((g) => g.texts).filter((x) => x.trim().length > 0);
    t.assistant = texts.join("\n\n");
    for (let i = this.assistantGroups.length - 1; i >= 0; i--) {
      const g = this.assistantGroups[i]!;
      const joined = g.texts.filter((x) => x.trim().length > 0).join("\n\n");
      if (joined.length > 0) {
        t.finalText = joined;
        break;
      }
    }
    this.assistantGroups = [];
  }

  private startTurn(line: RawLine, ts: number, prompt: string): TurnDraft {
    this.finishTurn();
    const turn: TurnDraft = {
      number: this.nextNumber++,
      startOffset: line.start,
      startedAt: ts,
      endedAt: ts,
      prompt,
      assistant: "",
      finalText: null,
      details: [],
      toolCalls: [],
    };
    this.turns.push(turn);
    this.current = turn;
    return turn;
  }

  feed(line: RawLine): void {
    const entry = parseLine(line.text);
    if (entry === null) {
      this.skippedEnds.push(line.end);
      return;
    }
    // One entry that cannot be handled (a shape no check foresaw) must not stop the lines after
    // it: the cursor would never move and every later Stop would fail the same way. Whatever it
    // added before throwing stays; replay and incremental capture see the same lines, so they agree.
    try {
      this.accept(entry, line);
      this.entries++;
    } catch {
      this.skippedEnds.push(line.end);
    }
  }

  private accept(entry: JsonObject, line: RawLine): void {
    const uuid = str(entry.uuid);
    if (uuid !== undefined) {
      // The same entry written twice (resume, retries) must not double a turn's content.
      if (this.seenUuids.has(uuid)) return;
      this.seenUuids.add(uuid);
    }
    const ts = parseTime(entry.timestamp);
    if (ts !== undefined) {
      if (this.firstTs === undefined) this.firstTs = ts;
      this.lastSeenTs = ts;
      this.lastTs = ts;
    }
    const sid = str(entry.sessionId);
    if (sid && this.sessionId === undefined) this.sessionId = sid;
    const cwd = str(entry.cwd);
    if (cwd) this.cwd = cwd;

    this.dispatch(entry, line, uuid, ts);
    // After dispatch: an entry that starts a turn must not extend the previous one.
    if (ts !== undefined && this.current && ts > this.current.endedAt) this.current.endedAt = ts;
  }

  private dispatch(entry: JsonObject, line: RawLine, uuid: string | undefined, ts: number | undefined): void {
    const type = str(entry.type);
    if (entry.isSidechain === true && (type === "user" || type === "assistant")) {
      this.feedSidechain(entry, uuid);
      return;
    }
    switch (type) {
      case "user":
        this.feedUser(entry, line, ts ?? this.lastTs);
        return;
      case "assistant":
        this.feedAssistant(entry);
        return;
      case "system":
        this.feedSystem(entry);
        return;
      case "attachment":
        this.feedAttachment(entry);
        return;
      case "custom-title": {
        const title = str(entry.customTitle);
        if (title) this.title = title;
        return;
      }
      default:
        // progress, file-history-snapshot, queue-operation, summary, agent-name, permission-mode,
        // last-prompt and unknown types carry no memory of the turn: ignored, never an error.
        this.ignored++;
    }
  }

  private feedSidechain(entry: JsonObject, uuid: string | undefined): void {
    const parent = str(entry.parentUuid);
    let group = parent ? this.sidechains.get(parent) : undefined;
    if (!group) {
      const renderer = new SubagentRenderer();
      const detail: DetailDraft = {
        kind: "subagent",
        toolName: "sidechain",
        toolUseId: null,
        input: null,
        output: null,
        isError: false,
        createdAt: this.lastTs,
      };
      this.details().push(detail);
      group = { detail, lines: [], renderer };
      this.groups.push(group);
    }
    if (uuid) this.sidechains.set(uuid, group);
    group.renderer.add(entry);
    this.sidechainCalls(entry);
  }

  /** Tool calls an inline subagent made did happen: they feed the activity index (SPEC §7). */
  private sidechainCalls(entry: JsonObject): void {
    for (const b of blocksOf(isObject(entry.message) ? entry.message : undefined)) {
      if (!isObject(b)) continue;
      if (b.type === "tool_use" && entry.type === "assistant") {
        const input = isObject(b.input) ? b.input : {};
        const call: ToolCall = {
          id: str(b.id) ?? "",
          name: str(b.name) ?? "unknown",
          input,
          ts: this.lastTs,
        };
        if (call.id) this.calls.set(call.id, call);
        (this.current ? this.current.toolCalls : this.preambleCalls).push(call);
      } else if (b.type === "tool_result" && entry.type === "user") {
        const call = this.calls.get(str(b.tool_use_id) ?? "");
        if (call)
          call.result = {
            text: toolResultText(b.content),
            isError: b.is_error === true,
            structured: entry.toolUseResult,
            ts: this.lastTs,
          };
      }
    }
  }

  private feedUser(entry: JsonObject, line: RawLine, ts: number): void {
    const message = isObject(entry.message) ? entry.message : undefined;
    const blocks = blocksOf(message);
    const hasToolResult = blocks.some((b) => isObject(b) && b.type === "tool_result");
    if (hasToolResult) {
      this.feedToolResults(entry, blocks, ts);
      return;
    }
    const texts: string[] = [];
    const images: DetailDraft[] = [];
    for (const b of blocks) {
      if (!isObject(b)) continue;
      if (b.type === "text") texts.push(str(b.text) ?? "");
      else if (b.type === "image" || b.type === "document")
        images.push({
          kind: "image",
          toolName: null,
          toolUseId: null,
          input: null,
          output: mediaMarker(b, b.type),
          isError: false,
          createdAt: ts,
        });
    }
    const text = texts.join("\n");
    if (entry.isCompactSummary === true) {
      this.addDetail({
        kind: "compaction",
        toolName: null,
        toolUseId: null,
        input: null,
        output: text,
        isError: false,
      });
      return;
    }
    if (entry.isMeta === true) {
      if (text.trim())
        this.addDetail({
          kind: "meta",
          toolName: null,
          toolUseId: null,
          input: null,
          output: text,
          isError: false,
        });
      this.details().push(...images);
      return;
    }
    const cls = classifyPromptText(text, images.length);
    if (cls.kind === "empty") return;
    if (cls.kind === "machine") {
      this.addDetail({
        kind: machineKind(text),
        toolName: null,
        toolUseId: null,
        input: null,
        output: text,
        isError: false,
      });
      return;
    }
    const prompt = dropPrivate(cls.text || (images.length > 0 ? "(image)" : ""));
    const turn = this.startTurn(line, ts, prompt);
    for (const ide of cls.ide)
      turn.details.push({
        kind: "ide_context",
        toolName: null,
        toolUseId: null,
        input: null,
        output: ide,
        isError: false,
        createdAt: ts,
      });
    turn.details.push(...images);
  }

  private feedToolResults(entry: JsonObject, blocks: Json[], ts: number): void {
    const extraText: string[] = [];
    for (const b of blocks) {
      if (isObject(b) && b.type === "text") extraText.push(str(b.text) ?? "");
    }
    for (const b of blocks) {
      if (!isObject(b) || b.type !== "tool_result") continue;
      const id = str(b.tool_use_id) ?? null;
      const call = id ? this.calls.get(id) : undefined;
      let text = toolResultText(b.content);
      if (extraText.length > 0) text = [text, ...extraText].filter(Boolean).join("\n");
      const isError = b.is_error === true;
      const structured = entry.toolUseResult;
      const output = text.length > 0 ? text : compactStructured(structured);
      if (call) call.result = { text, isError, structured, ts };
      this.addDetail({
        kind: "tool_output",
        toolName: call?.name ?? null,
        toolUseId: id,
        input: null,
        output,
        isError,
        createdAt: ts,
      });
    }
  }

  private feedAssistant(entry: JsonObject): void {
    const message = isObject(entry.message) ? entry.message : undefined;
    const blocks = blocksOf(message);
    if (entry.isApiErrorMessage === true || message?.model === "<synthetic>") {
      const text = blocks.map((b) => (isObject(b) ? (str(b.text) ?? "") : "")).join("\n");
      if (text.trim())
        this.addDetail({
          kind: "system",
          toolName: "api_error",
          toolUseId: null,
          input: null,
          output: text,
          isError: true,
        });
      return;
    }
    const id = str(message?.id) ?? str(entry.uuid) ?? "";
    for (const b of blocks) {
      if (!isObject(b)) continue;
      if (b.type === "text") {
        const text = str(b.text) ?? "";
        if (!this.current) {
          if (text.trim())
            this.addDetail({
              kind: "meta",
              toolName: "assistant",
              toolUseId: null,
              input: null,
              output: text,
              isError: false,
            });
          continue;
        }
        const last = this.assistantGroups[this.assistantGroups.length - 1];
        if (last && last.id === id) last.texts.push(text);
        else this.assistantGroups.push({ id, texts: [text] });
      } else if (b.type === "thinking") {
        const text = str(b.thinking) ?? "";
        if (text.trim())
          this.addDetail({
            kind: "thinking",
            toolName: null,
            toolUseId: null,
            input: null,
            output: text,
            isError: false,
          });
      } else if (b.type === "tool_use") {
        const toolId = str(b.id) ?? "";
        const name = str(b.name) ?? "unknown";
        const input = isObject(b.input) ? b.input : {};
        const call: ToolCall = { id: toolId, name, input, ts: this.lastTs };
        if (toolId) this.calls.set(toolId, call);
        (this.current ? this.current.toolCalls : this.preambleCalls).push(call);
        this.addDetail({
          kind: "tool_input",
          toolName: name,
          toolUseId: toolId || null,
          input: JSON.stringify(input),
          output: null,
          isError: false,
        });
      }
    }
  }

  private feedSystem(entry: JsonObject): void {
    const subtype = str(entry.subtype);
    const content = str(entry.content) ?? "";
    switch (subtype) {
      case "turn_duration":
        return;
      case "compact_boundary": {
        const meta = isObject(entry.compactMetadata) ? entry.compactMetadata : {};
        const trigger = str(meta.trigger) ?? "unknown";
        const pre = typeof meta.preTokens === "number" ? `, ${meta.preTokens} tokens before` : "";
        this.addDetail({
          kind: "compaction",
          toolName: "compact_boundary",
          toolUseId: null,
          input: null,
          output: `${content || "Conversation compacted"} (trigger: ${trigger}${pre})`,
          isError: false,
        });
        return;
      }
      case "stop_hook_summary":
        this.addDetail({
          kind: "hook",
          toolName: "stop_hook_summary",
          toolUseId: null,
          input: null,
          output: compactStructured({
            hookCount: entry.hookCount ?? null,
            hookInfos: entry.hookInfos ?? null,
            hookErrors: entry.hookErrors ?? null,
            preventedContinuation: entry.preventedContinuation ?? null,
          }),
          isError: Array.isArray(entry.hookErrors) && entry.hookErrors.length > 0,
        });
        return;
      case "local_command":
        this.addDetail({
          kind: "command_output",
          toolName: null,
          toolUseId: null,
          input: null,
          output: content,
          isError: false,
        });
        return;
      default: {
        const text = content || (entry.error !== undefined ? JSON.stringify(entry.error) : "");
        if (text)
          this.addDetail({
            kind: "system",
            toolName: subtype ?? str(entry.level) ?? null,
            toolUseId: null,
            input: null,
            output: text,
            isError: subtype === "api_error",
          });
      }
    }
  }

  private feedAttachment(entry: JsonObject): void {
    const a = isObject(entry.attachment) ? entry.attachment : {};
    const type = str(a.type) ?? "attachment";
    const isHook = type.startsWith("hook_");
    this.addDetail({
      kind: isHook ? "hook" : "attachment",
      toolName: type,
      toolUseId: str(a.toolUseID) ?? null,
      input: null,
      output: JSON.stringify(a),
      isError: type === "hook_error" || type === "hook_blocking_error",
    });
  }

  finish(): Assembled {
    this.finishTurn();
    for (const g of this.groups) {
      g.detail.input = g.renderer.prompt;
      g.detail.output = g.renderer.render();
    }
    return {
      turns: this.turns,
      preamble: this.preamble,
      preambleCalls: this.preambleCalls,
      sessionId: this.sessionId,
      cwd: this.cwd,
      title: this.title,
      firstTimestamp: this.firstTs,
      lastTimestamp: this.lastSeenTs,
      skippedLines: this.skippedEnds.length,
      skippedEnds: this.skippedEnds,
      ignoredEntries: this.ignored,
      entries: this.entries,
    };
  }
}

export function assemble(lines: Iterable<RawLine>, opts: AssembleOptions): Assembled {
  const a = new Assembler(opts);
  for (const line of lines) a.feed(line);
  return a.finish();
}

export interface SubagentDraft {
  agentId: string | undefined;
  sessionId: string | undefined;
  detail: DetailDraft;
  toolCalls: ToolCall[];
  firstTimestamp: number | undefined;
  skippedLines: number;
}

/** A subagent transcript (`<session>/subagents/agent-<id>.jsonl`) becomes one L3 row of its parent's turn. */
export function assembleSubagent(lines: Iterable<RawLine>): SubagentDraft {
  const renderer = new SubagentRenderer();
  const calls = new Map<string, ToolCall>();
  const toolCalls: ToolCall[] = [];
  let agentId: string | undefined;
  let sessionId: string | undefined;
  let first: number | undefined;
  let last = 0;
  let skipped = 0;
  for (const line of lines) {
    const e = parseLine(line.text);
    if (!e) {
      skipped++;
      continue;
    }
    try {
      addSubagentEntry(e);
    } catch {
      // Same rule as the main transcript: one entry that cannot be handled is skipped, not fatal.
      skipped++;
    }
  }
  function addSubagentEntry(e: JsonObject): void {
    agentId ??= str(e.agentId);
    sessionId ??= str(e.sessionId);
    const ts = parseTime(e.timestamp);
    if (ts !== undefined) {
      first ??= ts;
      last = ts;
    }
    if (e.type !== "user" && e.type !== "assistant") return;
    renderer.add(e);
    for (const b of blocksOf(isObject(e.message) ? e.message : undefined)) {
      if (!isObject(b)) continue;
      if (b.type === "tool_use") {
        const call: ToolCall = {
          id: str(b.id) ?? "",
          name: str(b.name) ?? "unknown",
          input: isObject(b.input) ? b.input : {},
          ts: last,
        };
        if (call.id) calls.set(call.id, call);
        toolCalls.push(call);
      } else if (b.type === "tool_result") {
        const call = calls.get(str(b.tool_use_id) ?? "");
        if (call)
          call.result = {
            text: toolResultText(b.content),
            isError: b.is_error === true,
            structured: e.toolUseResult,
            ts: last,
          };
      }
    }
  }
  return {
    agentId,
    sessionId,
    detail: {
      kind: "subagent",
      toolName: agentId ? `agent-${agentId}` : "subagent",
      toolUseId: null,
      input: renderer.prompt,
      output: renderer.render(),
      isError: false,
      createdAt: first ?? 0,
    },
    toolCalls,
    firstTimestamp: first,
    skippedLines: skipped,
  };
}
