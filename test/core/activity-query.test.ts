import { describe, expect, test } from "bun:test";
import { parseActivityQuery } from "../../src/core/activity-query.ts";

const NOW = Date.parse("2026-03-02T00:10:00.000Z"); // TZ=UTC in tests (test/setup.ts)
const at = (iso: string) => Date.parse(iso);

describe("parseActivityQuery", () => {
  const cases: [string, Partial<ReturnType<typeof parseActivityQuery>>][] = [
    ["", { mode: "summary", types: null, range: null, keywords: [] }],
    ["what happened", { mode: "summary", keywords: [] }],
    ["errors", { mode: "type", types: ["error"] }],
    ["edits", { types: ["file_edit", "file_create"] }],
    ["files", { types: ["file_edit", "file_create"] }],
    ["commits tests", { types: ["git_commit", "test_run"], typeWords: ["commits", "tests"] }],
    ["decisions", { types: ["decision"] }],
    ["phases", { types: ["phase_change"] }],
    ["skills", { types: ["skill_start", "skill_end"] }],
    [
      "last 30 minutes",
      { mode: "time", range: { from: NOW - 1_800_000, to: NOW, label: "the last 30 minutes" } },
    ],
    ["last hour", { range: { from: NOW - 3_600_000, to: NOW, label: "the last hour" } }],
    ["last 2 hours", { range: { from: NOW - 7_200_000, to: NOW, label: "the last 2 hours" } }],
    ["past 90m", { range: { from: NOW - 5_400_000, to: NOW, label: "the last 90 minutes" } }],
    ["last 3 days", { range: { from: NOW - 3 * 86_400_000, to: NOW, label: "the last 3 days" } }],
    [
      "today",
      { range: { from: at("2026-03-02T00:00:00Z"), to: at("2026-03-03T00:00:00Z") - 1, label: "today" } },
    ],
    [
      "yesterday",
      { range: { from: at("2026-03-01T00:00:00Z"), to: at("2026-03-02T00:00:00Z") - 1, label: "yesterday" } },
    ],
    ["since 00:05", { range: { from: at("2026-03-02T00:05:00Z"), to: NOW, label: "since 00:05" } }],
    ["since 14:00", { range: { from: at("2026-03-01T14:00:00Z"), to: NOW, label: "since 14:00" } }],
    ["since 2pm", { range: { from: at("2026-03-01T14:00:00Z"), to: NOW, label: "since 2pm" } }],
    ["since 2026-02-27", { range: { from: at("2026-02-27T00:00:00Z"), to: NOW, label: "since 2026-02-27" } }],
    [
      "since 2026-03-01T14:00Z",
      { range: { from: at("2026-03-01T14:00:00Z"), to: NOW, label: "since 2026-03-01t14:00z" } },
    ],
    ["errors today", { mode: "type+time", types: ["error"] }],
    ["edits auth", { mode: "type+keyword", keywords: ["auth"] }],
    ["What did we change in the Auth module?", { mode: "type+keyword", keywords: ["auth", "module"] }],
    ["refresh token since 23:00", { mode: "time+keyword", keywords: ["refresh", "token"] }],
    ["last commit", { mode: "type", types: ["git_commit"], range: null }],
    ["since forever", { mode: "keyword", keywords: ["forever"], range: null }],
    ["src/auth/token.ts", { keywords: ["src/auth/token.ts"] }],
    ["認証トークン", { keywords: ["認証トークン"] }],
  ];
  for (const [words, want] of cases)
    test(JSON.stringify(words), () => {
      expect(parseActivityQuery(words.split(" ").filter(Boolean), NOW)).toMatchObject(want as never);
    });

  test("the text is the words as given", () => {
    expect(parseActivityQuery(["errors", "today"], NOW).text).toBe("errors today");
  });
});
