import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath } from "../core/paths.ts";
import {
  COMMAND_MARKER,
  mergeHooks,
  mergePermissions,
  permissionRules,
  registeredHooks,
  slashCommands,
} from "../core/settings.ts";
import { installExtras } from "../core/statusline-settings.ts";
import { openForWrite } from "../db/open.ts";
import { renderInstall } from "../render/install.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { readSettings, scopeArgs, settingsTarget, writeSettings } from "./_settings-file.ts";

export default defineCommand({
  meta: {
    name: "install",
    description:
      "Register throughline's hooks, slash commands (/tl, /recall, /sc-detail) and allow rules for its read-only commands with Claude Code",
  },
  args: {
    ...scopeArgs,
    statusline: {
      type: "boolean",
      description: "Also set `throughline statusline` as Claude Code's status line, if you have none",
    },
    "session-index": {
      type: "boolean",
      description: "Also keep the /recall skill's session-index files current (docs/monitor.md)",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const target = settingsTarget(args.project);
    const invocation = selfInvocation();
    const file = readSettings(target.settings);
    const extras = installExtras(
      mergePermissions(mergeHooks(file.settings, invocation), invocation),
      invocation,
      {
        statusline: args.statusline === true,
        sessionIndex: args["session-index"] === true,
      },
    );
    for (const note of extras.notes) console.error(`throughline: ${note}`);
    const next = extras.settings;
    const changed = JSON.stringify(next) !== JSON.stringify(file.settings);
    if (changed) writeSettings(target.settings, next, file);
    const written: string[] = [];
    mkdirSync(target.commands, { recursive: true });
    for (const [name, text] of Object.entries(slashCommands(invocation))) {
      const path = join(target.commands, name);
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
      allow_rules: permissionRules(invocation),
      statusline: extras.statusline,
      session_index: extras.sessionIndex,
      commands_written: written,
      database: dbPath,
      invocation,
    };
    if (args.json) return printJson(report);
    console.log(
      renderInstall({
        settings: target.settings,
        settingsChanged: changed,
        hooks: report.hooks,
        allowRules: report.allow_rules,
        commands: target.commands,
        database: dbPath,
      }),
    );
  },
});
