import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { openForRead, openForWrite } from "../../src/db/open.ts";
import { FINAL_TEXT } from "../../src/db/row-forms.ts";
import { runHook } from "../../src/hooks/run.ts";

// What a hook commits must survive the process dying at once, before SQLite's close-time
// checkpoint copies the WAL into the main file (docs/benchmarks.md, "The close-time
// checkpoint"). The preload turns the hook's last step, closing the connection, into SIGKILL.
// A first run builds the database aside and closes that copy before linking it in
// (src/db/open.ts createAside): that close is let through.
const KILL_ON_CLOSE = `import { Database } from "bun:sqlite";
const close = Database.prototype.close;
Database.prototype.close = function (...args) {
  if (String(this.filename).includes(".new-")) return close.apply(this, args);
  process.kill(process.pid, "SIGKILL");
};
`;

const CLI = join(REPO, "src", "cli.ts");

// Where SessionStart writes only its intent (the pending marks are kept), the write of the mark
// is its last step: the process dies as soon as that write returns.
const KILL_AFTER_MARK = `const write = Bun.write;
Bun.write = async (...args) => {
  const n = await write(...args);
  if (String(args[0]).includes("-pending/")) process.kill(process.pid, "SIGKILL");
  return n;
};
`;

function killedAfterCommit(dir: string, event: string, payload: object, code = KILL_ON_CLOSE) {
  const preload = join(dir, "kill-on-close.ts");
  writeFileSync(preload, code);
  const r = Bun.spawnSync(["bun", "--preload", preload, CLI, "hook", event], {
    env: {
      ...process.env,
      THROUGHLINE_HOME: join(dir, "home"),
      THROUGHLINE_DB: join(dir, "tl.db"),
      CLAUDE_CONFIG_DIR: join(dir, "claude"),
      THROUGHLINE_DETACH: "0",
      THROUGHLINE_FLUSH_WAIT_MS: "0",
    },
    stdin: Buffer.from(JSON.stringify(payload)),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { signal: r.signalCode, stderr: r.stderr.toString() };
}

/** A new process's view, as the next hook or pull would have it. */
function readBack<T>(dir: string, fn: (db: Database) => T): T {
  const db = openForRead(join(dir, "tl.db"));
  try {
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    return fn(db);
  } finally {
    db.close();
  }
}

describe("a hook process killed (SIGKILL) right after its handler returned", () => {
  test("stop: the turn it stored is read back", () => {
    using dir = tempDir("tl-durable-");
    const sid = "dddddddd-0000-4000-8000-000000000001";
    const path = join(dir.path, `${sid}.jsonl`);
    const b = new TranscriptBuilder(sid, "/home/dev/durable");
    b.user("Add the retry").say("Retry added; 4 tests pass.");
    writeFileSync(path, b.text());
    const r = killedAfterCommit(dir.path, "stop", {
      session_id: sid,
      transcript_path: path,
      cwd: "/home/dev/durable",
      hook_event_name: "Stop",
      last_assistant_message: "Retry added; 4 tests pass.",
    });
    expect(r.signal).toBe("SIGKILL");
    // The process died before any checkpoint: the turn lives only in the WAL.
    expect(statSync(join(dir.path, "tl.db-wal")).size).toBeGreaterThan(0);
    const row = readBack(dir.path, (db) =>
      db
        .query(
          `SELECT t.turn_number, ${FINAL_TEXT("b")} AS final_text FROM turns t JOIN bodies b ON b.turn_id = t.id AND b.role = 'assistant'`,
        )
        .all(),
    );
    expect(row).toEqual([{ turn_number: 1, final_text: "Retry added; 4 tests pass." }]);
  });

  test("post-tool-use: the event it stored is read back", () => {
    using dir = tempDir("tl-durable-");
    const r = killedAfterCommit(dir.path, "post-tool-use", {
      session_id: "dddddddd-0000-4000-8000-000000000002",
      cwd: "/home/dev/durable",
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: { file_path: "/home/dev/durable/src/a.ts", old_string: "a", new_string: "b" },
      tool_response: { filePath: "/home/dev/durable/src/a.ts", structuredPatch: [{ lines: ["-a", "+b"] }] },
      tool_use_id: "toolu_durable_1",
    });
    expect(r.signal).toBe("SIGKILL");
    expect(existsSync(join(dir.path, "tl.db-wal"))).toBe(true);
    const events = readBack(dir.path, (db) => db.query("SELECT type, tool_use_id FROM events").all());
    expect(events).toEqual([{ type: "file_edit", tool_use_id: "toolu_durable_1" }]);
  });

  test("session-start: the pending handoff it recorded is read back", () => {
    using dir = tempDir("tl-durable-");
    const sid = "dddddddd-0000-4000-8000-000000000003";
    const r = killedAfterCommit(dir.path, "session-start", {
      session_id: sid,
      cwd: "/home/dev/durable",
      hook_event_name: "SessionStart",
      source: "startup",
    });
    expect(r.signal).toBe("SIGKILL");
    const pending = readBack(dir.path, (db) =>
      db.query("SELECT session_id, source FROM pending_handoffs").all(),
    );
    expect(pending).toEqual([{ session_id: sid, source: "startup" }]);
  });

  test("session-start with the marks kept: the intent it wrote is claimed by the first prompt", async () => {
    using dir = tempDir("tl-durable-");
    const db = join(dir.path, "tl.db");
    openForWrite(db).close(); // a writer opened it before: SessionStart writes only its intent
    const sid = "dddddddd-0000-4000-8000-000000000004";
    const payload = {
      session_id: sid,
      cwd: "/home/dev/durable",
      hook_event_name: "SessionStart",
      source: "startup",
    };
    const r = killedAfterCommit(dir.path, "session-start", payload, KILL_AFTER_MARK);
    expect(r.signal).toBe("SIGKILL");
    const env = { THROUGHLINE_DB: db, THROUGHLINE_HOME: join(dir.path, "home"), HOME: dir.path };
    const prompt = { ...payload, hook_event_name: "UserPromptSubmit", prompt: "hello" };
    expect((await runHook("user-prompt-submit", JSON.stringify(prompt), env)).exitCode).toBe(0);
    const handed = readBack(dir.path, (d) => d.query("SELECT session_id, path FROM handoffs").all());
    expect(handed).toEqual([{ session_id: sid, path: "none" }]);
  });
});
