/**
 * The one list of the hooks throughline registers (docs/hooks.md): `install` writes the settings
 * ones, the plugin's hooks.json all of them, `src/cli.ts` detaches the `detached` ones, and
 * `src/hooks/run.ts` has a handler for each `sub`; test/hooks/hook-table.test.ts holds them
 * together. No imports: `src/cli.ts` reads it on every hook's cold start.
 */
export interface HookSpec {
  /** The Claude Code event. */
  event: string;
  /** `throughline hook <sub>`. */
  sub: string;
  /** Registered async: the client does not wait for it. */
  async: boolean;
  timeout: number;
  matcher?: string;
  /** Handed to a detached worker before any hook code loads (docs/hooks.md, "Detached Stop and SubagentStop"). */
  detached?: true;
  /** Only the plugin registers it: a plugin cannot write allow rules, so PreToolUse allows the pulls. */
  pluginOnly?: true;
}

/** Stop, PostToolUse and SubagentStop never make the user wait; the prompt-path hooks are fast. */
export const HOOKS: readonly HookSpec[] = [
  { event: "SessionStart", sub: "session-start", async: false, timeout: 10 },
  { event: "UserPromptSubmit", sub: "user-prompt-submit", async: false, timeout: 10 },
  { event: "Stop", sub: "stop", async: true, timeout: 30, detached: true },
  { event: "PostToolUse", sub: "post-tool-use", async: true, timeout: 10, matcher: "*" },
  // A failed tool call fires PostToolUseFailure instead of PostToolUse (Claude Code 2.1.x).
  { event: "PostToolUseFailure", sub: "post-tool-use", async: true, timeout: 10, matcher: "*" },
  { event: "PreCompact", sub: "pre-compact", async: false, timeout: 30 },
  { event: "SessionEnd", sub: "session-end", async: false, timeout: 2 },
  { event: "SubagentStop", sub: "subagent-stop", async: true, timeout: 30, detached: true },
  { event: "PreToolUse", sub: "pre-tool-use", async: false, timeout: 5, matcher: "Bash", pluginOnly: true },
];

/** What `install` writes into settings.json. */
export const SETTINGS_HOOKS: readonly HookSpec[] = HOOKS.filter((h) => !h.pluginOnly);

/** Every `throughline hook <sub>`, once. */
export const HOOK_SUBS: readonly string[] = [...new Set(HOOKS.map((h) => h.sub))];

/** The subs a hook process hands to a detached worker. */
export const DETACHED_SUBS: ReadonlySet<string> = new Set(HOOKS.filter((h) => h.detached).map((h) => h.sub));

/**
 * What a POSIX shell runs first for a detached hook and for its worker: signals ignored before
 * `exec` stay ignored in the program it becomes (docs/hooks.md, "Detached Stop and SubagentStop").
 */
export const TERM_TRAP = "trap '' TERM HUP; ";
