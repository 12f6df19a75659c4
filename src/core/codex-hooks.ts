/**
 * Codex's hooks.json and the trust Codex records for it (docs/hosts.md), pure: objects and text
 * in, objects and text out. `$CODEX_HOME/hooks.json` has Claude Code's shape
 * (`{"hooks": {"<Event>": [{"hooks": [{"type": "command", "command", "timeout"}]}]}}`); Codex runs
 * an unmanaged hook only when `config.toml` holds `[hooks.state."<key>"] trusted_hash` equal to
 * the hook's hash (otherwise `codex exec` skips it without a word). `install codex` writes both,
 * for exactly its own hooks; `uninstall codex` removes exactly those.
 */
import { isObject, type Json, type JsonObject } from "./jsonl.ts";
import { hookCommand, isOurHook, withoutOurHooks } from "./settings.ts";

export interface CodexHookSpec {
  event: string;
  /** The event's name in trust keys and hashes (`SessionStart` → `session_start`). */
  snake: string;
  sub: string;
  timeout: number;
}

/**
 * What Codex gets: the push at SessionStart and the first prompt, capture at Stop, before a
 * compaction and at the end. No PostToolUse: a Codex tool's payload has no exit code, and Stop
 * reads the same calls from the rollout with theirs. SessionEnd's timeout is Codex's clamp (3 s).
 */
export const CODEX_HOOKS: readonly CodexHookSpec[] = [
  { event: "SessionStart", snake: "session_start", sub: "session-start", timeout: 10 },
  { event: "UserPromptSubmit", snake: "user_prompt_submit", sub: "user-prompt-submit", timeout: 10 },
  { event: "Stop", snake: "stop", sub: "stop", timeout: 30 },
  { event: "PreCompact", snake: "pre_compact", sub: "pre-compact", timeout: 30 },
  { event: "SessionEnd", snake: "session_end", sub: "session-end", timeout: 3 },
];

/** One registered hook: where it sits (its trust key's indexes) and what it runs. */
export interface PlacedHook {
  spec: CodexHookSpec;
  group: number;
  command: string;
}

/** hooks.json with our hooks, each in a group of its own after every other group of its event. */
export function mergeCodexHooks(
  file: JsonObject,
  invocation: string,
): { file: JsonObject; placed: PlacedHook[] } {
  const out: JsonObject = structuredClone(file);
  const hooks: JsonObject = isObject(out.hooks) ? out.hooks : {};
  const placed: PlacedHook[] = [];
  for (const spec of CODEX_HOOKS) {
    const command = hookCommand(invocation, spec.sub);
    const groups = withoutOurHooks(Array.isArray(hooks[spec.event]) ? (hooks[spec.event] as Json[]) : []);
    placed.push({ spec, group: groups.length, command });
    groups.push({ hooks: [{ type: "command", command, timeout: spec.timeout }] });
    hooks[spec.event] = groups;
  }
  out.hooks = hooks;
  return { file: out, placed };
}

/** Our hooks as hooks.json holds them now: event, indexes, command and timeout. */
export function findCodexHooks(
  file: JsonObject,
): { event: string; group: number; handler: number; command: string; timeout: number | null }[] {
  const found = [];
  const hooks = isObject(file.hooks) ? file.hooks : {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const [group, g] of groups.entries()) {
      if (!isObject(g) || !Array.isArray(g.hooks)) continue;
      for (const [handler, h] of g.hooks.entries())
        if (isOurHook(h) && isObject(h))
          found.push({
            event,
            group,
            handler,
            command: h.command as string,
            timeout: typeof h.timeout === "number" ? h.timeout : null,
          });
    }
  }
  return found;
}

/** JSON with every object's keys sorted and no spaces: Codex's `version_for_toml` form. */
export function canonicalJson(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k] as Json)}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** The identity Codex hashes for one command hook (codex-rs/hooks discovery: `command_hook_hash`). */
export function trustIdentity(snake: string, command: string, timeout: number): string {
  return canonicalJson({
    event_name: snake,
    hooks: [{ type: "command", command, timeout, async: false }],
  });
}

/** `<hooks.json>:<event_snake>:<group>:<handler>`. */
export function trustKey(hooksJson: string, snake: string, group: number, handler = 0): string {
  return `${hooksJson}:${snake}:${group}:${handler}`;
}

export const TRUST_BEGIN =
  "# >>> throughline: trust for its Codex hooks (`throughline uninstall codex` removes this block)";
export const TRUST_END = "# <<< throughline";

function tomlString(s: string): string {
  return JSON.stringify(s);
}

/** The block install appends to config.toml: one `[hooks.state."<key>"]` table per hook. */
export function trustBlock(entries: readonly { key: string; hash: string }[]): string {
  const lines = [TRUST_BEGIN];
  for (const e of entries)
    lines.push(`[hooks.state.${tomlString(e.key)}]`, `trusted_hash = ${tomlString(e.hash)}`);
  lines.push(TRUST_END);
  return `\n${lines.join("\n")}\n`;
}

/** config.toml without our block (the exact bytes install appended), and whether it held one. */
export function removeTrustBlock(text: string): { text: string; removed: boolean } {
  const start = text.indexOf(`\n${TRUST_BEGIN}\n`);
  if (start < 0) return { text, removed: false };
  const endMark = `\n${TRUST_END}\n`;
  const end = text.indexOf(endMark, start);
  if (end < 0) return { text, removed: false };
  return { text: text.slice(0, start) + text.slice(end + endMark.length), removed: true };
}

/** The trusted hashes our block records, by key. */
export function trustedInBlock(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const start = text.indexOf(TRUST_BEGIN);
  const end = text.indexOf(TRUST_END, start);
  if (start < 0 || end < 0) return out;
  const re = /^\[hooks\.state\.("(?:[^"\\]|\\.)*")\]\ntrusted_hash = ("(?:[^"\\]|\\.)*")$/gm;
  for (const m of text.slice(start, end).matchAll(re)) out.set(JSON.parse(m[1]!), JSON.parse(m[2]!));
  return out;
}
