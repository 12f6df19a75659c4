import { expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLI_INVOCATION } from "../../harness/db.ts";

const GOLDEN_DIR = join(import.meta.dir, "..", "golden");

/**
 * Compare `text` with `test/golden/<name>`; `UPDATE_GOLDEN=1 bun test` rewrites the files, so
 * every change to rendered output shows up as a reviewed diff. A missing golden fails (never
 * created silently, as in CI).
 */
export function expectGolden(name: string, text: string, invocation = CLI_INVOCATION): void {
  const path = join(GOLDEN_DIR, name);
  // The invocation holds this machine's paths: goldens spell it `throughline`.
  const plain = text.replaceAll(invocation, "throughline");
  const body = plain.endsWith("\n") ? plain : `${plain}\n`;
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${path} is missing: run UPDATE_GOLDEN=1 bun test`);
  expect(body).toBe(readFileSync(path, "utf8"));
}
