/**
 * The optional parts of `install` (docs/monitor.md), pure like core/settings.ts: settings in,
 * settings out. `--statusline` sets Claude Code's `statusLine` only when the user has none;
 * `--session-index` sets THROUGHLINE_SESSION_INDEX=1 in settings.json `env`, which Claude Code
 * passes to every hook. `uninstall` removes both only when they are ours.
 */
import { isObject, type Json, type JsonObject } from "./jsonl.ts";
import { SESSION_INDEX_ENV } from "./session-index.ts";

/** Our status line command, current or from any invocation (`bunx throughline@…`, a binary, a checkout). */
const OURS = /(throughline|cli\.ts)(@[^\s"']*)?["']?\s+statusline\s*$/;

export function isOurStatusline(v: Json | undefined): boolean {
  return isObject(v) && typeof v.command === "string" && OURS.test(v.command);
}

export function statuslineEntry(invocation: string): JsonObject {
  return { type: "command", command: `${invocation} statusline`, padding: 0 };
}

export type ExtraOutcome = "set" | "updated" | "unchanged" | "kept_yours" | "not_requested";

export interface InstallExtras {
  settings: JsonObject;
  statusline: ExtraOutcome;
  sessionIndex: ExtraOutcome;
  /** One line each for stderr: what was kept and why. */
  notes: string[];
}

export function installExtras(
  settings: JsonObject,
  invocation: string,
  want: { statusline: boolean; sessionIndex: boolean },
): InstallExtras {
  const out: JsonObject = structuredClone(settings);
  const notes: string[] = [];
  let statusline: ExtraOutcome = "not_requested";
  let sessionIndex: ExtraOutcome = "not_requested";
  if (want.statusline) {
    const entry = statuslineEntry(invocation);
    const old = out.statusLine;
    if (old === undefined || old === null) {
      out.statusLine = entry;
      statusline = "set";
    } else if (!isOurStatusline(old)) {
      statusline = "kept_yours";
      notes.push(
        "kept your own statusLine (settings.json); remove it and run install --statusline again to use ours",
      );
    } else if (JSON.stringify(old) === JSON.stringify({ ...(old as JsonObject), ...entry })) {
      statusline = "unchanged";
    } else {
      out.statusLine = { ...(old as JsonObject), ...entry };
      statusline = "updated";
    }
  }
  if (want.sessionIndex) {
    const env: JsonObject = isObject(out.env) ? out.env : {};
    const v = env[SESSION_INDEX_ENV];
    if (v === "1") sessionIndex = "unchanged";
    else if (v !== undefined) {
      sessionIndex = "kept_yours";
      notes.push(`kept your own env.${SESSION_INDEX_ENV}=${JSON.stringify(v)} (settings.json)`);
    } else {
      env[SESSION_INDEX_ENV] = "1";
      out.env = env;
      sessionIndex = "set";
    }
  }
  return { settings: out, statusline, sessionIndex, notes };
}

/** Remove our status line and our opt-in variable; anything else stays as it was. */
export function uninstallExtras(settings: JsonObject): JsonObject {
  const out: JsonObject = structuredClone(settings);
  if (isOurStatusline(out.statusLine)) delete out.statusLine;
  if (isObject(out.env) && out.env[SESSION_INDEX_ENV] === "1") {
    delete out.env[SESSION_INDEX_ENV];
    if (Object.keys(out.env).length === 0) delete out.env;
  }
  return out;
}
