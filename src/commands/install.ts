import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defineCommand } from "citty";
import { isObject, type JsonObject } from "../core/jsonl.ts";
import { claudeConfigDir, databasePath } from "../core/paths.ts";
import { COMMAND_MARKER, mergeHooks, registeredHooks, slashCommands } from "../core/settings.ts";
import { openForWrite } from "../db/open.ts";
import { ThroughlineError } from "../errors.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { selfInvocation } from "./_invocation.ts";

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

/** Parse settings.json; refuse (never overwrite) a file that is not a JSON object. */
export function readSettings(path: string): { settings: JsonObject; existed: boolean } {
  if (!existsSync(path)) return { settings: {}, existed: false };
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
  return { settings: v, existed: true };
}

export function writeSettings(path: string, settings: JsonObject): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(settings, null, 2)}\n`);
}

export default defineCommand({
  meta: {
    name: "install",
    description:
      "Register throughline's hooks and slash commands (/tl, /recall, /sc-detail) with Claude Code",
  },
  args: { ...scopeArgs, ...dbArgs, ...jsonArgs },
  run({ args }) {
    const target = settingsTarget(args.project);
    const invocation = selfInvocation();
    const { settings } = readSettings(target.settings);
    const next = mergeHooks(settings, invocation);
    const changed = JSON.stringify(next) !== JSON.stringify(settings);
    if (changed) writeSettings(target.settings, next);
    const written: string[] = [];
    mkdirSync(target.commands, { recursive: true });
    for (const [file, text] of Object.entries(slashCommands(invocation))) {
      const path = join(target.commands, file);
      if (existsSync(path)) {
        const old = readFileSync(path, "utf8");
        if (old === text) continue;
        if (!old.includes(COMMAND_MARKER)) {
          console.error(`throughline: kept your own ${path} (not written by throughline)`);
          continue;
        }
      }
      writeFileSync(path, text);
      written.push(path);
    }
    // Hooks create the database on first use; creating it now lets read commands work at once.
    const dbPath = databasePath(process.env, args.db);
    openForWrite(dbPath).close();
    const report = {
      schema: "throughline.install.v1",
      settings: target.settings,
      settings_changed: changed,
      hooks: registeredHooks(next),
      commands_written: written,
      database: dbPath,
      invocation,
    };
    if (args.json) return printJson(report);
    console.log(
      changed
        ? `Registered ${report.hooks.length} hooks in ${target.settings}`
        : `Hooks already up to date in ${target.settings}`,
    );
    for (const h of report.hooks)
      console.log(`  ${h.event.padEnd(17)} ${h.command}${h.async ? "  (async)" : ""}`);
    console.log(`Slash commands in ${target.commands}: /tl, /recall, /sc-detail`);
    console.log(`Database: ${dbPath}`);
  },
});
