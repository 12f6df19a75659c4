/**
 * `throughline monitor` (docs/monitor.md): how full each live Claude Code session's context
 * is. Reads transcripts only (src/capture/transcript-watch.ts), incrementally, and never opens
 * the database.
 */

import { TranscriptWatcher } from "../capture/transcript-watch.ts";
import { claudeConfigDir } from "../core/paths.ts";
import { colorsFor } from "../render/colors.ts";
import { monitorJson, renderMonitor } from "../render/monitor.ts";
import { stdoutIsTty } from "../render/tty.ts";
import { jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";
import { buildView, type MonitorArgs, parseNow, parsePositive } from "./_monitor-watch.ts";

const ENTER_ALT = "\x1b[?1049h\x1b[?25l";
const LEAVE_ALT = "\x1b[?25h\x1b[?1049l";

/**
 * The live view. The alternate screen, a cursor-home before each frame, clear-to-end after
 * each line and clear-below after the last: a frame overwrites the previous one in place
 * whatever its height, and a resize redraws at once at the new width.
 */
async function live(w: TranscriptWatcher, args: MonitorArgs, intervalMs: number): Promise<void> {
  const out = process.stdout;
  const colors = colorsFor(process.env, true);
  const draw = () => {
    // One column spare: a full-width line would leave the cursor in the pending-wrap state,
    // where clear-to-end erases the last character on some terminals.
    const width = Math.max(10, (out.columns || 80) - 1);
    const height = Math.max(1, out.rows || 24);
    const text = renderMonitor(buildView(w, args, Date.now(), process.cwd()), width, colors);
    const lines = text.split("\n").slice(0, height);
    out.write(`\x1b[H${lines.map((l) => `${l}\x1b[K`).join("\r\n")}\x1b[J`);
  };
  out.write(ENTER_ALT);
  let stop: () => void = () => {};
  const done = new Promise<void>((r) => {
    stop = r;
  });
  const quit = () => stop();
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
  process.on("SIGHUP", quit);
  process.on("SIGWINCH", draw);
  const timer = setInterval(draw, intervalMs);
  try {
    draw();
    await done;
  } finally {
    clearInterval(timer);
    process.off("SIGWINCH", draw);
    out.write(LEAVE_ALT);
  }
}

export default defineCommand({
  meta: {
    name: "monitor",
    examples: ["throughline monitor", "throughline monitor --all --once"],
    description:
      "How full each live Claude Code session's context is: a row per session active in the last 15 minutes, refreshed every second",
  },
  args: {
    all: { type: "boolean", description: "Every project, not only the one holding the current directory" },
    session: {
      type: "string",
      description: "Only the session whose id starts with this",
      valueHint: "prefix",
    },
    project: {
      type: "string",
      description: "The project directory to show (default: current)",
      valueHint: "dir",
    },
    once: {
      type: "boolean",
      description: "Print one frame and exit (the default when stdout is no terminal)",
    },
    width: {
      type: "string",
      description: "Cut lines to this width (default: the terminal's, else 80)",
      valueHint: "n",
    },
    idle: {
      type: "string",
      description: "Minutes without a write after which a session drops out (15)",
      valueHint: "min",
    },
    interval: { type: "string", description: "Milliseconds between frames (1000)", valueHint: "ms" },
    now: { type: "string", description: "Reference time for ages (tests)", valueHint: "iso" },
    ...jsonArgs,
  },
  async run({ args }) {
    const w = new TranscriptWatcher(claudeConfigDir(process.env));
    const tty = stdoutIsTty();
    if (args.json) return printJson(monitorJson(buildView(w, args, parseNow(args.now), process.cwd())));
    if (args.once || !tty || args.now) {
      const columns = tty ? process.stdout.columns : Number(process.env.COLUMNS) || 80;
      const width = parsePositive("width", args.width, columns || 80);
      const view = buildView(w, args, parseNow(args.now), process.cwd());
      console.log(renderMonitor(view, Math.floor(width), colorsFor(process.env, tty)));
      return;
    }
    await live(w, args, parsePositive("interval", args.interval, 1000));
  },
});
