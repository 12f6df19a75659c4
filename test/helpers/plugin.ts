/**
 * The Claude Code plugin layout (plugin/), derived from the same definitions `install` uses.
 * `bun test/helpers/plugin.ts` rewrites it; test/plugin.test.ts fails when it is stale.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_SPECS, hookCommand, slashCommands } from "../../src/core/settings.ts";
import { VERSION } from "../../src/version.ts";

export const PLUGIN_DIR = join(import.meta.dir, "..", "..", "plugin");
/** A plugin has no install step to learn its own path: it pins the published package. */
export const PLUGIN_INVOCATION = `bunx throughline@${VERSION}`;

export function pluginFiles(): Record<string, string> {
  const hooks: Record<string, unknown[]> = {};
  for (const s of HOOK_SPECS) {
    const entry: Record<string, unknown> = {
      type: "command",
      command: hookCommand(PLUGIN_INVOCATION, s.sub),
      timeout: s.timeout,
    };
    if (s.async) entry.async = true;
    hooks[s.event] = [s.matcher === undefined ? { hooks: [entry] } : { matcher: s.matcher, hooks: [entry] }];
  }
  const files: Record<string, string> = {
    // hooks/hooks.json is found by convention; listing it in the manifest too duplicates every hook.
    ".claude-plugin/plugin.json": `${JSON.stringify(
      {
        name: "throughline",
        version: VERSION,
        description: "Memory for Claude Code sessions that survives /clear and compaction",
        license: "MIT",
      },
      null,
      2,
    )}\n`,
    "hooks/hooks.json": `${JSON.stringify({ hooks }, null, 2)}\n`,
  };
  for (const [name, text] of Object.entries(slashCommands(PLUGIN_INVOCATION)))
    files[`commands/${name}`] = text;
  return files;
}

if (import.meta.main) {
  for (const [rel, text] of Object.entries(pluginFiles())) {
    const path = join(PLUGIN_DIR, rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  console.log(`plugin written to ${PLUGIN_DIR}`);
}
