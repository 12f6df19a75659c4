/**
 * L1 summaries (SPEC §6). The extractive backend is offline and deterministic: it keeps the
 * sentences that carry names, numbers, paths, causes and decisions, within ≈ ratio × length.
 */

export const L1_MIN_CHARS = 20;
export const DEFAULT_L1_RATIO = 0.2;

export function l1Target(textLength: number, ratio: number): number {
  const r = Number.isFinite(ratio) && ratio > 0 && ratio <= 1 ? ratio : DEFAULT_L1_RATIO;
  return Math.max(L1_MIN_CHARS, Math.round(textLength * r));
}

/** The text a summarizer sees for one turn. */
export function summaryInput(user: string, assistant: string): string {
  return `User: ${user}\n\nAssistant: ${assistant}`;
}

const SIGNAL =
  /(\/[\w.-]+){2,}|\b\w+\.(ts|js|py|rs|go|md|json|tsx|sql|sh|toml|yaml|yml)\b|\d|`[^`]+`|\b(because|fix|fixed|error|fail|decid|chose|instead|commit|added|removed|renamed|pass)/i;

function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, " ")
    .split(/(?<=[.!?])\s+(?=[A-Z`"'(\d])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Score-free extractive summary: prompt gist, then the assistant sentences with the most signal. */
export function extractiveSummary(user: string, assistant: string, ratio: number): string {
  const target = l1Target(user.length + assistant.length, ratio);
  const ask = sentences(user)[0] ?? user.trim();
  const parts: string[] = [`Asked: ${ask}`];
  let used = parts[0]!.length;
  const said = sentences(assistant);
  const ranked = said
    .map((s, i) => ({ s, i, signal: SIGNAL.test(s) ? 1 : 0 }))
    .sort((a, b) => b.signal - a.signal || b.i - a.i);
  const chosen: { s: string; i: number }[] = [];
  for (const c of ranked) {
    if (used + c.s.length + 1 > target && chosen.length > 0) continue;
    chosen.push(c);
    used += c.s.length + 1;
    if (used >= target) break;
  }
  if (chosen.length > 0)
    parts.push(
      `Did: ${chosen
        .sort((a, b) => a.i - b.i)
        .map((c) => c.s)
        .join(" ")}`,
    );
  else if (!assistant.trim()) parts.push("(no reply)");
  let out = parts.join(" ");
  if (out.length > Math.max(target, L1_MIN_CHARS) * 1.5) out = `${out.slice(0, Math.round(target * 1.5))} …`;
  return out.length >= L1_MIN_CHARS
    ? out
    : `${out} (short turn)`.slice(0, Math.max(L1_MIN_CHARS, out.length + 13));
}
