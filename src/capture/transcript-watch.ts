/**
 * The live sessions' transcripts under `$CLAUDE_CONFIG_DIR/projects/` (docs/monitor.md), read
 * incrementally for `monitor` and the web view: no database, only the files Claude Code writes.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { normalizeProject } from "../core/paths.ts";
import {
  detectWindow,
  dirNameMatches,
  emptyUsage,
  feedUsage,
  type MonitorRow,
  type UsageState,
} from "../core/usage.ts";

/** Read at most this much per call: a first look at a 20 MB transcript goes in a few steps. */
const CHUNK = 4 << 20;

interface Tracked {
  state: UsageState;
  size: number;
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
        // A file last written before the idle limit holds no later activity: not read at all.
        if (sel.session === null && now - st.mtimeMs > idleMs) {
          idleHidden++;
          continue;
        }
        let t = this.tracked.get(path);
        if (!t || st.size < t.state.offset) t = { state: emptyUsage(), size: 0 };
        t.size = st.size;
        this.tracked.set(path, t);
        this.read(path, t);
        const s = t.state;
        // Recently written is not recently active: a month-old transcript copied today is idle.
        if (sel.session === null && (s.lastTs === null || now - s.lastTs > idleMs)) {
          idleHidden++;
          continue;
        }
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
          lastActivity: s.lastTs,
          responses: s.responses,
        });
      }
    }
    rows.sort(
      (a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0) || a.sessionId.localeCompare(b.sessionId),
    );
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
