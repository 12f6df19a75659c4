import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { COMMAND_MARKER, removeHooks, removePermissions, slashCommands } from "../core/settings.ts";
import { uninstallExtras } from "../core/statusline-settings.ts";
import { renderUninstall } from "../render/install.ts";
import { jsonArgs, printJson } from "./_args.ts";
import { hostArg, hostArgs, renderCodexUninstall, uninstallCodex } from "./_codex-install.ts";
import { defineCommand } from "./_define.ts";
import { readSettings, scopeArgs, settingsTarget, writeSettings } from "./_settings-file.ts";

export default defineCommand({
  meta: {
    name: "uninstall",
    examples: ["throughline uninstall", "throughline uninstall codex"],
    description:
      "Remove exactly what `throughline install` added (hooks, allow rules, slash commands; with `codex`, Codex's hooks and their trust); memory is kept",
  },
  args: {
    ...hostArgs,
    ...scopeArgs,
    ...jsonArgs,
  },
  run({ args }) {
    if (hostArg(args._) === "codex") {
      const report = uninstallCodex(process.env);
      if (args.json) return printJson({ schema: "throughline.uninstall-codex.v1", ...report });
      console.log(renderCodexUninstall(report));
      return;
    }
    const target = settingsTarget(args.project);
    const file = readSettings(target.settings);
    const next = uninstallExtras(removePermissions(removeHooks(file.settings)));
    const changed = file.existed && JSON.stringify(next) !== JSON.stringify(file.settings);
    if (changed) writeSettings(target.settings, next, file);
    const removed: string[] = [];
    for (const file of Object.keys(slashCommands(""))) {
      const path = join(target.commands, file);
      if (existsSync(path) && readFileSync(path, "utf8").includes(COMMAND_MARKER)) {
        rmSync(path);
        removed.push(path);
      }
    }
    if (args.json)
      return printJson({
        schema: "throughline.uninstall.v1",
        settings: target.settings,
        settings_changed: changed,
        commands_removed: removed,
      });
    console.log(
      renderUninstall({
        settings: target.settings,
        settingsChanged: changed,
        commands: target.commands,
        commandsRemoved: removed.length,
      }),
    );
  },
});
