/**
 * `throughline ui` as a process: help, one-line errors, the printed address, Ctrl-C; and which
 * sessions its Live page lists, with what time.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FIXTURES, REPO, runCli, SAMPLE, tempDir } from "../../harness/db.ts";
import { shiftTimestamps } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { startUi } from "../../src/commands/_ui-server.ts";
import { openForWrite, withWriter } from "../../src/db/open.ts";

describe("throughline ui", () => {
  test("--help explains the flags and the token", () => {
    const r = runCli(["ui", "--help"]);
    expect(r.exitCode).toBe(0);
    for (const word of ["--port", "--no-open", "--db", "127.0.0.1", "read-only", "token"])
      expect(r.stdout).toContain(word);
  });

  test("bad input is one line and exit 1, never a stack trace", () => {
    using dir = tempDir();
    const env = { THROUGHLINE_HOME: dir.path };
    const port = runCli(["ui", "--port", "http", "--no-open"], { env });
    expect(port.exitCode).toBe(1);
    expect(port.stderr.trim().split("\n")).toHaveLength(1);
    expect(port.stderr).toContain("--port must be a number");
    const missing = runCli(["ui", "--no-open", "--db", join(dir.path, "none.db")], { env });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).not.toContain("    at ");
    expect(missing.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
  });

  test("prints its address with the token, serves it, refuses a second server on its port, and stops on SIGINT", async () => {
    using dir = tempDir();
    const db = join(dir.path, "throughline.db");
    const w = openForWrite(db);
    replay(w, [SAMPLE]);
    w.close();
    const proc = Bun.spawn(["bun", join(REPO, "src", "cli.ts"), "ui", "--no-open", "--db", db], {
      env: { ...process.env, THROUGHLINE_HOME: dir.path, CLAUDE_CONFIG_DIR: join(dir.path, "claude") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let out = "";
    const deadline = Date.now() + 10_000;
    while (!out.includes("\n") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const url = out.match(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}/)?.[0];
    expect(url).toBeDefined();
    const first = await fetch(url!, { redirect: "manual" });
    expect(first.status).toBe(303);
    const page = await fetch(new URL("/", url!), {
      headers: { cookie: String(first.headers.get("set-cookie")).split(";")[0]! },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/home/dev/todo-api");
    // A second server on the same port is refused, in one line: the port is never shared.
    const port = new URL(url!).port;
    const second = runCli(["ui", "--no-open", "--db", db, "--port", port], {
      env: { THROUGHLINE_HOME: dir.path },
    });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`port ${port} is in use`);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });
});

/** The monitor's fixture transcripts, by session id, and the project folder each is under. */
const LIVE = {
  a1: ["-work-alpha", "a1a1a1a1-0000-4000-8000-000000000001"],
  a2: ["-work-alpha", "a2a2a2a2-0000-4000-8000-000000000002"],
  b1: ["-work-beta-project", "b1b1b1b1-0000-4000-8000-000000000005"],
} as const;

/**
 * A config directory holding the fixtures, each last active at the time given (its transcript's
 * own times) and its file written just now, as a copy is; all of them captured into `db`.
 */
function liveWorld(root: string, lastActive: Record<keyof typeof LIVE, number>) {
  const config = join(root, "claude");
  const db = join(root, "throughline.db");
  const files = Object.entries(LIVE).map(([key, [folder, id]]) => {
    const file = join(config, "projects", folder, `${id}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    const text = readFileSync(join(FIXTURES, "monitor", "projects", folder, `${id}.jsonl`), "utf8");
    writeFileSync(file, shiftTimestamps(text, lastActive[key as keyof typeof LIVE]));
    utimesSync(file, new Date(), new Date());
    return file;
  });
  withWriter(db, (w) => replay(w, files));
  return { config, db };
}

async function livePage(db: string, config: string): Promise<string> {
  const server = await startUi({ dbPath: db, port: 0, configDir: config, invocation: "throughline" });
  try {
    const r = await fetch(new URL("/live", server.url), { headers: { cookie: `tl_ui=${server.token}` } });
    expect(r.status).toBe(200);
    return await r.text();
  } finally {
    await server.stop();
  }
}

describe("the Live page", () => {
  test("45.9 a forgotten session is not on Live", async () => {
    using dir = tempDir();
    const now = Date.now();
    const { config, db } = liveWorld(dir.path, { a1: now - 60_000, a2: now - 120_000, b1: now - 30_000 });
    const before = await livePage(db, config);
    for (const id of ["a1a1a1a1", "a2a2a2a2", "b1b1b1b1"]) expect(before).toContain(id);
    const forget = runCli(["forget", "--session", LIVE.b1[1], "--yes", "--db", db], {
      env: { THROUGHLINE_HOME: dir.path },
    });
    expect(forget.exitCode).toBe(0);
    const after = await livePage(db, config);
    expect(after).not.toContain("b1b1b1b1");
    expect(after).toContain("a1a1a1a1");
  });

  test("45.9 Live: a month-old transcript copied just now is not live; times are the transcript's", async () => {
    using dir = tempDir();
    const now = Date.now();
    const a1 = now - 60_000;
    const { config, db } = liveWorld(dir.path, { a1, a2: now - 30 * 86_400_000, b1: now - 30_000 });
    const page = await livePage(db, config);
    expect(page).toContain("a1a1a1a1");
    expect(page).toContain("b1b1b1b1");
    expect(page).not.toContain("a2a2a2a2");
    expect(page).toContain("(1 idle left out)");
    // The row's time is the transcript's last entry, not the file's mtime (now).
    expect(page).toContain(new Date(a1).toISOString().slice(0, 19).replace("T", " "));
  });
});
