/** Text of `install` and `uninstall`: view model in, string out. */

export interface InstallView {
  settings: string;
  settingsChanged: boolean;
  hooks: readonly { event: string; command: string; async: boolean }[];
  allowRules: readonly string[];
  /** The folder the slash commands are written to. */
  commands: string;
  database: string;
  /** The history not in memory yet (capture/history.ts historyNotice), or null: nothing said. */
  history: string | null;
}

export function renderInstall(v: InstallView): string {
  const lines = [
    v.settingsChanged
      ? `Registered ${v.hooks.length} hooks in ${v.settings}`
      : `Hooks already up to date in ${v.settings}`,
    ...v.hooks.map((h) => `  ${h.event.padEnd(17)} ${h.command}${h.async ? "  (async)" : ""}`),
    `Allowed without a prompt (read-only): ${v.allowRules.length} rules, e.g.`,
    `  ${v.allowRules[0]}`,
    `Slash commands in ${v.commands}: /tl, /recall, /sc-detail`,
    `Database: ${v.database}`,
  ];
  if (v.history) lines.push(`History: ${v.history}`);
  return lines.join("\n");
}

export interface UninstallView {
  settings: string;
  settingsChanged: boolean;
  commands: string;
  commandsRemoved: number;
}

export function renderUninstall(v: UninstallView): string {
  const lines = [
    v.settingsChanged
      ? `Removed throughline hooks and allow rules from ${v.settings}`
      : `No throughline hooks in ${v.settings}`,
  ];
  if (v.commandsRemoved > 0) lines.push(`Removed ${v.commandsRemoved} slash commands from ${v.commands}`);
  lines.push("Memory is kept; delete the database yourself if you want it gone.");
  return lines.join("\n");
}
