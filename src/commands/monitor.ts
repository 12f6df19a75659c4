/**
 * `throughline monitor` (docs/monitor.md): how full each live Claude Code session's context
 * is. Reads transcripts only, incrementally, and never opens the database.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { defineCommand } from "citty";
import { instantFlag } from "../core/clock.ts";
import { claudeConfigDir, normalizeProject } from "../core/paths.ts";
import { detectWindow, dirNameMatches, emptyUsage, feedUsage, type UsageState } from "../core/usage.ts";
import { ThroughlineError } from "../errors.ts";
import { colorsFor } from "../render/colors.ts";
import { type MonitorRow, type MonitorView, monitorJson, renderMonitor } from "../render/monitor.ts";
import { stdoutIsTty } from "../render/tty.ts";
import { jsonArgs, printJson } from "./_args.ts";

export const IDLE_MINUTES = 15;
/** Read at most this much per call: a first look at a 20 MB transcript goes in a few steps. */
const CHUNK = 4 << 20;

interface Tracked {
  state: UsageState;
  size: number;
  mtimeMs: number;
}

export interface Selection {
  /** Limit to this project directory (and its `projects/` entry); null: every project. */
  project: string | null;
  /** A session id prefix: that session only, idle or not. */
  session: string | null;
  idleMinutes: number;
}

/**
 * Transcripts under `$CLAUDE_CONFIG_DIR/projects/<dir>/<session>.jsonl`, each read from where
 * the previous frame stopped. A file that shrank was rewritten: it is read again from 0.
 */
export class TranscriptWatcher {
  readonly tracked = new Map<string, Tracked>();
  /** Bytes read from transcripts since the start (the tests check that frames read only tails). */
  bytesRead = 0;

  readonly configDir: string;

  constructor(configDir: string) {
    this.configDir = configDir;
  }

  private read(path: string, t: Tracked): void {
    if (t.size <= t.state.offset) return;
    const fd = openSync(path, "r");
    try {
      while (t.state.offset < t.size) {
        const len = Math.min(CHUNK, t.size - t.state.offset);
        const buf = new Uint8Array(len);
        const n = readSync(fd, buf, 0, len, t.state.offset);
        if (n <= 0) break;
        this.bytesRead += n;
        const before = t.state.offset;
        feedUsage(t.state, buf.subarray(0, n));
        // A line longer than a chunk: read on to its end in one piece.
        if (t.state.offset === before) {
          if (len === t.size - before) break; // unterminated last line: not written yet
          const rest = new Uint8Array(t.size - before);
          const m = readSync(fd, rest, 0, rest.length, before);
          this.bytesRead += m;
          feedUsage(t.state, rest.subarray(0, m));
          break;
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  frame(sel: Selection, now: number): { rows: MonitorRow[]; idleHidden: number } {
    const root = join(this.configDir, "projects");
    let dirs: string[];
    try {
      dirs = readdirSync(root);
    } catch {
      return { rows: [], idleHidden: 0 };
    }
    const rows: MonitorRow[] = [];
    let idleHidden = 0;
    const idleMs = sel.idleMinutes * 60_000;
    for (const dir of dirs) {
      if (sel.session === null && sel.project !== null && !dirNameMatches(dir, sel.project)) continue;
      let files: string[];
      try {
        files = readdirSync(join(root, dir)).filter((f) => f.endsWith(".jsonl"));
      } catch {
        continue;
      }
      for (const f of files) {
        const id = f.slice(0, -".jsonl".length);
        if (sel.session !== null && !id.startsWith(sel.session)) continue;
        const path = join(root, dir, f);
        let st: { size: number; mtimeMs: number };
        try {
          st = statSync(path);
        } catch {
          continue;
        }
        if (sel.session === null && now - st.mtimeMs > idleMs) {
          idleHidden++;
          continue;
        }
        let t = this.tracked.get(path);
        if (!t || st.size < t.state.offset) t = { state: emptyUsage(), size: 0, mtimeMs: 0 };
        t.size = st.size;
        t.mtimeMs = st.mtimeMs;
        this.tracked.set(path, t);
        this.read(path, t);
        const s = t.state;
        const w = detectWindow({ model: s.model, peak: s.peak });
        rows.push({
          sessionId: s.sessionId ?? id,
          project: s.cwd ? basename(s.cwd) || s.cwd : dir,
          projectDir: s.cwd,
          transcriptPath: path,
          used: s.used,
          window: w.size,
          windowReason: w.reason,
          model: s.model,
          lastActivity: st.mtimeMs,
          responses: s.responses,
        });
      }
    }
    rows.sort((a, b) => b.lastActivity - a.lastActivity || a.sessionId.localeCompare(b.sessionId));
    return { rows, idleHidden };
  }
}

/** The project of `cwd`: its deepest ancestor Claude Code has transcripts for, else itself. */
export function currentProject(configDir: string, cwd: string, home: string | undefined): string {
  const here = normalizeProject(cwd);
  let names: string[] = [];
  try {
    names = readdirSync(join(configDir, "projects"));
  } catch {
    return here;
  }
  for (let p = here; ; ) {
    // The home directory and `/` hold every project: only when started right there.
    const tooWide = p !== here && (p === "/" || p === home);
    if (!tooWide && names.some((n) => dirNameMatches(n, p))) return p;
    const cut = p.lastIndexOf("/");
    if (cut < 0 || p === "/") return here;
    p = cut === 0 ? "/" : p.slice(0, cut);
  }
}

function parseNow(text: string | undefined): number {
  return text ? instantFlag("--now", text) : Date.now();
}

function parsePositive(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new ThroughlineError("E_ARGS", `--${flag} must be a positive number; got "${text}"`);
  return n;
}

export interface MonitorArgs {
  all?: boolean;
  session?: string;
  project?: string;
  idle?: string;
  now?: string;
}

export function buildView(w: TranscriptWatcher, args: MonitorArgs, now: number, cwd: string): MonitorView {
  const idleMinutes = parsePositive("idle", args.idle, IDLE_MINUTES);
  const project =
    args.all || args.session
      ? null
      : args.project
        ? normalizeProject(resolve(args.project))
        : currentProject(w.configDir, cwd, process.env.HOME);
  const { rows, idleHidden } = w.frame({ project, session: args.session ?? null, idleMinutes }, now);
  return {
    now,
    scopeLabel: args.session ? `session ${args.session}…` : (project ?? "every project"),
    rows,
    idleHidden,
    idleMinutes,
    oneProject: project !== null,
  };
}

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
