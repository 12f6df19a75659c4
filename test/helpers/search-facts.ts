/**
 * Facts to look up in a replayed corpus database, each with the turn it came from: commit
 * subjects (git_commit events), identifiers an edit introduced (two at most per edit) (file_edit events and their
 * Edit/MultiEdit input), error lines (error events) and prompt words no other prompt uses.
 * Deterministic: the same database gives the same facts in the same order. A query that
 * several turns produced is dropped, since no single turn is the right answer for it.
 */
import type { Database } from "bun:sqlite";

export type FactSource = "commit" | "identifier" | "error" | "prompt";

export interface Fact {
  source: FactSource;
  /** The words passed to `search`, one argument each. */
  terms: string[];
  /** `origin:turn_number` of the turn the fact was taken from. */
  turn: string;
}

/** Words of a line worth searching: trimmed of punctuation, at least 3 characters, at most `n`. */
function words(line: string, n: number): string[] {
  return line
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}_/.-]+|[^\p{L}\p{N}_]+$/gu, ""))
    .filter((w) => [...w].length >= 3)
    .slice(0, n);
}

function parse(json: string | null): Record<string, unknown> {
  try {
    const v = JSON.parse(json ?? "") as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*(?:[a-z][A-Z]|[A-Za-z0-9]_[A-Za-z0-9])[A-Za-z0-9_]*/g;

/** The first two identifiers (camelCase or snake_case, 8+ characters) the edit added. */
function addedIdentifiers(input: Record<string, unknown>): string[] {
  const pairs: { from: string; to: string }[] = [];
  if (typeof input.new_string === "string")
    pairs.push({ from: String(input.old_string ?? ""), to: input.new_string });
  if (Array.isArray(input.edits))
    for (const e of input.edits as Record<string, unknown>[])
      if (typeof e?.new_string === "string")
        pairs.push({ from: String(e.old_string ?? ""), to: e.new_string });
  const out = new Set<string>();
  for (const { from, to } of pairs)
    for (const m of to.matchAll(IDENTIFIER)) if (m[0].length >= 8 && !from.includes(m[0])) out.add(m[0]);
  return [...out].slice(0, 2);
}

export function searchFacts(db: Database): Fact[] {
  const facts: Fact[] = [];
  const events = db
    .query<
      {
        type: string;
        summary: string;
        detail: string;
        origin: string;
        turn: number;
        tool_use_id: string | null;
      },
      []
    >(
      `SELECT type, summary, detail, origin_session_id AS origin, turn_number AS turn, tool_use_id
       FROM events WHERE turn_number IS NOT NULL AND type IN ('git_commit', 'file_edit', 'error')
       ORDER BY origin_session_id, seq`,
    )
    .all();
  const input = db.query<{ input: string | null }, { origin: string; id: string }>(
    `SELECT input FROM details WHERE origin_session_id = $origin AND tool_use_id = $id AND kind = 'tool_input'
     ORDER BY id LIMIT 1`,
  );
  for (const e of events) {
    const turn = `${e.origin}:${e.turn}`;
    if (e.type === "git_commit") {
      const subject = /^Committed \S+(?: on [^:]+)?: (.*)$/.exec(e.summary)?.[1]?.replace(/…$/, "");
      const terms = subject ? words(subject, 6) : [];
      if (terms.length > 0) facts.push({ source: "commit", terms, turn });
    } else if (e.type === "file_edit" && e.tool_use_id) {
      const ids = addedIdentifiers(parse(input.get({ origin: e.origin, id: e.tool_use_id })?.input ?? null));
      for (const id of ids) facts.push({ source: "identifier", terms: [id], turn });
    } else if (e.type === "error") {
      const line = String(parse(e.detail).error ?? "")
        .split("\n")
        .map((l) => l.trim())
        .find((l) => l.length > 0);
      const terms = line ? words(line, 6) : [];
      if (terms.length >= 2) facts.push({ source: "error", terms, turn });
    }
  }
  // Prompt words: per turn, the first two words of 7+ letters that no other prompt holds.
  const prompts = db
    .query<{ text: string; turn: string }, []>(
      `SELECT b.text, t.origin_session_id || ':' || t.turn_number AS turn
       FROM bodies b JOIN turns t ON t.id = b.turn_id WHERE b.role = 'user' ORDER BY t.origin_session_id, t.turn_number`,
    )
    .all();
  const wordsOf = prompts.map((p) => [...new Set(p.text.toLowerCase().match(/\p{L}{7,}/gu) ?? [])]);
  const df = new Map<string, number>();
  for (const ws of wordsOf) for (const w of ws) df.set(w, (df.get(w) ?? 0) + 1);
  prompts.forEach((p, i) => {
    const rare = wordsOf[i]!.filter((w) => df.get(w) === 1).slice(0, 2);
    if (rare.length === 2) facts.push({ source: "prompt", terms: rare, turn: p.turn });
  });
  // A query several turns produced has no single right answer.
  const turnsOf = new Map<string, Set<string>>();
  for (const f of facts) {
    const k = f.terms.join("\u0000").toLowerCase();
    turnsOf.set(k, (turnsOf.get(k) ?? new Set()).add(f.turn));
  }
  const seen = new Set<string>();
  return facts.filter((f) => {
    const k = f.terms.join("\u0000").toLowerCase();
    if (turnsOf.get(k)!.size > 1 || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
