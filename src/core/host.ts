/**
 * Which agent a session runs in (docs/hosts.md), told by its transcript's name: Codex writes
 * `rollout-<YYYY-MM-DDTHH-MM-SS>-<id>.jsonl`, Claude Code `<id>.jsonl`. No imports: the hook
 * runner asks it on every hook.
 */
export type Host = "claude" | "codex";
/** A host output names (core/host.ts hostMark): every one but Claude Code. */
export type MarkedHost = Exclude<Host, "claude">;

const ROLLOUT_NAME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-(.+)\.jsonl$/;

function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i >= 0 ? path.slice(i + 1) : path;
}

export function isRolloutPath(path: string): boolean {
  return ROLLOUT_NAME.test(baseName(path));
}

/** The session id a rollout's name carries, or null for any other file. */
export function rolloutSessionId(path: string): string | null {
  return ROLLOUT_NAME.exec(baseName(path))?.[1] ?? null;
}

export function hostOfPath(path: string | null | undefined): Host {
  return path && isRolloutPath(path) ? "codex" : "claude";
}

/** Codex's cut: an additionalContext past ~10,000 characters loses its middle (the push is ≤ 9,500). */
export const CODEX_CONTEXT_CUT = 10_000;

/**
 * What a hook prints for Codex: text for the model goes as `hookSpecificOutput.additionalContext`
 * of its event (Codex hands it to the model as a developer message); JSON a handler already made
 * (a `systemMessage`) is left as it is.
 */
export function codexHookOutput(event: string, text: string): string {
  if (text.startsWith("{")) return text;
  const hookEventName = event === "session-start" ? "SessionStart" : "UserPromptSubmit";
  return JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: codexWording(text) } });
}

/**
 * The push names its client in two places (core/push-header.ts, core/context.ts); in Codex they
 * name Codex and its shell tool. Each replacement is no longer than what it replaces, so the push
 * stays within its budget.
 */
const CODEX_WORDING: readonly (readonly [string, string])[] = [
  ["Claude Code has just compacted this conversation", "Codex has just compacted this conversation"],
  ["(read-only; run with Bash)", "(read-only; run in shell)"],
];

export function codexWording(text: string): string {
  return CODEX_WORDING.reduce((t, [from, to]) => t.replaceAll(from, to), text);
}

/**
 * The host output names for a turn, from its session's `sessions.host` (schema 14): `codex`, or
 * null for Claude Code. Claude Code is the first host, so its output stays as it was: no marker,
 * no JSON field (docs/hosts.md, "Host markers"). Every pull, the viewer and the JSON ask this.
 */
export function hostMark(stored: string | null | undefined): MarkedHost | null {
  return stored === "codex" ? "codex" : null;
}

/** ` [codex]` after a turn's heading or time, "" for Claude Code. */
export function hostTag(stored: string | null | undefined): string {
  const mark = hostMark(stored);
  return mark === null ? "" : ` [${mark}]`;
}

/** The `host` field of a turn's JSON: `{ host: "codex" }`, `{}` for Claude Code. */
export function hostField(stored: string | null | undefined): { host?: MarkedHost } {
  const mark = hostMark(stored);
  return mark === null ? {} : { host: mark };
}

/** Who answered in a turn, as the viewer titles the reply. */
export function assistantName(stored: string | null | undefined): string {
  return hostMark(stored) === "codex" ? "Codex" : "Claude";
}
