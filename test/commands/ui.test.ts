/** `throughline ui` as a process: help, one-line errors, the printed address, Ctrl-C. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { replay } from "../../src/capture/replay.ts";
import { openForWrite } from "../../src/db/open.ts";
import { REPO, runCli, SAMPLE, tempDir } from "../helpers/db.ts";

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
