import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { withWriter } from "../../src/db/open.ts";
import { renderSessionStatus, renderStatus } from "../../src/render/status.ts";
import { expectGolden } from "../helpers/golden.ts";

const T = Date.UTC(2025, 0, 2, 3, 4, 5);

describe("status text (golden)", () => {
  test("overview", () =>
    expectGolden(
      "admin/status.txt",
      renderStatus({
        database: "/home/me/.throughline/throughline.db",
        bytes: 3 * 1024 * 1024,
        schemaVersion: 9,
        counts: {
          sessions: 4,
          live_sessions: 2,
          turns: 42,
          l2_bodies: 84,
          l3_details: 310,
          l1_summaries: 12,
          events: 77,
          hook_errors: 1,
        },
        summaries: "extractive (auto: no claude on PATH); 12 made",
        recent: [
          // Imported a month after its last turn: the row's write time is not shown.
          {
            id: "s-2",
            project: "/work/app",
            updated_at: T + 30 * 86_400_000,
            last_activity: T,
            turns: 30,
            merged_into: null,
          },
          { id: "s-3", project: null, updated_at: T, last_activity: T - 60_000, turns: 2, merged_into: null },
          {
            id: "s-4",
            project: "/work/app",
            updated_at: T,
            last_activity: null,
            turns: 0,
            merged_into: null,
          },
        ],
      }),
    ));

  test("one session", () =>
    expectGolden(
      "admin/status-session.txt",
      renderSessionStatus({
        id: "s-1",
        liveEnd: "s-2",
        chain: [
          { id: "s-1", turns: 12, created_at: T - 3_600_000 },
          { id: "s-2", turns: 30, created_at: T },
        ],
        handoff: {
          session_id: "s-2",
          path: "auto",
          predecessor: "s-1",
          reason: "link",
          created_at: T,
          chosen_by: "link",
          evidence: null,
        },
        injection: null,
      }),
    ));
});

describe("status times", () => {
  test("45.9 status: updated is the transcript's last activity, not the import time", () => {
    using dir = tempDir();
    const db = join(dir.path, "throughline.db");
    // The sample's last turn ended 2026-11-30 09:20:28 by its transcript; it is imported now.
    const importedAt = new Date().toISOString().slice(0, 10);
    withWriter(db, (w) => replay(w, [SAMPLE]));
    const text = runCli(["status", "--db", db]);
    expect(text.exitCode).toBe(0);
    const row = text.stdout.split("\n").find((l) => l.startsWith("5a3c9e10-"));
    expect(row).toContain("2026-11-30T09:20:28.000Z");
    expect(row).not.toContain(importedAt);
    const json = JSON.parse(runCli(["status", "--db", db, "--json"]).stdout);
    expect(json.recent[0].last_activity).toBe(Date.parse("2026-11-30T09:20:28.000Z"));
  });
});
