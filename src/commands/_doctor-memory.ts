/**
 * doctor's lines about throughline beside Claude Code's own memory (README, "throughline and
 * Claude Code's own memory"). Information, never a problem: the history not imported yet, whether
 * Claude Code's auto memory is on, and that `claude --bare` sessions are not captured.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { formatSize, type Ingested, importHint, scanHistory } from "../capture/history.ts";
import { selfInvocation } from "../core/invocation.ts";
import { isObject } from "../core/jsonl.ts";
import { claudeConfigDir, type Env } from "../core/paths.ts";
import { readIfOpens } from "../db/open.ts";
import { ingestedTranscripts } from "../db/queries/cursors.ts";
import type { Check } from "../render/doctor.ts";
import { readSettings } from "./_settings-file.ts";

function ingested(dbPath: string): Ingested | null {
  return readIfOpens(dbPath, ingestedTranscripts);
}

export function historyCheck(env: Env, dbPath: string): Check {
  const scan = scanHistory(env, ingested(dbPath));
  const root = join(claudeConfigDir(env), "projects");
  if (!scan || scan.sessions === 0) return { name: "history", ok: true, detail: `no sessions in ${root}` };
  const held = scan.sessions - scan.pending;
  if (scan.pending === 0)
    return { name: "history", ok: true, detail: `all ${scan.sessions} sessions in ${root} are in memory` };
  return {
    name: "history",
    ok: true,
    detail: `${held} of ${scan.sessions} sessions in ${root} are in memory; ${scan.pending} (${formatSize(scan.pendingBytes)}) not yet: ${importHint(scan, selfInvocation())}`,
  };
}

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];

/**
 * Auto memory as Claude Code 2.1.332 decides it: `CLAUDE_CODE_DISABLE_AUTO_MEMORY` 1/true/yes/on
 * turns it off and 0/false/no/off forces it on (from the environment, or a settings file's `env`);
 * else `autoMemoryEnabled` of the settings, highest precedence first (local, project, user: the
 * files doctor reads; managed policy settings are not read); else on.
 */
export function autoMemoryCheck(env: Env, settingsFiles: readonly string[]): Check {
  const files = [...settingsFiles].reverse();
  const read = files.flatMap((file) => {
    if (!existsSync(file)) return [];
    try {
      return [{ file, settings: readSettings(file).settings }];
    } catch {
      return []; // doctor's settings check reports a file that does not parse
    }
  });
  const where =
    "Claude Code 2.1.59+ keeps its own notes in <project folder>/memory/MEMORY.md, which throughline neither reads nor writes";
  const fromEnv = (value: string, source: string): Check | null => {
    const v = value.toLowerCase().trim();
    if (TRUE.includes(v))
      return {
        name: "auto memory",
        ok: true,
        detail: `off: CLAUDE_CODE_DISABLE_AUTO_MEMORY=${value} (${source})`,
      };
    if (FALSE.includes(v))
      return {
        name: "auto memory",
        ok: true,
        detail: `on: CLAUDE_CODE_DISABLE_AUTO_MEMORY=${value} (${source}); ${where}`,
      };
    return null;
  };
  const envValue = env.CLAUDE_CODE_DISABLE_AUTO_MEMORY;
  if (envValue !== undefined) {
    const c = fromEnv(envValue, "environment");
    if (c) return c;
  }
  for (const { file, settings } of read) {
    const v = isObject(settings.env) ? settings.env.CLAUDE_CODE_DISABLE_AUTO_MEMORY : undefined;
    if (typeof v === "string") {
      const c = fromEnv(v, `env in ${file}`);
      if (c) return c;
    }
  }
  for (const { file, settings } of read)
    if (typeof settings.autoMemoryEnabled === "boolean")
      return {
        name: "auto memory",
        ok: true,
        detail: settings.autoMemoryEnabled
          ? `on: autoMemoryEnabled true in ${file}; ${where}`
          : `off: autoMemoryEnabled false in ${file}`,
      };
  return { name: "auto memory", ok: true, detail: `on (Claude Code's default); ${where}` };
}

export function memoryChecks(env: Env, dbPath: string, settingsFiles: readonly string[]): Check[] {
  return [
    historyCheck(env, dbPath),
    autoMemoryCheck(env, settingsFiles),
    {
      name: "--bare sessions",
      ok: true,
      detail: "`claude --bare` runs no hooks, so throughline does not capture those sessions",
    },
  ];
}
