import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers/db.ts";

// Hooks run on every prompt as a cold start: their import graph must stay free of the CLI
// framework, colour code, renderers and commands (each costs milliseconds per prompt).
const FORBIDDEN = [
  /node_modules\/citty/,
  /node_modules\/picocolors/,
  /src\/render\//,
  /src\/commands\//,
  /src\/main\.ts/,
];

describe("hook import graph", () => {
  const hooksDir = join(REPO, "src", "hooks");
  const entries = readdirSync(hooksDir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(hooksDir, f));
  test("covers every hook handler", () => {
    expect(entries.length).toBeGreaterThanOrEqual(5);
  });
  for (const entry of entries)
    test(`${entry.slice(REPO.length + 1)} imports only core, db and bun built-ins`, async () => {
      const out = await Bun.build({ entrypoints: [entry], target: "bun", metafile: true });
      expect(out.success).toBe(true);
      const inputs = Object.keys(out.metafile!.inputs);
      const bad = inputs.filter((i) => FORBIDDEN.some((re) => re.test(i)));
      expect(bad).toEqual([]);
    });
});
