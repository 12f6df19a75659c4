import { describe, test } from "bun:test";
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
          sessions: 3,
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
          { id: "s-2", project: "/work/app", updated_at: T, turns: 30, merged_into: null },
          { id: "s-3", project: null, updated_at: T - 60_000, turns: 2, merged_into: null },
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
