/**
 * L1 summaries. The extractive backend is offline and deterministic: it keeps the sentences
 * that carry names, numbers, paths, causes and decisions, within ≈ ratio × length. What the
 * model backends cost, and how it is bounded: README, "What the summarizer costs".
 */

export const L1_MIN_CHARS = 20;
export const DEFAULT_L1_RATIO = 0.2;

/** Model summaries (claude, command) allowed per UTC day; THROUGHLINE_L1_DAILY_MAX overrides. */
export const DEFAULT_L1_DAILY_MAX = 200;

/** THROUGHLINE_L1_DAILY_MAX as a count: a whole number ≥ 0 (0 turns model summaries off), else the default. */
export function dailyMax(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_L1_DAILY_MAX;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : DEFAULT_L1_DAILY_MAX;
}

const DAY_MS = 86_400_000;

/** Midnight UTC of the day holding `now`: the ceiling resets there (clock times are UTC everywhere). */
export function utcDayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

/** The summarizer's own working directory, under THROUGHLINE_HOME: empty, so no project loads. */
export const SUMMARIZER_DIR = "summarizer";

/** What the model is told; the marker lets tests and people recognise the request. */
export const SUMMARIZER_SYSTEM_PROMPT =
  "You write short factual summaries of one turn of a Claude Code conversation, for throughline's memory.";

export function summarizerPrompt(target: number): string {
  return `Summarize this conversation turn in at most ${target} characters. Keep names, numbers, file paths, causes and decisions. Reply with the summary only.`;
}

/**
 * The summarizer's `claude` argv (checked with Claude Code 2.1.197 and 2.1.332, README):
 * `--no-session-persistence` writes no transcript (so nothing lands in projects/ for `import`
 * or `claude --resume`); `--tools ""`, `--strict-mcp-config`, `--disable-slash-commands` and a
 * one-line system prompt shrink the request from ~50-115 KB to ~1 KB; `--bare` also skips every
 * hook and plugin, but reads only ANTHROPIC_API_KEY for auth (never a subscription login), so
 * it is passed only when that key is set. `--tools` takes a list: it must not be followed by a
 * positional word, so the prompt comes first.
 */
export function claudeArgv(prompt: string, opts: { bare: boolean }): string[] {
  return [
    "claude",
    "-p",
    prompt,
    "--model",
    "haiku",
    "--no-session-persistence",
    ...(opts.bare ? ["--bare"] : []),
    "--tools",
    "",
    "--strict-mcp-config",
    "--disable-slash-commands",
    "--system-prompt",
    SUMMARIZER_SYSTEM_PROMPT,
  ];
}

/** Longer turns are cut in the middle: the ask and the outcome matter, and input is what costs. */
export const SUMMARY_INPUT_MAX_CHARS = 24_000;

export function l1Target(textLength: number, ratio: number): number {
  const r = Number.isFinite(ratio) && ratio > 0 && ratio <= 1 ? ratio : DEFAULT_L1_RATIO;
  return Math.max(L1_MIN_CHARS, Math.round(textLength * r));
}

/** The text a summarizer sees for one turn. */
export function summaryInput(user: string, assistant: string): string {
  const text = `User: ${user}\n\nAssistant: ${assistant}`;
  if (text.length <= SUMMARY_INPUT_MAX_CHARS) return text;
  const half = Math.floor((SUMMARY_INPUT_MAX_CHARS - 40) / 2);
  return `${text.slice(0, half)}\n\n[… ${text.length - 2 * half} characters left out …]\n\n${text.slice(-half)}`;
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
