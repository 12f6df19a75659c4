/**
 * bench/client.ts on the pinned client, one round: every cell is measured, durations are
 * positive and finite, and the push cell's request really carried the push (throughline only).
 * Structure and sanity only: never a time bound (docs/testing.md).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchClient, CLIENT_CONFIGS, CLIENT_MOMENTS } from "../../bench/client.ts";
import { buildBinary, buildFloor, buildPrintingFloor } from "../../bench/lib.ts";
import { claudeBinary, e2eSkipReason } from "../../harness/e2e/driver.ts";

const SKIP = e2eSkipReason();
if (SKIP) console.warn(`e2e: skipped (${SKIP})`);

const dir = mkdtempSync(join(tmpdir(), "throughline-client-bench-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(SKIP !== null)("Enter → model request in the client (bench/client.ts)", () => {
  test("one round measures every cell, and the push cell carried the push", async () => {
    const floorBin = await buildFloor(dir);
    const bin = await buildBinary(join(dir, "throughline"));
    const [report] = await benchClient({
      floorBin,
      bin,
      printingFloorBin: await buildPrintingFloor(dir),
      rounds: 1,
      clients: [{ version: "pinned", claude: claudeBinary() }],
      log: () => {},
    });
    expect(report?.skipped).toBeUndefined();
    expect(report!.cells.map((c) => `${c.config}/${c.moment}`).sort()).toEqual(
      [...CLIENT_CONFIGS, "no-op printing"].flatMap((c) => CLIENT_MOMENTS.map((m) => `${c}/${m}`)).sort(),
    );
    for (const cell of report!.cells) {
      expect(cell.samples).toHaveLength(1);
      for (const s of cell.samples) {
        expect(Number.isFinite(s.ms)).toBe(true);
        expect(s.ms).toBeGreaterThan(0);
        // Only throughline pushes, and only on the first prompt after /clear.
        expect(s.pushed).toBe(cell.config === "throughline" && cell.moment === "push");
      }
    }
    for (const m of CLIENT_MOMENTS) expect(report!.moments[m]).toBeDefined();
    // The printing no-op printed as many characters as throughline's push.
    expect(report!.printing?.push_chars).toBeGreaterThan(1000);
  }, 240_000);
});
