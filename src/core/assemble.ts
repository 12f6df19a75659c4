/**
 * Turn assembly (docs/architecture.md, data flow): transcript lines in, turns with their L2 and L3 out. Pure.
 */
import {
  isObject,
  isTranscriptEntry,
  type Json,
  type JsonObject,
  lineProblem,
  parseLine,
  type RawLine,
  str,
} from "./jsonl.ts";
import type { AssembleResult, DetailDraft, DetailKind, ToolCall, TurnDraft } from "./model.ts";
import { classifyPromptText, dropPrivate } from "./prompt.ts";
import { SubagentRenderer } from "./subagent.ts";
import {
  activityTime,
  blocksOf,
  entryBlocks,
  mediaMarker,
  parseTime,
  ToolCalls,
  toolResultText,
} from "./transcript-blocks.ts";

/** Subagent transcripts are assembled beside the main one (core/subagent.ts). */

/** A line the assembler skipped: where it starts and ends in the file, and why. */
export interface SkippedAt {
  start: number;
  end: number;
  reason: string;
}

/** Skipped lines whose place and reason are kept (the rest are counted): replay and import name a few. */
export const SKIPS_KEPT = 20;

/** The result, plus where each skipped line ended, so a re-read of the open turn counts none twice. */
export interface Assembled extends AssembleResult {
  skippedEnds: number[];
  /** The first SKIPS_KEPT skipped lines, with their reason. */
  skippedAt: SkippedAt[];
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

/** An inline subagent conversation: its L3 row, filled from the renderer when assembly ends. */
interface SidechainGroup {
  detail: DetailDraft;
  renderer: SubagentRenderer;
}

/** The fields most L3 rows leave empty. */
const BARE = { toolName: null, toolUseId: null, input: null, isError: false } as const;

class Assembler {
  readonly turns: TurnDraft[] = [];
  readonly preamble: DetailDraft[] = [];
  readonly preambleCalls: ToolCall[] = [];
  private readonly calls = new ToolCalls();
  private readonly seenUuids = new Set<string>();
  private readonly sidechains = new Map<string, SidechainGroup>();
  private readonly groups: SidechainGroup[] = [];
  private current: TurnDraft | null = null;
  private assistantGroups: { id: string; texts: string[] }[] = [];
  /** Length of the current turn's reply so far: its non-blank texts joined by a blank line. */
  private replyLength = 0;
  private nextNumber: number;
  private lastTs = 0;
  sessionId: string | undefined;
  firstCwd: string | undefined;
  title: string | undefined;
  firstTs: number | undefined;
  lastSeenTs: number | undefined;
  readonly skippedEnds: number[] = [];
  readonly skippedAt: SkippedAt[] = [];
  ignored = 0;
  entries = 0;
  transcriptEntries = 0;

  constructor(opts: AssembleOptions) {
    this.nextNumber = opts.firstTurnNumber;
  }

  private details(): DetailDraft[] {
    return this.current ? this.current.details : this.preamble;
  }

  private addDetail(d: Omit<DetailDraft, "createdAt"> & { createdAt?: number }): void {
    const at = this.current ? { textAt: this.replyLength } : {};
    this.details().push({ ...d, createdAt: d.createdAt ?? this.lastTs, ...at });
  }

  /** A text block of the reply: kept in its message's group, and counted as finishTurn joins it. */
  private addReplyText(id: string, text: string): void {
    const last = this.assistantGroups[this.assistantGroups.length - 1];
    if (last && last.id === id) last.texts.push(text);
    else this.assistantGroups.push({ id, texts: [text] });
    if (text.trim().length > 0) this.replyLength += (this.replyLength > 0 ? 2 : 0) + text.length;
  }

  /** An L3 row that is only text: no tool, no input, not an error unless said. */
  private addText(
    kind: DetailKind,
    output: string | null,
    more: Partial<Omit<DetailDraft, "kind" | "output">> = {},
  ): void {
    this.addDetail({ kind, output, ...BARE, ...more });
  }

  private callsOfNow(): ToolCall[] {
    return this.current ? this.current.toolCalls : this.preambleCalls;
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
    this.replyLength = 0;
  }

  private startTurn(line: RawLine, ts: number, prompt: string, uuid: string | null): TurnDraft {
    this.finishTurn();
    const turn: TurnDraft = {
      number: this.nextNumber++,
      startOffset: line.start,
      uuid,
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
      this.skip(line, () => lineProblem(line.text));
      return;
    }
    if (isTranscriptEntry(entry)) this.transcriptEntries++;
    // One entry that cannot be handled (a shape no check foresaw) must not stop the lines after
    // it: the cursor would never move and every later Stop would fail the same way. Whatever it
    // added before throwing stays; replay and incremental capture see the same lines, so they agree.
    try {
      this.accept(entry, line);
      this.entries++;
    } catch {
      this.skip(line, () => "an entry of a shape it could not read");
    }
  }

  /** The reason is worked out for the first few skipped lines only. */
  private skip(line: RawLine, reason: () => string): void {
    this.skippedEnds.push(line.end);
    if (this.skippedAt.length < SKIPS_KEPT)
      this.skippedAt.push({ start: line.start, end: line.end, reason: reason() });
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
    if (cwd && this.firstCwd === undefined) this.firstCwd = cwd;

    this.dispatch(entry, line, uuid, ts);
    // After dispatch: an entry that starts a turn must not extend the previous one. Nor does one
    // of a type not read (the client's queue and snapshot bookkeeping): a turn ends at its last
    // entry of the conversation, not when the next prompt was queued.
    const at = activityTime(entry);
    if (at !== undefined && this.current && at > this.current.endedAt) this.current.endedAt = at;
  }

  private dispatch(entry: JsonObject, line: RawLine, uuid: string | undefined, ts: number | undefined): void {
    const type = str(entry.type);
    if (entry.isSidechain === true && (type === "user" || type === "assistant")) {
      this.feedSidechain(entry, uuid);
      return;
    }
    // The types read here are ASSEMBLED_TYPES (src/core/jsonl.ts): say a new one there too.
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
        ...(this.current ? { textAt: this.replyLength } : {}),
      };
      this.details().push(detail);
      group = { detail, renderer };
      this.groups.push(group);
    }
    if (uuid) this.sidechains.set(uuid, group);
    group.renderer.add(entry);
    this.sidechainCalls(entry);
  }

  /** Tool calls an inline subagent made did happen: they feed the activity index (docs/activity.md). */
  private sidechainCalls(entry: JsonObject): void {
    for (const b of entryBlocks(entry)) {
      if (!isObject(b)) continue;
      if (b.type === "tool_use" && entry.type === "assistant")
        this.calls.use(b, this.lastTs, this.callsOfNow());
      else if (b.type === "tool_result" && entry.type === "user")
        this.calls.answerBlock(b, entry.toolUseResult, this.lastTs);
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
        images.push({ kind: "image", output: mediaMarker(b, b.type), ...BARE, createdAt: ts });
    }
    const text = texts.join("\n");
    if (entry.isCompactSummary === true) {
      this.addText("compaction", text);
      return;
    }
    if (entry.isMeta === true) {
      if (text.trim()) this.addText("meta", text);
      this.details().push(...images);
      return;
    }
    const cls = classifyPromptText(text, images.length);
    if (cls.kind === "empty") return;
    if (cls.kind === "machine") {
      this.addText(machineKind(text), text);
      return;
    }
    const prompt = dropPrivate(cls.text || (images.length > 0 ? "(image)" : ""));
    const turn = this.startTurn(line, ts, prompt, str(entry.uuid) ?? null);
    for (const ide of cls.ide)
      turn.details.push({ kind: "ide_context", output: ide, ...BARE, createdAt: ts });
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
      let text = toolResultText(b.content);
      if (extraText.length > 0) text = [text, ...extraText].filter(Boolean).join("\n");
      const isError = b.is_error === true;
      const structured = entry.toolUseResult;
      const output = text.length > 0 ? text : compactStructured(structured);
      const call = this.calls.answer(id ?? undefined, { text, isError, structured, ts });
      this.addText("tool_output", output, {
        toolName: call?.name ?? null,
        toolUseId: id,
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
      if (text.trim()) this.addText("system", text, { toolName: "api_error", isError: true });
      return;
    }
    const id = str(message?.id) ?? str(entry.uuid) ?? "";
    for (const b of blocks) {
      if (!isObject(b)) continue;
      if (b.type === "text") {
        const text = str(b.text) ?? "";
        if (!this.current) {
          if (text.trim()) this.addText("meta", text, { toolName: "assistant" });
          continue;
        }
        this.addReplyText(id, text);
      } else if (b.type === "thinking") {
        const text = str(b.thinking) ?? "";
        if (text.trim()) this.addText("thinking", text);
      } else if (b.type === "tool_use") {
        const call = this.calls.use(b, this.lastTs, this.callsOfNow());
        this.addText("tool_input", null, {
          toolName: call.name,
          toolUseId: call.id || null,
          input: JSON.stringify(call.input),
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
        this.addText("compaction", `${content || "Conversation compacted"} (trigger: ${trigger}${pre})`, {
          toolName: "compact_boundary",
        });
        return;
      }
      case "stop_hook_summary":
        this.addText(
          "hook",
          compactStructured({
            hookCount: entry.hookCount ?? null,
            hookInfos: entry.hookInfos ?? null,
            hookErrors: entry.hookErrors ?? null,
            preventedContinuation: entry.preventedContinuation ?? null,
          }),
          {
            toolName: "stop_hook_summary",
            isError: Array.isArray(entry.hookErrors) && entry.hookErrors.length > 0,
          },
        );
        return;
      case "local_command":
        this.addText("command_output", content);
        return;
      default: {
        const text = content || (entry.error !== undefined ? JSON.stringify(entry.error) : "");
        if (text)
          this.addText("system", text, {
            toolName: subtype ?? str(entry.level) ?? null,
            isError: subtype === "api_error",
          });
      }
    }
  }

  private feedAttachment(entry: JsonObject): void {
    const a = isObject(entry.attachment) ? entry.attachment : {};
    const type = str(a.type) ?? "attachment";
    const isHook = type.startsWith("hook_");
    this.addText(isHook ? "hook" : "attachment", JSON.stringify(a), {
      toolName: type,
      toolUseId: str(a.toolUseID) ?? null,
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
      firstCwd: this.firstCwd,
      title: this.title,
      firstTimestamp: this.firstTs,
      lastTimestamp: this.lastSeenTs,
      skippedLines: this.skippedEnds.length,
      skippedEnds: this.skippedEnds,
      skippedAt: this.skippedAt,
      ignoredEntries: this.ignored,
      entries: this.entries,
      transcriptEntries: this.transcriptEntries,
    };
  }
}

export function assemble(lines: Iterable<RawLine>, opts: AssembleOptions): Assembled {
  const a = new Assembler(opts);
  for (const line of lines) a.feed(line);
  return a.finish();
}
