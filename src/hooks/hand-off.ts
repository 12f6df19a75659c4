/**
 * Stop and SubagentStop hand their payload to a detached worker (docs/hooks.md, "Detached Stop
 * and SubagentStop"). The client's kill lists the hook's process tree and signals every
 * descendant it found; Bun's spawn resets the signals the registered command ignored, so the
 * worker starts through a shell that ignores them again before `exec`. The shell's instant before
 * its `trap` is the one left exposed, and on a loaded machine that instant can be long: the shell
 * therefore acknowledges its trap with one byte, and a worker killed before it is started again.
 * The first shell starts while the hook still reads its payload; measured, the wait still costs
 * the hand-off ~2.4 ms (docs/hooks.md).
 */
import { TERM_TRAP } from "../core/hook-table.ts";

/** The least a subprocess must offer here: its stdin, the shell's acknowledgement, its exit. */
export interface HandOffChild {
  stdin: { write(chunk: Uint8Array): number | Promise<number>; end(): number | Promise<number> };
  stdout: ReadableStream<Uint8Array>;
  exited: Promise<number>;
  signalCode: string | number | null;
  kill(signal?: number | NodeJS.Signals): void;
  unref(): void;
}

export type HandOffSpawn = (cmd: string[], env: Record<string, string | undefined>) => HandOffChild;

/** Starts beyond the first: a worker killed before its trap twice in one hand-off is already rare. */
export const HAND_OFF_RETRIES = 2;

/**
 * The shell prints one byte once its trap is set, then becomes the worker with stdout on
 * /dev/null (the worker prints nothing anyone reads).
 */
export const SHIELD = `${TERM_TRAP}printf k; exec "$0" "$@" >/dev/null`;

function bunSpawn(cmd: string[], env: Record<string, string | undefined>): HandOffChild {
  // Bun.spawn, not node:child_process (~1.7 ms to load cold): `detached` is its setsid.
  return Bun.spawn(cmd, { detached: true, stdin: "pipe", stdout: "pipe", stderr: "ignore", env });
}

/** True when the shell's byte came; false when it died first. */
async function acknowledged(child: HandOffChild): Promise<boolean> {
  const reader = child.stdout.getReader();
  const first = await Promise.race([reader.read(), child.exited.then(() => null)]);
  try {
    reader.releaseLock();
  } catch {
    // A read still pending on a dead shell's pipe: nothing to release it for.
  }
  return first !== null && !first.done && first.value.length > 0;
}

export interface HandOff {
  /** Give the worker its payload and wait until it runs shielded. True when one does. */
  deliver(payload: string): Promise<boolean>;
  /** No worker after all (the payload failed its check): stop the one started. */
  cancel(): void;
}

/** Start `worker` now; its payload follows with `deliver`. */
export function startHandOff(
  worker: string[],
  env: Record<string, string | undefined>,
  spawn: HandOffSpawn = bunSpawn,
): HandOff {
  const cmd = process.platform === "win32" ? worker : ["/bin/sh", "-c", SHIELD, ...worker];
  const start = (): HandOffChild | null => {
    try {
      return spawn(cmd, env);
    } catch {
      // A worker that cannot start is no reason for a stack trace: the next Stop, or the next
      // session's hand-off, reads the same transcript.
      return null;
    }
  };
  let child = start();
  return {
    async deliver(payload) {
      const bytes = Buffer.from(payload);
      for (let attempt = 0; child !== null && attempt <= HAND_OFF_RETRIES; attempt++) {
        const current = child;
        try {
          await current.stdin.write(bytes);
          await current.stdin.end();
        } catch {
          // The shell is gone already: its exit below says whether to start another.
        }
        if (process.platform === "win32" || (await acknowledged(current))) {
          current.unref();
          return true;
        }
        // No byte: the shell died before (or at) its trap. Killed by a signal, start another;
        // any other exit (no /bin/sh) would fail the same way again.
        await current.exited;
        child = current.signalCode === null ? null : start();
      }
      return false;
    },
    cancel() {
      child?.kill("SIGKILL");
      child?.unref();
      child = null;
    },
  };
}
