/**
 * Reading and writing Claude Code's settings.json for install, uninstall and doctor. The pure
 * edits live in core/settings.ts; this module only does the file I/O, and writes with the
 * file's own indentation so that install then uninstall gives back the original bytes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isObject, type JsonObject } from "../core/jsonl.ts";
import { claudeConfigDir } from "../core/paths.ts";
import { ThroughlineError } from "../errors.ts";

export const scopeArgs = {
  project: {
    type: "boolean",
    description: "Use ./.claude/settings.json of this project instead of the user settings",
  },
} as const;

export function settingsTarget(project: boolean | undefined): { settings: string; commands: string } {
  const base = project ? resolve(".claude") : claudeConfigDir(process.env);
  return { settings: join(base, "settings.json"), commands: join(base, "commands") };
}

export interface SettingsFile {
  settings: JsonObject;
  existed: boolean;
  /** The indentation the file uses (two spaces for a new file). */
  indent: string;
  /** Whether the file ends with a newline (true for a new file). */
  finalNewline: boolean;
}

/** Parse settings.json; refuse (never overwrite) a file that is not a JSON object. */
export function readSettings(path: string): SettingsFile {
  if (!existsSync(path)) return { settings: {}, existed: false, indent: "  ", finalNewline: true };
  const text = readFileSync(path, "utf8");
  let v: unknown;
  try {
    v = text.trim() === "" ? {} : JSON.parse(text);
  } catch (err) {
    throw new ThroughlineError(
      "E_SETTINGS",
      `${path} is not valid JSON (${(err as Error).message}); fix it first, nothing was changed`,
    );
  }
  if (!isObject(v))
    throw new ThroughlineError(
      "E_SETTINGS",
      `${path} is not a JSON object; fix it first, nothing was changed`,
    );
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
  return { settings: v, existed: true, indent, finalNewline: text === "" || text.endsWith("\n") };
}

export function writeSettings(path: string, settings: JsonObject, like?: SettingsFile): void {
  mkdirSync(dirname(path), { recursive: true });
  const text = JSON.stringify(settings, null, like?.indent ?? "  ");
  writeFileSync(path, like?.finalNewline === false ? text : `${text}\n`);
}
