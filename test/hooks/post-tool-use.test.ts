import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS, tempDir } from "../../harness/db.ts";
import { runHook } from "../../src/hooks/run.ts";

const HOOKS = join(CORPUS, "hooks");
const present = existsSync(HOOKS);

type Payload = Record<string, unknown> & { hook_event_name?: string; tool_name?: string };

function payloads(): { file: string; index: number; payload: Payload }[] {
  const out: { file: string; index: number; payload: Payload }[] = [];
  for (const file of readdirSync(HOOKS)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const list = JSON.parse(readFileSync(join(HOOKS, file), "utf8")) as unknown;
    if (!Array.isArray(list)) continue;
    list.forEach((payload: Payload, index) => {
      if (payload?.hook_event_name === "PostToolUse") out.push({ file, index, payload });
    });
  }
  return out;
}

/** Expected event types for a sample of the real payloads (file, index in the file). */
const EXPECTED: Record<string, string[]> = {
  "quantstats-post_tool_use.json#0": ["phase_change"], // TodoWrite: first item started
  "quantstats-post_tool_use.json#1": [], // Read
  "quantstats-post_tool_use.json#3": ["phase_change", "phase_change"], // one completed, the next started
  "quantstats-post_tool_use.json#4": ["file_edit"], // Edit requirements.txt
  "quantstats-post_tool_use.json#6": [], // Bash python -c (not a test runner)
  "quantstats-post_tool_use.json#10": ["file_edit"], // Edit version.py
  "quantstats-post_tool_use.json#12": ["file_edit"], // Edit CHANGELOG.md
  "quantstats-post_tool_use.json#13": ["phase_change"], // last item completed
};

function eventsAfter(
  dbPath: string,
  id: number,
): { id: number; type: string; seq: number; summary: string }[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.query("SELECT id, type, seq, summary FROM events WHERE id > $id ORDER BY id").all({ id }) as {
      id: number;
      type: string;
      seq: number;
      summary: string;
    }[];
  } finally {
    db.close();
  }
}

describe.skipIf(!present)("hook post-tool-use on the real payloads", () => {
  test("every payload goes through without error and the sample yields the expected types", async () => {
    using dir = tempDir();
    const env = { ...(process.env as Record<string, string>), THROUGHLINE_DB: join(dir.path, "tl.db") };
    const all = payloads();
    expect(all.length).toBeGreaterThan(0);
    let last = 0;
    let checked = 0;
    for (const { file, index, payload } of all) {
      const out = await runHook("post-tool-use", JSON.stringify(payload), env);
      expect(out).toEqual({ exitCode: 0, stdout: "", stderr: "" });
      const added = eventsAfter(env.THROUGHLINE_DB, last);
      if (added.length > 0) last = added[added.length - 1]!.id;
      const want = EXPECTED[`${file}#${index}`];
      if (want) {
        expect(added.map((e) => e.type)).toEqual(want);
        checked++;
      }
    }
    expect(checked).toBe(Object.keys(EXPECTED).length);
    // seq increases per session, with no gaps, in insertion order.
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    const rows = db.query("SELECT origin_session_id AS s, seq FROM events ORDER BY id").all() as {
      s: string;
      seq: number;
    }[];
    const seen = new Map<string, number>();
    for (const r of rows) {
      expect(r.seq).toBe((seen.get(r.s) ?? 0) + 1);
      seen.set(r.s, r.seq);
    }
    const errors = db.query("SELECT count(*) AS n FROM hook_errors").get() as { n: number };
    expect(errors.n).toBe(0);
    db.close();
  });
});

describe("hook post-tool-use", () => {
  const base = {
    session_id: "s-hook",
    transcript_path: "/nowhere/s-hook.jsonl",
    cwd: "/home/dev/project/",
    hook_event_name: "PostToolUse",
  };

  test("stores the project, no turn number yet, and the tool_use_id", async () => {
    using dir = tempDir();
    const env = { THROUGHLINE_DB: join(dir.path, "tl.db") };
    const out = await runHook(
      "post-tool-use",
      JSON.stringify({
        ...base,
        tool_name: "Bash",
        tool_input: { command: 'git commit -m "feat: add search"' },
        tool_response: {
          stdout: "[main abc1234] feat: add search\n 1 file changed",
          stderr: "",
          interrupted: false,
        },
        tool_use_id: "toolu_commit",
      }),
      env,
      () => Date.parse("2026-03-01T10:00:00Z"),
    );
    expect(out.exitCode).toBe(0);
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect(db.query("SELECT type, project, turn_number, tool_use_id, ts, summary FROM events").all()).toEqual(
      [
        {
          type: "git_commit",
          project: "/home/dev/project",
          turn_number: null,
          tool_use_id: "toolu_commit",
          ts: Date.parse("2026-03-01T10:00:00Z"),
          summary: "Committed abc1234 on main: feat: add search",
        },
      ],
    );
    db.close();
  });

  test("the same call twice (a retried hook) is stored once", async () => {
    using dir = tempDir();
    const env = { THROUGHLINE_DB: join(dir.path, "tl.db") };
    const payload = JSON.stringify({
      ...base,
      tool_name: "Edit",
      tool_input: { file_path: "/home/dev/project/a.ts", old_string: "a", new_string: "b" },
      tool_response: { filePath: "/home/dev/project/a.ts" },
      tool_use_id: "toolu_e1",
    });
    await runHook("post-tool-use", payload, env);
    await runHook("post-tool-use", payload, env);
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect((db.query("SELECT count(*) AS n FROM events").get() as { n: number }).n).toBe(1);
    db.close();
  });

  test("a payload without tool_name is a recorded error, exit 1, never 2", async () => {
    using dir = tempDir();
    const env = { THROUGHLINE_DB: join(dir.path, "tl.db") };
    const out = await runHook("post-tool-use", JSON.stringify(base), env);
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain("tool_name");
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    expect((db.query("SELECT count(*) AS n FROM hook_errors").get() as { n: number }).n).toBe(1);
    db.close();
  });

  test("secrets in a tool call never reach the events table", async () => {
    using dir = tempDir();
    const env = { THROUGHLINE_DB: join(dir.path, "tl.db") };
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    await runHook(
      "post-tool-use",
      JSON.stringify({
        ...base,
        tool_name: "Bash",
        tool_input: { command: `ANTHROPIC_API_KEY=${secret} npm test` },
        tool_response: { stdout: "5 passing", stderr: "" },
        tool_use_id: "toolu_s",
      }),
      env,
    );
    const db = new Database(env.THROUGHLINE_DB, { readonly: true });
    const row = db.query("SELECT summary || detail AS t FROM events").get() as { t: string };
    expect(row.t).not.toContain(secret);
    expect(row.t).toContain("[REDACTED:");
    db.close();
  });
});
