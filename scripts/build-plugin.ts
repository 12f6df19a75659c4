/**
 * The Claude Code plugin (plugin/) and its marketplace (.claude-plugin/marketplace.json),
 * derived from the same definitions `install` uses, plus `plugin/throughline.js`: src/ bundled
 * with its dependencies, so the plugin runs from a clone or a path with no install step.
 * `bun run build:plugin` rewrites all of it; test/commands/install.test.ts fails when any of it
 * is stale: the bundle when a fresh build differs from it, not when only a comment changed (docs/plugin.md).
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOKS, type HookSpec } from "../src/core/hook-table.ts";
import { hookCommand, slashCommands } from "../src/core/settings.ts";
import { VERSION } from "../src/version.ts";

export const REPO_DIR = join(import.meta.dir, "..");
export const PLUGIN_DIR = join(REPO_DIR, "plugin");
export const BUNDLE = "throughline.js";
/** Hooks run the bundle the plugin ships, with whatever `bun` is on the user's PATH. */
export const PLUGIN_INVOCATION = `bun "\${CLAUDE_PLUGIN_ROOT}/${BUNDLE}"`;

/**
 * Every hook of the one table (src/core/hook-table.ts), PreToolUse included: a plugin cannot
 * write allow rules, so its PreToolUse hook allows the read-only pulls instead.
 */
export const PLUGIN_HOOKS: readonly HookSpec[] = HOOKS;

/**
 * What the bundle runs: a digest of the minified build (comments stripped, no header), so a change
 * to a comment, a test or a doc builds the same file and leaves the bundle as it is, while any
 * change to the code it runs changes the digest (test/commands/install.test.ts builds it afresh).
 */
export function outputDigest(js: string): string {
  return createHash("sha256").update(js).digest("hex").slice(0, 16);
}

/** The bundle's second line: the version, the build's digest and the Bun that built it. */
export function bundleHeader(digest: string): string {
  return `// throughline ${VERSION}: src/ bundled for the Claude Code plugin (build ${digest}, bun ${Bun.version}); rebuild with \`bun run build:plugin\`\n`;
}

/** src/cli.ts and its dependencies as one minified file, before the header goes in. */
async function minifiedBuild(): Promise<string> {
  const out = await Bun.build({
    entrypoints: [join(REPO_DIR, "src", "cli.ts")],
    target: "bun",
    minify: true,
  });
  if (!out.success) throw new Error(out.logs.map(String).join("\n"));
  return (await out.outputs[0]!.text()).replace(/^#!.*\n/, "");
}

export async function buildBundle(): Promise<string> {
  const js = await minifiedBuild();
  // `// @bun` must stay the first line (Bun then runs the file without transpiling it).
  const at = js.indexOf("\n") + 1;
  return js.slice(0, at) + bundleHeader(outputDigest(js)) + js.slice(at);
}

export function pluginFiles(): Record<string, string> {
  const hooks: Record<string, unknown[]> = {};
  for (const s of PLUGIN_HOOKS) {
    const entry: Record<string, unknown> = {
      type: "command",
      command: hookCommand(PLUGIN_INVOCATION, s.sub, "linux"),
      timeout: s.timeout,
    };
    if (s.async) entry.async = true;
    hooks[s.event] = [s.matcher === undefined ? { hooks: [entry] } : { matcher: s.matcher, hooks: [entry] }];
  }
  const meta = {
    name: "throughline",
    version: VERSION,
    description: "Memory for Claude Code sessions that survives /clear and compaction",
    license: "MIT",
  };
  const files: Record<string, string> = {
    // hooks/hooks.json is found by convention; listing it in the manifest too duplicates every hook.
    "plugin/.claude-plugin/plugin.json": `${JSON.stringify({ ...meta, author: { name: "throughline" } }, null, 2)}\n`,
    "plugin/hooks/hooks.json": `${JSON.stringify({ hooks }, null, 2)}\n`,
    // The repository is its own marketplace: `claude plugin marketplace add <path or git URL>`.
    ".claude-plugin/marketplace.json": `${JSON.stringify(
      {
        name: "throughline",
        owner: { name: "throughline" },
        plugins: [
          { name: "throughline", source: "./plugin", description: meta.description, version: VERSION },
        ],
      },
      null,
      2,
    )}\n`,
  };
  for (const [name, text] of Object.entries(slashCommands(PLUGIN_INVOCATION)))
    files[`plugin/commands/${name}`] = text;
  return files;
}

if (import.meta.main) {
  for (const [rel, text] of Object.entries(pluginFiles())) {
    const path = join(REPO_DIR, rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  const bundle = await buildBundle();
  writeFileSync(join(PLUGIN_DIR, BUNDLE), bundle);
  console.log(
    `plugin written to ${PLUGIN_DIR} (${bundle.split("\n", 2)[1]!.replace(/^.*\((build [^)]*)\).*$/, "$1")})`,
  );
}
