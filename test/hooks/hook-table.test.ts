import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../../harness/db.ts";
import { HOOK_EVENTS as E2E_EVENTS } from "../../harness/e2e/driver.ts";
import { PLUGIN_HOOKS } from "../../scripts/build-plugin.ts";
import { DETACHED_SUBS, HOOK_SUBS, HOOKS, SETTINGS_HOOKS } from "../../src/core/hook-table.ts";
import { mergeHooks, OUR_HOOKS } from "../../src/core/settings.ts";
import { HOOK_EVENTS } from "../../src/hooks/run.ts";

/** The one hook table (src/core/hook-table.ts) and everything that must agree with it. */
describe("one hook table", () => {
  test("the handler map has exactly one handler per sub of the table", () => {
    expect([...HOOK_EVENTS].sort()).toEqual([...HOOK_SUBS].sort());
  });

  test("install writes the settings hooks; the plugin registers the whole table; the e2e driver records the same events", () => {
    expect(OUR_HOOKS).toEqual(SETTINGS_HOOKS);
    expect(PLUGIN_HOOKS).toEqual(HOOKS);
    const written = mergeHooks({}, "/opt/throughline") as { hooks: Record<string, unknown[]> };
    expect(Object.keys(written.hooks).sort()).toEqual(
      [...new Set(SETTINGS_HOOKS.map((h) => h.event))].sort(),
    );
    const plugin = JSON.parse(readFileSync(join(REPO, "plugin", "hooks", "hooks.json"), "utf8")).hooks;
    expect(Object.keys(plugin).sort()).toEqual(HOOKS.map((h) => h.event).sort());
    expect(E2E_EVENTS.map((e) => e.event)).toEqual(SETTINGS_HOOKS.map((h) => h.event));
  });

  test("the detached subs are the async Stop kinds, and the CLI entry takes them from the table", () => {
    expect([...DETACHED_SUBS].sort()).toEqual(["stop", "subagent-stop"]);
    for (const sub of DETACHED_SUBS) expect(HOOKS.find((h) => h.sub === sub)!.async).toBe(true);
    const cli = readFileSync(join(REPO, "src", "cli.ts"), "utf8");
    expect(cli).toContain("DETACHED_SUBS");
    expect(cli).not.toMatch(/new Set\(\["stop"/);
  });
});
