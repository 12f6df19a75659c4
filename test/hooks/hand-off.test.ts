/**
 * The Stop hand-off's start of its worker (src/hooks/hand-off.ts): the shell acknowledges its
 * trap, and a shell killed before it is started again, so a client's kill that lands in that
 * instant loses no turn (docs/hooks.md, "Detached Stop and SubagentStop").
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../harness/db.ts";
import { type HandOffChild, type HandOffSpawn, startHandOff } from "../../src/hooks/hand-off.ts";

const POSIX = process.platform !== "win32";

function spawnChild(cmd: string[], env: Record<string, string | undefined>): HandOffChild & { pid: number } {
  return Bun.spawn(cmd, { detached: true, stdin: "pipe", stdout: "pipe", stderr: "ignore", env });
}

/** The hook's two steps at once: start the worker, then hand it the payload. */
function handOff(
  worker: string[],
  payload: string,
  env: Record<string, string | undefined>,
  spawn?: HandOffSpawn,
) {
  return startHandOff(worker, env, spawn).deliver(payload);
}

/** A worker that copies its stdin to `out` (through a temporary name, so a reader sees it whole). */
function copier(out: string): string[] {
  return ["/bin/sh", "-c", 'cat > "$1.tmp" && mv "$1.tmp" "$1"', "copier", out];
}

async function waitForFile(path: string, ms = 5_000): Promise<string | null> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (existsSync(path)) return readFileSync(path, "utf8");
    await Bun.sleep(10);
  }
  return null;
}

describe.skipIf(!POSIX)("the Stop hand-off starts a shielded worker", () => {
  test("the worker gets the payload whole, and the hand-off returns while it still runs", async () => {
    using dir_ = tempDir();
    const dir = dir_.path;
    const out = join(dir, "payload");
    const payload = JSON.stringify({ session_id: "s", text: "é".repeat(200_000) });
    // It reads its stdin at once, as the worker does, then takes its time.
    const worker = ["/bin/sh", "-c", 'cat > "$1.tmp" && sleep 1 && mv "$1.tmp" "$1"', "slow", out];
    const started = performance.now();
    expect(await handOff(worker, payload, process.env)).toBe(true);
    expect(performance.now() - started).toBeLessThan(900);
    expect(existsSync(out)).toBe(false);
    expect(await waitForFile(out)).toBe(payload);
  });

  test("a shell killed before its trap is started again, and the payload still arrives once", async () => {
    using dir_ = tempDir();
    const dir = dir_.path;
    const out = join(dir, "payload");
    const starts: string[][] = [];
    // The first start dies of SIGTERM before it acknowledges, as a shell the client's kill
    // reaches in its first instant would.
    const spawn: HandOffSpawn = (cmd, env) => {
      starts.push(cmd);
      return spawnChild(starts.length === 1 ? ["/bin/sh", "-c", "kill -TERM $$"] : cmd, env);
    };
    expect(await handOff(copier(out), "the payload", process.env, spawn)).toBe(true);
    expect(starts.length).toBe(2);
    expect(await waitForFile(out)).toBe("the payload");
  });

  test("a SIGTERM at the instant of the start, twenty times: every payload arrives", async () => {
    using dir_ = tempDir();
    const dir = dir_.path;
    let killed = 0;
    // The client's walk signals each descendant it found once: the first start of a hand-off
    // gets TERM and HUP at once, whether its shell has set the trap yet or not.
    const spawnOnce = (): HandOffSpawn => {
      let first = true;
      return (cmd, env) => {
        const child = spawnChild(cmd, env);
        if (first) {
          first = false;
          process.kill(child.pid, "SIGTERM");
          process.kill(child.pid, "SIGHUP");
          killed++;
        }
        return child;
      };
    };
    const outs = Array.from({ length: 20 }, (_, i) => join(dir, `payload-${i}`));
    for (const [i, out] of outs.entries()) {
      expect(await handOff(copier(out), `payload ${i}`, process.env, spawnOnce())).toBe(true);
    }
    expect(killed).toBe(20);
    for (const [i, out] of outs.entries()) expect(await waitForFile(out)).toBe(`payload ${i}`);
  });

  test("a shell that exits without a signal is not started again", async () => {
    const starts: number[] = [];
    const spawn: HandOffSpawn = (_cmd, env) => {
      starts.push(1);
      return spawnChild(["/bin/sh", "-c", "exit 3"], env);
    };
    expect(await handOff(["true"], "{}", process.env, spawn)).toBe(false);
    expect(starts.length).toBe(1);
  });

  test("cancel: the started worker is stopped and never runs", async () => {
    using dir_ = tempDir();
    const out = join(dir_.path, "payload");
    startHandOff(copier(out), process.env).cancel();
    expect(await waitForFile(out, 500)).toBeNull();
  });

  test("a worker that cannot start at all: false, no throw", async () => {
    const spawn: HandOffSpawn = () => {
      throw new Error("spawn failed");
    };
    expect(await handOff(["true"], "{}", process.env, spawn)).toBe(false);
  });
});
