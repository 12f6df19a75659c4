import type { Json, JsonObject } from "./jsonl.ts";

/** Kinds of L3 (detail) rows. Closed union: it is also used to build SQL filters. */
export const DETAIL_KINDS = [
  "tool_input",
  "tool_output",
  "thinking",
  "image",
  "attachment",
  "hook",
  "system",
  "meta",
  "command_output",
  "notification",
  "compaction",
  "ide_context",
  "subagent",
] as const;
export type DetailKind = (typeof DETAIL_KINDS)[number];

export interface DetailDraft {
  kind: DetailKind;
  toolName: string | null;
  toolUseId: string | null;
  input: string | null;
  output: string | null;
  isError: boolean;
  createdAt: number;
  /**
   * For a turn's row: how many characters of the turn's reply (`TurnDraft.assistant`) had been
   * written when it happened, so a reader can put the reply's text and the tool calls back in
   * the order they happened (the web view, docs/ui.md). Absent where no reply text applies.
   */
  textAt?: number;
}

export interface ToolResult {
  text: string;
  isError: boolean;
  structured: Json | undefined;
  ts: number;
}

/** A tool call with its result, as the activity extractor needs it. */
export interface ToolCall {
  id: string;
  name: string;
  input: JsonObject;
  ts: number;
  result?: ToolResult;
}

export interface TurnDraft {
  /** 1-based position of the turn in its own transcript. */
  number: number;
  /** Byte offset of the line holding the human prompt. */
  startOffset: number;
  /** The prompt entry's `uuid`: a fork's file repeats it for the turns it copied (docs/contract.md#forks). */
  uuid: string | null;
  startedAt: number;
  endedAt: number;
  prompt: string;
  /** All assistant text of the turn, text blocks joined by a blank line. */
  assistant: string;
  /** The text of the last assistant response that had text: what the person last read. */
  finalText: string | null;
  details: DetailDraft[];
  toolCalls: ToolCall[];
}

export interface AssembleResult {
  turns: TurnDraft[];
  /** L3 found before the first human prompt of the read range. */
  preamble: DetailDraft[];
  preambleCalls: ToolCall[];
  sessionId: string | undefined;
  /**
   * The first working directory the read range names: from byte 0, where the session started
   * (what Claude Code names the transcript's folder after), fixed for the session's life
   * (docs/project-identity.md). Later entries carry the directory the model `cd`-ed into.
   */
  firstCwd: string | undefined;
  title: string | undefined;
  firstTimestamp: number | undefined;
  lastTimestamp: number | undefined;
  /** Complete lines that were not JSON objects. */
  skippedLines: number;
  /** Entries of types that carry no memory (progress, snapshots, unknown types). */
  ignoredEntries: number;
  entries: number;
  /** Lines that are Claude Code entries (`isTranscriptEntry`): none, and the file is no transcript. */
  transcriptEntries: number;
}
