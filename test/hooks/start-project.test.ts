import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { HookDriver } from "../helpers/hooks.ts";

/**
 * A hook payload's `cwd` is the session's current directory, not the one it started in: once
 * the session row holds a project, no hook moves it (docs/project-identity.md).
 */
describe("hooks keep a session's project where it started", () => {
  test("prompts, tool calls, Stop and SessionEnd from a directory the model cd-ed into", async () => {
    using dir = tempDir("tl-hook-start-");
    const root = realpathSync(dir.path);
    const start = join(root, "Documents", "Claude");
    const repo = join(start, "agents");
    const deep = join(repo, "src", "c");
    mkdirSync(join(repo, ".git"), { recursive: true });
    writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(deep, { recursive: true });
    const h = new HookDriver(root);
    const id = "start-1";
    await h.fire("session-start", id, { source: "startup" }, start);
    await h.fire("user-prompt-submit", id, { prompt: "look around" }, start);
    const b = new TranscriptBuilder(id, start, new Date(h.clock).toISOString());
    b.user("look around").say("ok");
    h.write(b);
    await h.advance(1000).fire("stop", id, {}, start);
    expect(h.read((db) => db.query("SELECT project FROM sessions WHERE id = ?").get(id))).toEqual({
      project: start,
    });
    // The model cd-ed into the repository: every later payload names it.
    b.cd(deep)
      .user("build it")
      .tool("Write", { file_path: join(deep, "x.ts"), content: "x" }, "ok")
      .say("built");
    h.write(b);
    await h.fire(
      "post-tool-use",
      id,
      {
        tool_name: "Edit",
        tool_use_id: "toolu_live",
        tool_input: { file_path: join(deep, "y.ts"), old_string: "a", new_string: "b" },
        tool_response: { filePath: join(deep, "y.ts") },
      },
      deep,
    );
    await h.fire("user-prompt-submit", id, { prompt: "build it" }, deep);
    await h.advance(1000).fire("stop", id, {}, deep);
    await h.fire("session-end", id, { reason: "clear" }, deep);
    const rows = h.read((db) => ({
      session: db.query("SELECT project FROM sessions WHERE id = ?").get(id),
      events: db.query("SELECT DISTINCT project FROM events WHERE origin_session_id = ?").all(id),
      link: db.query("SELECT project FROM clear_links WHERE session_id = ?").all(id),
    }));
    expect(rows).toEqual({
      session: { project: start },
      events: [{ project: start }],
      link: [{ project: start }],
    });
  });
});
