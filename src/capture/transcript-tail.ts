/**
 * A transcript's context use from its tail (`statusline`, docs/monitor.md). The status line
 * runs as often as a hook: this module loads only node:fs and core/usage.ts.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { emptyUsage, feedUsage } from "../core/usage.ts";

/** The newest response is near the end: read this much of the tail first. */
const TAIL = 256 << 10;
/** A tail without any response (a huge tool output last) reads back this far at most. */
const MAX_READ = 16 << 20;

/** Context of a transcript from its tail: the newest response's usage, and the peak seen. */
export function transcriptUsage(path: string): { used: number | null; peak: number; model: string | null } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { used: null, peak: 0, model: null };
  }
  try {
    const size = fstatSync(fd).size;
    for (let want = TAIL; ; want *= 8) {
      const len = Math.min(size, want, MAX_READ);
      const start = size - len;
      const buf = new Uint8Array(len);
      const n = readSync(fd, buf, 0, len, start);
      // Not from 0: the first bytes are the end of a line cut in half.
      const from = start === 0 ? 0 : buf.indexOf(0x0a) + 1;
      const state = emptyUsage();
      state.offset = start + from;
      feedUsage(state, buf.subarray(from, n));
      if (state.used !== null || len === size || len === MAX_READ)
        return { used: state.used, peak: state.peak, model: state.model };
    }
  } finally {
    closeSync(fd);
  }
}
