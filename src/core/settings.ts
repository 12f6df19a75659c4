/**
 * Claude Code settings.json editing (docs/contract.md#hooks), pure: settings object in, settings object out.
 * Only entries whose command is ours are touched; every other setting and hook is kept.
 */
import { DETACHED_SUBS, HOOK_SUBS, type HookSpec, SETTINGS_HOOKS, TERM_TRAP } from "./hook-table.ts";
import { isObject, type Json, type JsonObject } from "./jsonl.ts";

export type { HookSpec } from "./hook-table.ts";

/** What install registers: the settings hooks of the one table (core/hook-table.ts). */
export const OUR_HOOKS: readonly HookSpec[] = SETTINGS_HOOKS;

const OUR_SUBS = HOOK_SUBS.join("|");
/** Our command, current (`… hook stop`) or from older releases (`… process-turn`). */
const OURS = new RegExp(
  `(throughline|cli\\.ts)(@[^\\s"']*)?["']?\\s+(hook\\s+(${OUR_SUBS})|session-start|prompt-submit|process-turn)\\s*$`,
);

export function isOurCommand(command: string): boolean {
  return OURS.test(hookProgram(command));
}

/**
 * Stop and SubagentStop hand the turn to a detached worker, but `claude -p` SIGTERMs async
 * hooks a few ms after starting them, before Bun could install a handler. A signal ignored
 * before `exec` stays ignored in the new program, so the shell ignores TERM and HUP first
 * (docs/hooks.md, "Detached Stop and SubagentStop"). Windows shells get the bare command.
 */
export const TERM_SHIELD = `${TERM_TRAP}exec `;
/**
 * The form registered now: the shell ignores TERM and HUP, starts the hook in the background
 * with the payload on its stdin (a background command's stdin is /dev/null unless redirected, so
 * the shell keeps it as fd 3 first) and its output on /dev/null, and exits at once. The client
 * waits for that shell only; the hook, shielded from birth, hands the payload to its worker as
 * before (docs/hooks.md).
 */
export const BACKGROUND_HEAD = `${TERM_TRAP}exec 3<&0; `;
export const BACKGROUND_TAIL = " <&3 3<&- >/dev/null 2>&1 &";
/** The detached hooks: the ones `claude -p` could kill before Bun installs a handler. */
const SHIELDED = DETACHED_SUBS;

/** Whether `sub` is registered behind the background shell on `platform` (Windows gets the bare command). */
export function backgrounded(sub: string, platform: string = process.platform): boolean {
  return SHIELDED.has(sub) && platform !== "win32";
}

export function hookCommand(invocation: string, sub: string, platform: string = process.platform): string {
  const bare = `${invocation} hook ${sub}`;
  return backgrounded(sub, platform) ? `${BACKGROUND_HEAD}${bare}${BACKGROUND_TAIL}` : bare;
}

/**
 * The program a hook command starts, without the shell around it (today's, or the `exec` form of
 * earlier releases): what doctor checks can run, and what tells a command of ours.
 */
export function hookProgram(command: string): string {
  if (command.startsWith(BACKGROUND_HEAD) && command.endsWith(BACKGROUND_TAIL))
    return command.slice(BACKGROUND_HEAD.length, -BACKGROUND_TAIL.length);
  return command.startsWith(TERM_SHIELD) ? command.slice(TERM_SHIELD.length) : command;
}

function ourEntry(spec: HookSpec, invocation: string): JsonObject {
  const e: JsonObject = {
    type: "command",
    command: hookCommand(invocation, spec.sub),
    timeout: spec.timeout,
  };
  if (spec.async) e.async = true;
  return e;
}

function groupsOf(hooks: JsonObject, event: string): Json[] {
  const g = hooks[event];
  return Array.isArray(g) ? g : [];
}

export function isOurHook(h: Json): boolean {
  return isObject(h) && typeof h.command === "string" && isOurCommand(h.command);
}

function holdsOurHook(g: Json): boolean {
  return isObject(g) && Array.isArray(g.hooks) && g.hooks.some(isOurHook);
}

/** An event's groups without our hooks; a group left empty by that is dropped. */
export function withoutOurHooks(groups: readonly Json[]): Json[] {
  const kept: Json[] = [];
  for (const g of groups) {
    if (!holdsOurHook(g)) kept.push(g);
    else {
      const rest = ((g as JsonObject).hooks as Json[]).filter((h) => !isOurHook(h));
      if (rest.length > 0) kept.push({ ...(g as JsonObject), hooks: rest });
    }
  }
  return kept;
}

/** Install or upgrade our hooks in place; a second run returns an equal object. */
export function mergeHooks(settings: JsonObject, invocation: string): JsonObject {
  const out: JsonObject = structuredClone(settings);
  const hooks: JsonObject = isObject(out.hooks) ? out.hooks : {};
  for (const spec of OUR_HOOKS) {
    const entry = ourEntry(spec, invocation);
    let placed = false;
    const groups: Json[] = [];
    for (const g of groupsOf(hooks, spec.event)) {
      if (!isObject(g) || !Array.isArray(g.hooks) || !g.hooks.some(isOurHook)) {
        groups.push(g);
        continue;
      }
      const kept: Json[] = [];
      for (const h of g.hooks) {
        if (!isOurHook(h)) kept.push(h);
        else if (!placed) {
          kept.push(entry);
          placed = true;
        }
      }
      if (kept.length > 0) groups.push({ ...g, hooks: kept });
    }
    if (!placed)
      groups.push(
        spec.matcher === undefined ? { hooks: [entry] } : { matcher: spec.matcher, hooks: [entry] },
      );
    hooks[spec.event] = groups;
  }
  out.hooks = hooks;
  return out;
}

/** Remove exactly our hooks; groups and events left empty by that are removed too. */
export function removeHooks(settings: JsonObject): JsonObject {
  const out: JsonObject = structuredClone(settings);
  if (!isObject(out.hooks)) return out;
  const hooks = out.hooks;
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups) || !groups.some(holdsOurHook)) continue;
    const kept = withoutOurHooks(groups);
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete out.hooks;
  return out;
}

/** Which of our hooks a settings object registers, per event. */
export function registeredHooks(settings: JsonObject): { event: string; command: string; async: boolean }[] {
  const found: { event: string; command: string; async: boolean }[] = [];
  if (!isObject(settings.hooks)) return found;
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups)
      if (isObject(g) && Array.isArray(g.hooks))
        for (const h of g.hooks)
          if (isOurHook(h) && isObject(h))
            found.push({ event, command: String(h.command), async: h.async === true });
  }
  return found;
}

/**
 * The commands the model may run without an approval prompt: read-only, in the form the push
 * prints them (docs/hooks.md, "Commands the model runs"). `note`, `install`, `forget`… are not
 * here and keep asking.
 */
export const READ_ONLY_COMMANDS = ["recall", "detail", "search", "context", "status"] as const;

/** `Bash(<invocation> recall:*)`…: a prefix rule per read-only command. */
export function permissionRules(invocation: string): string[] {
  return READ_ONLY_COMMANDS.map((c) => `Bash(${invocation} ${c}:*)`);
}

/** Our rule, for this invocation or an older one (a moved checkout, an earlier binary). */
const OUR_RULE = new RegExp(
  `^Bash\\(.*(throughline|cli\\.ts)(@[^\\s"']*)?["']? (${READ_ONLY_COMMANDS.join("|")})(:\\*| \\*)\\)$`,
);

export function isOurRule(rule: Json): boolean {
  return typeof rule === "string" && OUR_RULE.test(rule);
}

function allowList(settings: JsonObject): Json[] {
  return isObject(settings.permissions) && Array.isArray(settings.permissions.allow)
    ? settings.permissions.allow
    : [];
}

/** Add our allow rules (replacing older ones of ours in place); every other rule is kept. */
export function mergePermissions(settings: JsonObject, invocation: string): JsonObject {
  const out: JsonObject = structuredClone(settings);
  const wanted = permissionRules(invocation);
  const permissions: JsonObject = isObject(out.permissions) ? out.permissions : {};
  const allow: Json[] = [];
  let placed = false;
  for (const rule of allowList(out)) {
    if (!isOurRule(rule)) allow.push(rule);
    else if (!placed) {
      allow.push(...wanted);
      placed = true;
    }
  }
  if (!placed) allow.push(...wanted);
  permissions.allow = allow;
  out.permissions = permissions;
  return out;
}

/** Remove exactly our rules; an allow list or permissions object left empty by that goes too. */
export function removePermissions(settings: JsonObject): JsonObject {
  const out: JsonObject = structuredClone(settings);
  if (!isObject(out.permissions) || !Array.isArray(out.permissions.allow)) return out;
  if (!out.permissions.allow.some(isOurRule)) return out;
  const rest = out.permissions.allow.filter((r) => !isOurRule(r));
  if (rest.length > 0) out.permissions.allow = rest;
  else delete out.permissions.allow;
  if (Object.keys(out.permissions).length === 0) delete out.permissions;
  return out;
}

/** Our rules for `invocation` that `settings` lacks. */
export function missingRules(settings: JsonObject, invocation: string): string[] {
  const have = new Set(allowList(settings));
  return permissionRules(invocation).filter((r) => !have.has(r));
}

/** Marks the slash command files we write, so uninstall removes only ours. */
export const COMMAND_MARKER = "<!-- installed by throughline -->";

/**
 * `/recall` and `/sc-detail` run their command before the prompt reaches the model (a `!`
 * line, allowed by the file's own `allowed-tools`), so the answer is simply there: no tool
 * round trip, no approval prompt.
 */
export function slashCommands(invocation: string): Record<string, string> {
  const allowed = (sub: string) => JSON.stringify(`Bash(${invocation} ${sub}:*)`);
  return {
    "tl.md": `---
description: Hand this conversation over to the next session (throughline baton)
---
${COMMAND_MARKER}
The throughline baton for this project is stored: the next Claude Code session started in this project within the hour continues this conversation with its memory. Nothing else needs doing; a one-word acknowledgement is enough.
`,
    "recall.md": `---
description: Query the throughline activity index (edits, commits, tests, errors, decisions) in plain words
argument-hint: [words, e.g. "errors today" or "edits auth"]
allowed-tools: ${allowed("recall")}
---
${COMMAND_MARKER}
!\`${invocation} recall $ARGUMENTS\`

Above is throughline's answer to \`/recall $ARGUMENTS\`. Show it to the user as it is, without commentary.
`,
    "sc-detail.md": `---
description: Show everything throughline holds for a moment of this conversation (a time like 14:05, a range, or ISO)
argument-hint: <time>
allowed-tools: ${allowed("detail")}
---
${COMMAND_MARKER}
!\`${invocation} detail $ARGUMENTS\`

Above is everything throughline holds for \`$ARGUMENTS\`. Show it to the user as it is, without commentary.
`,
  };
}
