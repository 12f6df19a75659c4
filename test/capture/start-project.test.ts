import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDb, tempDir } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { ingestTranscript } from "../../src/capture/ingest.ts";
import { predecessorCandidates } from "../../src/db/queries/handoff.ts";
import { originProject } from "../../src/db/queries/session-index.ts";

/**
 * A session's project is the directory it started in (docs/project-identity.md): the first cwd
 * of its transcript, resolved to its project identity, whatever the model `cd`s into later.
 */

/** `~/Documents/Claude` (no repository) holding the `agents` repository, another repository, a worktree of `agents`. */
function tree(root: string) {
  const docs = join(root, "Documents", "Claude");
  const agents = join(docs, "agents");
  const deep = join(agents, "src", "c");
  const other = join(root, "other");
  const wt = join(root, "agents-wt");
  mkdirSync(join(agents, ".git", "worktrees", "wt"), { recursive: true });
  writeFileSync(join(agents, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(agents, ".git", "worktrees", "wt", "commondir"), "../..\n");
  mkdirSync(deep, { recursive: true });
  mkdirSync(join(other, ".git"), { recursive: true });
  writeFileSync(join(other, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(wt, { recursive: true });
  writeFileSync(join(wt, ".git"), `gitdir: ${join(agents, ".git", "worktrees", "wt")}\n`);
  return { docs, agents, deep, other, wt };
}

/** A session that starts in `start`, then runs one turn in each of `later`, with a Bash call there. */
function session(id: string, start: string, later: string[]): TranscriptBuilder {
  const b = new TranscriptBuilder(id, start);
  b.user("look around")
    .tool("Write", { file_path: `${start}/notes.md`, content: "n" }, "ok")
    .say("wrote notes");
  for (const dir of later) {
    b.cd(dir);
    b.user(`work in ${dir}`)
      .tool("Write", { file_path: `${dir}/x.ts`, content: "x" }, "ok")
      .say("done");
  }
  return b;
}

function projects(db: import("bun:sqlite").Database, id: string) {
  const row = db
    .query<{ project: string | null }, [string]>("SELECT project FROM sessions WHERE id = ?")
    .get(id);
  const events = db
    .query<{ project: string | null }, [string]>(
      "SELECT DISTINCT project FROM events WHERE origin_session_id = ? ORDER BY project",
    )
    .all(id)
    .map((r) => r.project);
  return { session: row?.project ?? null, events };
}

describe("a session's project is where it started", () => {
  test("cd into a repository below the start directory, then deeper: filed under the start", () => {
    using dir = tempDir("tl-start-");
    using t = tempDb();
    const d = tree(realpathSync(dir.path));
    const path = join(dir.path, "s1.jsonl");
    writeFileSync(path, session("s1", d.docs, [d.agents, d.deep]).text());
    ingestTranscript(t.db, { path, now: 1 });
    // Before: the newest cwd decided, and the session was filed under …/agents.
    expect(projects(t.db, "s1")).toEqual({ session: d.docs, events: [d.docs] });
    // The session index and the /clear fallback read the same row.
    expect(originProject(t.db, "s1")).toBe(d.docs);
    expect(predecessorCandidates(t.db, d.docs, "other").map((s) => s.id)).toEqual(["s1"]);
    expect(predecessorCandidates(t.db, d.agents, "other")).toEqual([]);
  });

  test("cd into another repository: still the first one", () => {
    using dir = tempDir("tl-start-");
    using t = tempDb();
    const d = tree(realpathSync(dir.path));
    const path = join(dir.path, "s2.jsonl");
    writeFileSync(path, session("s2", d.deep, [d.other]).text());
    ingestTranscript(t.db, { path, now: 1 });
    // Started in a subdirectory of `agents`: the repository is the project.
    expect(projects(t.db, "s2")).toEqual({ session: d.agents, events: [d.agents] });
  });

  test("a worktree: started in one is the main worktree's project; cd into one does not move it", () => {
    using dir = tempDir("tl-start-");
    using t = tempDb();
    const d = tree(realpathSync(dir.path));
    const inWt = join(dir.path, "s3.jsonl");
    writeFileSync(inWt, session("s3", d.wt, [d.other]).text());
    ingestTranscript(t.db, { path: inWt, now: 1 });
    expect(projects(t.db, "s3")).toEqual({ session: d.agents, events: [d.agents] });
    const intoWt = join(dir.path, "s4.jsonl");
    writeFileSync(intoWt, session("s4", d.other, [d.wt]).text());
    ingestTranscript(t.db, { path: intoWt, now: 1 });
    expect(projects(t.db, "s4")).toEqual({ session: d.other, events: [d.other] });
  });

  test("read in pieces, with a caller that passes the current directory: the start stays", () => {
    using dir = tempDir("tl-start-");
    using t = tempDb();
    const d = tree(realpathSync(dir.path));
    const path = join(dir.path, "s5.jsonl");
    const b = new TranscriptBuilder("s5", d.docs);
    b.user("start").say("ok");
    writeFileSync(path, b.text());
    ingestTranscript(t.db, { path, project: d.docs, now: 1 });
    const before = b.lines.length;
    b.cd(d.agents)
      .user("now in agents")
      .tool("Write", { file_path: `${d.agents}/y.ts`, content: "y" }, "ok")
      .say("built");
    appendFileSync(path, `${b.lines.slice(before).join("\n")}\n`);
    // A hook after the `cd` knows only where the session is now.
    ingestTranscript(t.db, { path, project: d.agents, now: 2 });
    expect(projects(t.db, "s5")).toEqual({ session: d.docs, events: [d.docs] });
  });

  test("the transcript read from byte 0 corrects a project another writer filed first", () => {
    using dir = tempDir("tl-start-");
    using t = tempDb();
    const d = tree(realpathSync(dir.path));
    const path = join(dir.path, "s6.jsonl");
    writeFileSync(path, session("s6", d.docs, [d.agents]).text());
    // A hook that ran after the cd created the row from its payload's cwd.
    t.db.run("INSERT INTO sessions (id, project, created_at, updated_at) VALUES ('s6', ?, 1, 1)", [d.agents]);
    ingestTranscript(t.db, { path, project: d.agents, now: 1 });
    expect(projects(t.db, "s6")).toEqual({ session: d.docs, events: [d.docs] });
  });
});
