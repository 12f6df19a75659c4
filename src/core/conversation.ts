/**
 * A turn as a conversation (the web view, docs/ui.md "A chain reads as a conversation"): the
 * reply's text and the turn's rows put back in the order they happened, each tool call paired
 * with its result. Pure: the rows come from db/queries/chain.ts `detailsOf`.
 */

/** A stored row of a turn, as the conversation needs it. */
export interface TurnRow {
  id: number;
  kind: string;
  toolName: string | null;
  toolUseId: string | null;
  input: string | null;
  output: string | null;
  isError: boolean;
  /** Characters of the reply written before the row happened; null for rows stored before schema 12. */
  textAt: number | null;
}

export interface CallResult {
  id: number;
  text: string;
  isError: boolean;
}

export type ConversationItem =
  | { type: "text"; text: string }
  /** A tool call and its results (a result whose call is not stored has `input` null). */
  | { type: "call"; id: number; name: string; input: string | null; results: CallResult[] }
  /** Any other row: thinking, a subagent, a hook, a system message, an image… */
  | { type: "note"; row: TurnRow };

/** Pair each tool result with its call, by the call's id. */
function resultsByCall(rows: readonly TurnRow[]): Map<string, TurnRow[]> {
  const calls = new Set(rows.filter((r) => r.kind === "tool_input" && r.toolUseId).map((r) => r.toolUseId));
  const out = new Map<string, TurnRow[]>();
  for (const r of rows)
    if (r.kind === "tool_output" && r.toolUseId && calls.has(r.toolUseId)) {
      const list = out.get(r.toolUseId) ?? [];
      list.push(r);
      out.set(r.toolUseId, list);
    }
  return out;
}

const result = (r: TurnRow): CallResult => ({ id: r.id, text: r.output ?? "", isError: r.isError });

/**
 * The reply's text and the rows in the order they happened. Rows stored before their place was
 * kept (schema 12) all follow the reply's text. `hidden` rows (the client's own context, written
 * in every turn) are left out.
 */
export function conversationOf(
  reply: string,
  rows: readonly TurnRow[],
  hidden: (r: TurnRow) => boolean = () => false,
): ConversationItem[] {
  const items: ConversationItem[] = [];
  const results = resultsByCall(rows);
  let at = 0;
  const textUpTo = (end: number) => {
    const text = reply.slice(at, Math.max(at, Math.min(end, reply.length))).trim();
    if (text.length > 0) items.push({ type: "text", text });
    at = Math.max(at, Math.min(end, reply.length));
  };
  if (!rows.some((r) => r.textAt !== null)) textUpTo(reply.length);
  for (const r of rows) {
    if (hidden(r)) continue;
    if (r.textAt !== null) textUpTo(r.textAt);
    if (r.kind === "tool_input")
      items.push({
        type: "call",
        id: r.id,
        name: r.toolName ?? "tool",
        input: r.input,
        results: (r.toolUseId ? (results.get(r.toolUseId) ?? []) : []).map(result),
      });
    else if (r.kind === "tool_output") {
      if (!(r.toolUseId && results.has(r.toolUseId)))
        items.push({ type: "call", id: r.id, name: r.toolName ?? "tool", input: null, results: [result(r)] });
    } else items.push({ type: "note", row: r });
  }
  textUpTo(reply.length);
  return items;
}
