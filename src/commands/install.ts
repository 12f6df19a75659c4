import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimNotice, historyNotice, scanHistory } from "../capture/history.ts";
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
import { ingestedTranscripts } from "../db/queries/cursors.ts";
import { renderInstall } from "../render/install.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { hostArg, hostArgs, installCodex, renderCodexInstall } from "./_codex-install.ts";
import { defineCommand } from "./_define.ts";
import { readSettings, scopeArgs, settingsTarget, writeSettings } from "./_settings-file.ts";

export default defineCommand({
  meta: {
    name: "install",
    examples: [
      "throughline install",
      "throughline install --project --statusline",
      "throughline install codex",
    ],
    description:
      "Register throughline's hooks, slash commands (/tl, /recall, /sc-detail) and allow rules for its read-only commands with Claude Code; `install codex` registers and trusts its hooks with Codex",
  },
  args: {
    ...hostArgs,
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
    // Hooks create the database on first use; creating it now lets read commands work at once.
    // Opened before anything is written: a database the hooks could not use (not a database, a
    // newer schema) stops install with nothing changed.
    const dbPath = databasePath(process.env, args.db);
    const ingested = openFirst(dbPath);
    if (hostArg(args._) === "codex") return installForCodex(args.json === true);
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
    // Day one: the history import would add, counted, never imported here (src/capture/history.ts).
    // Said here, so the first SessionStart does not say it again.
    const history = scanHistory(process.env, ingested);
    const notice = historyNotice(history, invocation);
    claimNotice(process.env, false);
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
      history: history && {
        projects: history.root,
        sessions: history.sessions,
        bytes: history.bytes,
        not_in_memory: history.pending,
        not_in_memory_bytes: history.pendingBytes,
        notice,
      },
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
        history: notice,
      }),
    );
  },
});

function installForCodex(json: boolean): void {
  const report = installCodex(process.env, selfInvocation());
  if (json) printJson({ schema: "throughline.install-codex.v1", ...report });
  else console.log(renderCodexInstall(report));
}

/** The database, created (or found usable) before anything is written; what it has ingested. */
function openFirst(dbPath: string): ReturnType<typeof ingestedTranscripts> {
  const db = openForWrite(dbPath);
  try {
    return ingestedTranscripts(db);
  } finally {
    db.close();
  }
}
