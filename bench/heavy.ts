/**
 * A year of a heavy user (issue 24 part 4): a `$CLAUDE_CONFIG_DIR/projects` tree derived from the
 * shared corpus at run time — thousands of sessions over a year and ~30 projects, ids and times
 * rewritten — imported with the real `throughline import`, then every read row at that size.
 *
 *   bun bench/heavy.ts [--scale small|full] [--runs N] [--keep]
 *
 * `full` (≥ 1 GB, ≥ 2,000 sessions, ≥ 100,000 turns) runs in `bun run bench` (BENCH_HEAVY);
 * `small` (~20 MB, 100 sessions) is what test/corpus/heavy.test.ts runs. Deterministic: one
 * seeded PRNG, ids from a hash of (session, old id). Written line by line, never held whole.
 *
 * Two kinds of generated session: a whole copy of a corpus session (its subagent files with it,
 * under `<sessionId>/subagents/`), times shifted by one offset; and a mix, a sequence of corpus
 * turns (a human prompt and everything up to the next one) or parts of them (`Piece`) from
 * different sessions, each shifted to follow the previous one and its first entry re-parented onto
 * the previous one's last. Mixes prefer small pieces while the bytes per turn run above the target,
 * which is how a corpus of 158 long turns gives both the bytes and the turn count of a year.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { rng } from "../harness/cuts.ts";
import { formatClock } from "../src/core/clock.ts";
import { openForRead } from "../src/db/open.ts";
import { buildBinary, buildFloor, measure, pairWithFloor, ROOT, round, WORK } from "./lib.ts";

export const CORPUS = join(ROOT, "..", "shared", "corpus", "transcripts");

export type Scale = "small" | "full";
export interface Targets {
  bytes: number;
  sessions: number;
  turns: number;
}
export const SCALES: Record<Scale, Targets> = {
  small: { bytes: 20e6, sessions: 100, turns: 1_500 },
  full: { bytes: 1.05e9, sessions: 2_200, turns: 105_000 },
};

const PROJECT_NAMES = [
  "api-gateway",
  "billing",
  "web-app",
  "mobile",
  "infra",
  "data-pipeline",
  "auth-service",
  "docs-site",
  "cli-tools",
  "ml-models",
  "search",
  "notifications",
  "admin-panel",
  "payments",
  "analytics",
  "design-system",
  "edge-proxy",
  "scheduler",
  "reports",
  "ingest",
  "dotfiles",
  "blog",
  "paper",
  "game-jam",
  "homelab",
  "compiler",
  "bookkeeping",
  "sandbox",
  "interview-prep",
  "monorepo",
];
export const PROJECTS = PROJECT_NAMES.map((n) => `/home/dev/work/${n}`);

/** Claude Code's folder for a project: every non-alphanumeric turned into `-` (src/commands/import.ts). */
const folderOf = (cwd: string) => cwd.replace(/[^A-Za-z0-9]/g, "-");

/** A corpus turn: a human prompt and every entry up to the next one. */
interface Turn {
  lines: string[];
  bytes: number;
  first: number;
  last: number;
  cwd: string | null;
  /** The turn's first entry that has a uuid (-1: none). */
  firstUuidLine: number;
  prompt: string;
  /** Per line: the entry's uuid and parentUuid, and the latest time up to it. */
  lineUuid: (string | null)[];
  lineParent: (string | null)[];
  lineLast: number[];
  /** Prefix lengths (in lines) that end on an assistant text block: where a shorter turn can stop. */
  cuts: number[];
}

/**
 * A turn as a mix uses it: runs of a corpus turn's lines. The whole turn; a prefix that ends on an
 * assistant text; or the prompt followed by one or two of the turn's later steps (the lines between
 * two assistant texts: tool calls, their results, the text that ends them), re-parented onto the
 * prompt and moved to follow it by a few seconds.
 */
interface Piece {
  t: Turn;
  /** [from, to) line ranges; `lead` is how long after the piece's start the range's first line comes. */
  segs: { from: number; to: number; lead: number }[];
  bytes: number;
  /** From the piece's first entry to its last. */
  dur: number;
  lastUuid: string | null;
}

interface Source {
  name: string;
  sessionId: string | null;
  cwd: string | null;
  lines: string[];
  bytes: number;
  first: number;
  turns: Turn[];
  subagents: { agent: string; lines: string[] }[];
}

const MARKERS = [
  "[Request interrupted",
  "<command-",
  "<local-command",
  "Caveat:",
  "<system-reminder>",
  "<task-notification>",
  "This session is being continued",
  "[Image",
];

// biome-ignore lint/suspicious/noExplicitAny: transcript entries are open-ended JSON
function promptText(e: any): string | null {
  if (e.type !== "user" || e.isMeta || e.isCompactSummary || e.isSidechain) return null;
  const c = e.message?.content;
  let text: string | null = null;
  if (typeof c === "string") text = c;
  else if (Array.isArray(c)) {
    if (c.some((b) => b?.type === "tool_result")) return null;
    text = c
      .filter((b) => b?.type === "text")
      .map((b) => b.text)
      .join("\n");
  }
  if (!text?.trim()) return null;
  const t = text.trimStart();
  return MARKERS.some((m) => t.startsWith(m)) ? null : text;
}

const splitLines = (text: string) => text.split("\n").filter((l) => l.length > 0);

/** The corpus, read once (~33 MB): main files with their turns, subagent files with their parent. */
export function loadCorpus(dir = CORPUS): Source[] {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
  const sources: Source[] = [];
  for (const name of names.filter((f) => !f.includes(".sub-agent-"))) {
    const lines = splitLines(readFileSync(join(dir, name), "utf8"));
    const turns: Turn[] = [];
    let sessionId: string | null = null;
    let cwd: string | null = null;
    let first = Number.NaN;
    let cur: Turn | null = null;
    for (const line of lines) {
      // biome-ignore lint/suspicious/noExplicitAny: open-ended JSON
      let e: any;
      try {
        e = JSON.parse(line);
      } catch {
        if (cur) cur.lines.push(line); // a torn line stays where it was, as in the original
        continue;
      }
      sessionId ??= typeof e.sessionId === "string" ? e.sessionId : null;
      cwd ??= typeof e.cwd === "string" ? e.cwd : null;
      const ts = typeof e.timestamp === "string" ? Date.parse(e.timestamp) : Number.NaN;
      if (Number.isNaN(first) && !Number.isNaN(ts)) first = ts;
      const prompt = promptText(e);
      if (prompt !== null && !Number.isNaN(ts)) {
        cur = {
          lines: [],
          bytes: 0,
          first: ts,
          last: ts,
          cwd, // the session's first cwd: later ones are mostly under it (a `cd` into a subfolder)
          firstUuidLine: -1,
          prompt,
          lineUuid: [],
          lineParent: [],
          lineLast: [],
          cuts: [],
        };
        turns.push(cur);
      }
      if (!cur) continue;
      if (typeof e.uuid === "string" && cur.firstUuidLine < 0) cur.firstUuidLine = cur.lines.length;
      if (!Number.isNaN(ts) && ts > cur.last) cur.last = ts;
      cur.lines.push(line);
      cur.bytes += line.length + 1;
      cur.lineUuid.push(typeof e.uuid === "string" ? e.uuid : null);
      cur.lineParent.push(typeof e.parentUuid === "string" ? e.parentUuid : null);
      cur.lineLast.push(cur.last);
      const c = e.message?.content;
      if (e.type === "assistant" && Array.isArray(c) && c.some((b) => b?.type === "text" && b.text?.trim()))
        cur.cuts.push(cur.lines.length);
    }
    if (Number.isNaN(first)) continue; // no timed entry: nothing a year could place
    const stem = name.replace(/\.jsonl$/, "");
    const subagents = names
      .filter((f) => f.startsWith(`${stem}.sub-agent-`))
      .map((f) => ({
        agent: f.slice(stem.length + ".sub-agent-".length).replace(/\.jsonl$/, ""),
        lines: splitLines(readFileSync(join(dir, f), "utf8")),
      }));
    sources.push({
      name,
      sessionId,
      cwd,
      lines,
      bytes: lines.reduce((a, l) => a + l.length + 1, 0),
      first,
      turns,
      subagents,
    });
  }
  return sources;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const API_ID = /\b(toolu|msg|req)_[A-Za-z0-9]{8,}/g;
const ISO = /"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"/g;

const hex = (x: bigint, n: number) => x.toString(16).padStart(16, "0").slice(0, n);

/** A fresh uuid for `old` inside the generated session `salt`: the same answer every time. */
export function newUuid(salt: string, old: string): string {
  const a = Bun.hash.wyhash(`${salt}|${old}`, 1n) as bigint;
  const b = Bun.hash.wyhash(`${salt}|${old}`, 2n) as bigint;
  const h = hex(a, 16) + hex(b, 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function newApiId(salt: string, old: string): string {
  let x = (Bun.hash.wyhash(`${salt}|${old}`, 3n) as bigint) ^ ((Bun.hash.wyhash(old, 4n) as bigint) << 64n);
  const prefix = old.slice(0, old.indexOf("_") + 1);
  let s = "";
  for (let i = 0; i < old.length - prefix.length; i++) {
    s += B62[Number(x % 62n)];
    x /= 62n;
    if (x === 0n) x = Bun.hash.wyhash(s, 5n) as bigint;
  }
  return prefix + s;
}

/** One session's rewriting: ids by hash of (salt, old), every corpus session id to the new one. */
class Rewriter {
  readonly salt: string;
  readonly sessionId: string;
  readonly sourceIds: Set<string>;
  readonly project: string;
  constructor(salt: string, sessionId: string, sourceIds: Set<string>, project: string) {
    this.salt = salt;
    this.sessionId = sessionId;
    this.sourceIds = sourceIds;
    this.project = project;
  }
  line(raw: string, shiftMs: number, cwd: string | null): string {
    let s = raw;
    if (cwd && cwd.length > 4 && cwd !== this.project) {
      const from = JSON.stringify(cwd).slice(1, -1);
      if (s.includes(from)) s = s.split(from).join(this.project);
    }
    s = s.replace(UUID, (m) => {
      const k = m.toLowerCase();
      return this.sourceIds.has(k) ? this.sessionId : newUuid(this.salt, k);
    });
    s = s.replace(API_ID, (m) => newApiId(this.salt, m));
    s = s.replace(ISO, (_m, iso: string) => `"${new Date(Date.parse(iso) + shiftMs).toISOString()}"`);
    return s;
  }
}

/** Buffered appends to one file: the tree is written as it is made, never held whole. */
class Out {
  private fd: number;
  private buf: string[] = [];
  private pending = 0;
  bytes = 0;
  readonly path: string;
  constructor(path: string) {
    this.path = path;
    this.fd = openSync(path, "w");
  }
  write(line: string): void {
    this.buf.push(line, "\n");
    this.pending += line.length + 1;
    if (this.pending > 1 << 20) this.flush();
  }
  private flush(): void {
    if (!this.buf.length) return;
    const b = Buffer.from(this.buf.join(""));
    writeSync(this.fd, b);
    this.bytes += b.length;
    this.buf = [];
    this.pending = 0;
  }
  close(mtimeMs: number): number {
    this.flush();
    closeSync(this.fd);
    const t = new Date(mtimeMs);
    utimesSync(this.path, t, t);
    return this.bytes;
  }
}

export interface GeneratedSession {
  id: string;
  project: string;
  kind: "copy" | "mix";
  source: string;
  start: number;
  end: number;
  turns: number;
  bytes: number;
  subagents: number;
  /** The middle turn's start and its prompt, for the read rows. */
  middleTurnAt: number;
  middlePrompt: string;
}

export interface Generated {
  root: string;
  sessions: GeneratedSession[];
  bytes: number;
  files: number;
  turns: number;
  projects: number;
  first: number;
  last: number;
  seconds: number;
}

/** The first line with a uuid in a range of a turn (-1: none). */
function firstUuidIn(t: Turn, g: { from: number; to: number }): number {
  for (let j = g.from; j < g.to; j++) if (t.lineUuid[j] !== null) return j;
  return -1;
}

/** The last uuid in a piece's range `k`. */
function lastOf(p: Piece, k: number): string | null {
  const g = p.segs[k]!;
  for (let j = g.to - 1; j >= g.from; j--) if (p.t.lineUuid[j] !== null) return p.t.lineUuid[j]!;
  return null;
}

const YEAR_START = Date.UTC(2025, 11, 1);
const YEAR_MS = 365 * 86_400_000;

/**
 * Writes the tree under `configDir/projects`. Every sixth session is a copy of a corpus
 * session (cycling through them); the rest are mixes sized so that sessions, turns and bytes all
 * reach the targets. Generation stops when all three are reached.
 */
export function generate(
  configDir: string,
  targets: Targets,
  opts: { seed?: number; corpus?: Source[] } = {},
): Generated {
  const t0 = performance.now();
  const sources = opts.corpus ?? loadCorpus();
  if (!sources.length) throw new Error("heavy: the corpus has no usable session");
  const rand = rng(opts.seed ?? 24);
  const root = join(configDir, "projects");
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const sourceIds = new Set(sources.flatMap((s) => (s.sessionId ? [s.sessionId.toLowerCase()] : [])));
  // Every corpus turn, and every prefix of one that ends on an assistant text: the corpus's turns
  // are long (median ~48 KB), a year of 100,000 turns in 1 GB needs ~10 KB ones.
  const pool: Piece[] = [];
  const piece = (t: Turn, segs: { from: number; to: number }[]): Piece => {
    let bytes = 0;
    let lastUuid: string | null = null;
    let lead = 0;
    const out: Piece["segs"] = [];
    for (const [k, g] of segs.entries()) {
      if (k > 0) lead += t.lineLast[segs[k - 1]!.to - 1]! - t.lineLast[segs[k - 1]!.from]! + 3_000;
      out.push({ ...g, lead });
      for (let j = g.from; j < g.to; j++) {
        bytes += t.lines[j]!.length + 1;
        lastUuid = t.lineUuid[j] ?? lastUuid;
      }
    }
    const l = out.at(-1)!;
    return { t, segs: out, bytes, dur: l.lead + t.lineLast[l.to - 1]! - t.lineLast[l.from]!, lastUuid };
  };
  for (const s of sources)
    for (const t of s.turns) {
      if (t.firstUuidLine !== 0) continue; // the prompt is the turn's first line (always, here)
      const cuts = [...new Set([...t.cuts.filter((n) => n > 1), t.lines.length])].sort((x, y) => x - y);
      for (const n of cuts) pool.push(piece(t, [{ from: 0, to: n }]));
      for (let i = 0; i < cuts.length; i++)
        for (const j of [i + 1, i + 2])
          if (j < cuts.length)
            pool.push(
              piece(t, [
                { from: 0, to: 1 },
                { from: cuts[i]!, to: cuts[j]! },
              ]),
            );
    }
  const small = pool.filter((p) => p.bytes <= 6_000);
  // Projects by a Zipf-like weight: a few projects hold most of the year, as for a real user.
  const weights = PROJECTS.map((_, i) => 1 / (i + 1) ** 0.9);
  const wsum = weights.reduce((a, b) => a + b, 0);
  const pickProject = () => {
    let r = rand() * wsum;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r <= 0) return PROJECTS[i]!;
    }
    return PROJECTS[0]!;
  };
  // Session starts: the year cut in equal slots, one session at a jittered time inside each.
  const slots = targets.sessions;
  const sessions: GeneratedSession[] = [];
  let bytes = 0;
  let turns = 0;
  let files = 0;
  const copyEvery = 6;
  const copyTurns = sources.reduce((a, s) => a + s.turns.length, 0) / sources.length;
  const copyBytes = sources.reduce((a, s) => a + s.bytes, 0) / sources.length;
  const expectCopies = Math.ceil(slots / copyEvery);
  const mixTurnsTarget = Math.max(1, targets.turns - expectCopies * copyTurns);
  const mixBytesTarget = Math.max(1, targets.bytes - expectCopies * copyBytes);
  const bytesPerMixTurn = mixBytesTarget / mixTurnsTarget;
  const turnsPerMix = Math.max(2, Math.round(mixTurnsTarget / (slots - expectCopies)));
  // Copies go through the corpus in a shuffled order, so a small tree is not its first files.
  const order = [...sources];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let mixBytes = 0;
  let mixTurns = 0;
  let copies = 0;
  for (let i = 0; sessions.length < targets.sessions || turns < targets.turns || bytes < targets.bytes; i++) {
    // Past the targets' slots (turns or bytes not reached yet), a session at any time of the year.
    const start = Math.round(
      i < slots ? YEAR_START + (i + 0.1 + 0.8 * rand()) * (YEAR_MS / slots) : YEAR_START + rand() * YEAR_MS,
    );
    const project = pickProject();
    const id = newUuid(`session-${opts.seed ?? 24}`, String(i));
    const folder = join(root, folderOf(project));
    mkdirSync(folder, { recursive: true });
    const rw = new Rewriter(`s${i}`, id, sourceIds, project);
    const file = new Out(join(folder, `${id}.jsonl`));
    let gs: GeneratedSession;
    if (i % copyEvery === 0) {
      // A whole corpus session, its subagents beside it, every time moved by one offset.
      const src = order[copies++ % order.length]!;
      const shift = start - src.first;
      for (const l of src.lines) file.write(rw.line(l, shift, src.cwd));
      const last = src.turns.length ? src.turns[src.turns.length - 1]!.last + shift : start;
      const n = file.close(last);
      let subBytes = 0;
      if (src.subagents.length) {
        const dir = join(folder, id, "subagents");
        mkdirSync(dir, { recursive: true });
        for (const sub of src.subagents) {
          const o = new Out(join(dir, `agent-${sub.agent}.jsonl`));
          for (const l of sub.lines) o.write(rw.line(l, shift, src.cwd));
          subBytes += o.close(last);
          files++;
        }
      }
      const mid = src.turns[src.turns.length >> 1];
      gs = {
        id,
        project,
        kind: "copy",
        source: src.name,
        start,
        end: last,
        turns: src.turns.length,
        bytes: n + subBytes,
        subagents: src.subagents.length,
        middleTurnAt: mid ? mid.first + shift : start,
        middlePrompt: mid?.prompt ?? "",
      };
    } else {
      // A mix: distinct corpus turns, each after the previous, chained by parentUuid.
      const want = Math.max(2, Math.round(turnsPerMix * (0.5 + rand())));
      const used = new Set<Turn>();
      let cursor = start;
      let prevLast: string | null = null;
      let mid: { at: number; prompt: string } | null = null;
      let k = 0;
      for (let tries = 0; k < want && tries < want * 20; tries++) {
        const over = mixTurns > 0 && mixBytes / mixTurns > bytesPerMixTurn;
        const from = over && small.length ? small : pool;
        const p = from[Math.floor(rand() * from.length)]!;
        if (used.has(p.t)) continue;
        used.add(p.t);
        for (const [k, g] of p.segs.entries()) {
          const shift = cursor + g.lead - p.t.lineLast[g.from]!;
          for (let j = g.from; j < g.to; j++) {
            let l = p.t.lines[j]!;
            // The piece's first entry follows the previous piece's last; a later range's first
            // entry with a uuid follows the range before it.
            const parent = k === 0 ? prevLast : (lastOf(p, k - 1) ?? null);
            if (j === firstUuidIn(p.t, g) && parent !== null) {
              const was = p.t.lineParent[j];
              l =
                was === null || was === undefined
                  ? l.replace('"parentUuid":null', `"parentUuid":"${parent}"`)
                  : l.replace(`"parentUuid":"${was}"`, `"parentUuid":"${parent}"`);
            }
            file.write(rw.line(l, shift, p.t.cwd));
          }
        }
        mixBytes += p.bytes;
        mixTurns++;
        if (k === want >> 1) mid = { at: cursor, prompt: p.t.prompt };
        prevLast = p.lastUuid;
        // The next prompt comes 20 s to 15 min after this turn's last entry (a turn idle for
        // hours in the corpus is capped at 2 h, so a session stays within its day).
        cursor += Math.min(p.dur, 7_200_000) + 20_000 + Math.floor(rand() * 880_000);
        k++;
      }
      const n = file.close(cursor);
      gs = {
        id,
        project,
        kind: "mix",
        source: "mix",
        start,
        end: cursor,
        turns: k,
        bytes: n,
        subagents: 0,
        middleTurnAt: mid?.at ?? start,
        middlePrompt: mid?.prompt ?? "",
      };
    }
    files++;
    sessions.push(gs);
    bytes += gs.bytes;
    turns += gs.turns;
  }
  const starts = sessions.map((s) => s.start);
  return {
    root,
    sessions,
    bytes,
    files,
    turns,
    projects: new Set(sessions.map((s) => s.project)).size,
    first: Math.min(...starts),
    last: Math.max(...sessions.map((s) => s.end)),
    seconds: round((performance.now() - t0) / 1000),
  };
}

/** Words of a prompt a search would use: letters only, 6+ long, the longest first. */
export function searchWords(prompt: string, n: number): string[] {
  const seen = new Set<string>();
  for (const w of prompt.match(/[A-Za-z]{6,}/g) ?? []) seen.add(w.toLowerCase());
  return [...seen].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, n);
}

/** Everyday words of a coding prompt; the two the generated prompts use most are the "common words". */
const EVERYDAY = [
  "test",
  "tests",
  "error",
  "file",
  "files",
  "build",
  "code",
  "update",
  "change",
  "check",
  "run",
  "fix",
  "add",
  "make",
  "function",
];

function commonWords(sessions: GeneratedSession[]): string[] {
  const count = new Map<string, number>(EVERYDAY.map((w) => [w, 0]));
  for (const s of sessions)
    for (const w of s.middlePrompt.toLowerCase().match(/[a-z]+/g) ?? [])
      if (count.has(w)) count.set(w, count.get(w)! + 1);
  return [...count.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 2)
    .map(([w]) => w);
}

export interface HeavyRow {
  median_ms: number;
  ratio: number;
  goal?: string;
  note?: string;
}

export interface ImportFigures {
  seconds: number;
  mb_per_s: number;
  transcript_bytes: number;
  db_bytes: number;
  db_bytes_per_transcript_byte: number;
  sessions: number;
  turns: number;
  events: number;
  /** Generated main sessions the import report does not name (should be none). */
  missing: string[];
}

export function importTree(
  bin: string[],
  env: Record<string, string>,
  gen: Generated,
  dbPath: string,
): ImportFigures {
  const t0 = performance.now();
  const r = Bun.spawnSync([...bin, "import", "--json"], {
    env: { ...process.env, ...env },
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.exitCode !== 0) throw new Error(`import exited ${r.exitCode}: ${r.stderr.toString().slice(0, 500)}`);
  const report = JSON.parse(r.stdout.toString()) as {
    sessions: { session_id: string }[];
    totals: { bytes: number; turns: number; events: number; sessions: number };
  };
  const named = new Set(report.sessions.map((s) => s.session_id));
  let dbBytes = 0;
  for (const s of ["", "-wal"]) if (existsSync(dbPath + s)) dbBytes += statSync(dbPath + s).size;
  return {
    seconds: round(seconds),
    mb_per_s: round(report.totals.bytes / 1e6 / seconds),
    transcript_bytes: report.totals.bytes,
    db_bytes: dbBytes,
    db_bytes_per_transcript_byte: round(dbBytes / report.totals.bytes, 3),
    sessions: report.totals.sessions,
    turns: report.totals.turns,
    events: report.totals.events,
    missing: gen.sessions.filter((s) => !named.has(s.id)).map((s) => s.id),
  };
}

export interface HeavyReport {
  scale: Scale | "custom";
  generated: Omit<Generated, "sessions" | "root"> & { copies: number; mixes: number; subagent_files: number };
  import: ImportFigures;
  rows: Record<string, HeavyRow>;
  words: { rare: string[]; common: string[] };
}

export const GOALS: Record<string, string> = {
  context: "≤ 2×",
  "recall --l2 (baked)": "≤ 2×",
  "recall --l1 (baked)": "≤ 2×",
  "detail HH:MM": "≤ 2×",
  "search <words>": "≤ 3×",
  "search <common words>": "≤ 3×",
  "search <words> (its chain)": "≤ 3×",
  "search <common words> (its chain)": "≤ 3×",
  "recall <words>": "≤ 3×",
  "recall <words> --all": "≤ 3×",
  "recall (summary)": "≤ 3×",
};

/**
 * Generate, import, measure. `bin` runs throughline (the compiled binary, or `bun src/cli.ts`);
 * the floor pairing set by bench/lib.ts `pairWithFloor` gives the ratios, else `floorMs` does.
 * Everything lives under `work` and is removed at the end unless `keep`.
 */
export async function benchHeavy(opts: {
  bin: string[];
  floorMs: number;
  runs: number;
  scale?: Scale;
  targets?: Targets;
  work?: string;
  keep?: boolean;
  log?: (s: string) => void;
}): Promise<HeavyReport> {
  const log = opts.log ?? ((s: string) => console.error(s));
  const targets = opts.targets ?? SCALES[opts.scale ?? "full"];
  const work = opts.work ?? join(WORK, "heavy");
  rmSync(work, { recursive: true, force: true });
  const configDir = join(work, "claude");
  const home = join(work, "home");
  mkdirSync(home, { recursive: true });
  const env = {
    THROUGHLINE_HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    THROUGHLINE_SUMMARIZER: "extractive",
    THROUGHLINE_DETACH: "0",
  };
  const dbPath = join(home, "throughline.db");
  try {
    log(
      `  generating ${(targets.bytes / 1e6).toFixed(0)} MB, ${targets.sessions} sessions, ${targets.turns} turns…`,
    );
    const gen = generate(configDir, targets);
    log(
      `  generated ${(gen.bytes / 1e6).toFixed(1)} MB, ${gen.sessions.length} sessions, ~${gen.turns} turns in ${gen.seconds} s; importing…`,
    );
    const imp = importTree(opts.bin, env, gen, dbPath);
    log(`  imported in ${imp.seconds} s (${imp.mb_per_s} MB/s), db ${(imp.db_bytes / 1e6).toFixed(1)} MB`);

    // The user is in the newest session whose push pages: it bakes both an L2 and an L1 pull.
    const run = (args: string[]) => [...opts.bin, ...args];
    const candidates = gen.sessions
      .filter((s) => s.kind === "mix" && s.turns >= 10)
      .sort((a, b) => b.start - a.start);
    let cur: GeneratedSession | null = null;
    let pull: { l2: string | null; l1: string | null } = { l2: null, l1: null };
    for (const s of candidates.slice(0, 50)) {
      const ctx = Bun.spawnSync(run(["context", "--session", s.id, "--json"]), {
        env: { ...process.env, ...env },
        cwd: ROOT,
      });
      if (ctx.exitCode !== 0) throw new Error(`context failed: ${ctx.stderr}`);
      pull = JSON.parse(ctx.stdout.toString()).pull as typeof pull;
      if (pull.l2 !== null && pull.l1 !== null) {
        cur = s;
        break;
      }
    }
    if (cur === null) throw new Error("heavy: no session among the newest 50 mixes has a push that pages");
    const baked = (cmd: string | null, what: string) => {
      if (cmd === null) throw new Error(`heavy: the push baked no ${what} command`);
      return cmd.split(" ").slice(1);
    };
    // The middle turn's clock time, read back from the database (what detail resolves).
    const db = openForRead(dbPath);
    let middleAt: number;
    try {
      const rows = db
        .query<{ t: number }, [string]>(
          "SELECT started_at AS t FROM turns WHERE origin_session_id = ? ORDER BY turn_number",
        )
        .all(cur.id);
      middleAt = rows[rows.length >> 1]?.t ?? cur.middleTurnAt;
    } finally {
      db.close();
    }
    const rare = searchWords(cur.middlePrompt, 2);
    if (!rare.length) rare.push("test");
    const common = commonWords(gen.sessions);
    const p = ["--project", cur.project];
    const cases: [string, string[]][] = [
      ["context", ["context", "--session", cur.id]],
      ["recall --l2 (baked)", baked(pull.l2, "l2")],
      ["recall --l1 (baked)", baked(pull.l1, "l1")],
      ["detail HH:MM", ["detail", formatClock(middleAt).slice(0, 5), "--session", cur.id]],
      ["search <words>", ["search", ...rare, ...p]],
      ["search <common words>", ["search", ...common, ...p]],
      // The scope the model's Bash searches by default: its session's chain.
      ["search <words> (its chain)", ["search", ...rare, "--session", cur.id]],
      ["search <common words> (its chain)", ["search", ...common, "--session", cur.id]],
      ["recall <words>", ["recall", ...rare, ...p]],
      ["recall <words> --all", ["recall", ...rare, "--all-sessions", ...p]],
      ["recall (summary)", ["recall", ...p]],
    ];
    const rows: Record<string, HeavyRow> = {};
    for (const [name, args] of cases) {
      log(`  ${name}…`);
      const m = measure(opts.runs, () => run(args), { env });
      rows[name] = {
        median_ms: m.median_ms,
        ratio: m.paired_ratio ?? round(m.median_ms / opts.floorMs),
        goal: GOALS[name]!,
        note: args.join(" "),
      };
    }
    const { sessions, root: _root, ...rest } = gen;
    return {
      scale: opts.targets ? "custom" : (opts.scale ?? "full"),
      generated: {
        ...rest,
        copies: sessions.filter((s) => s.kind === "copy").length,
        mixes: sessions.filter((s) => s.kind === "mix").length,
        subagent_files: sessions.reduce((a, s) => a + s.subagents, 0),
      },
      import: imp,
      rows,
      words: { rare, common },
    };
  } finally {
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
}

/** "≤ 2×" → met when the ratio is at most 2. */
export function met(ratio: number, goal: string): boolean {
  const m = /≤ ([\d.]+)×/.exec(goal);
  return m !== null && ratio <= Number(m[1]);
}

export function renderHeavy(r: HeavyReport): string {
  const g = r.generated;
  const out: string[] = [];
  out.push(
    `A heavy user's year (${r.scale}): ${(g.bytes / 1e6).toFixed(1)} MB in ${g.files} files, ${r.import.sessions} sessions (${g.copies} copies, ${g.mixes} mixes, ${g.subagent_files} subagent files), ${r.import.turns} turns, ${g.projects} projects, ${new Date(g.first).toISOString().slice(0, 10)} → ${new Date(g.last).toISOString().slice(0, 10)}`,
  );
  const w = 30;
  out.push(`${"row".padEnd(w)}  median ms   ratio  goal`);
  for (const [name, row] of Object.entries(r.rows))
    out.push(
      `${name.padEnd(w)}  ${row.median_ms.toFixed(2).padStart(9)}  ${String(row.ratio).padStart(6)}×  ${(row.goal ?? "").padEnd(6)}  ${row.goal ? (met(row.ratio, row.goal) ? "met" : "MISSED") : ""}`,
    );
  const i = r.import;
  out.push(
    `${"import throughput".padEnd(w)}  ${`${i.mb_per_s} MB/s`.padStart(17)}  ≥ 30 MB/s  ${i.mb_per_s >= 30 ? "met" : "MISSED"}  (${i.seconds} s)`,
  );
  out.push(
    `${"db bytes per transcript byte".padEnd(w)}  ${String(i.db_bytes_per_transcript_byte).padStart(17)}  ≤ 0.5      ${i.db_bytes_per_transcript_byte <= 0.5 ? "met" : "MISSED"}  (${(i.db_bytes / 1e6).toFixed(1)} MB)`,
  );
  return out.join("\n");
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const scale = (arg("--scale") ?? "full") as Scale;
  if (!(scale in SCALES)) throw new Error(`--scale ${scale}: small or full`);
  if (!existsSync(CORPUS)) {
    console.warn(`heavy: skipped, no corpus at ${CORPUS}`);
    process.exit(0);
  }
  const runs = Number(arg("--runs") ?? process.env.BENCH_RUNS ?? 20);
  console.error("building the floor and the binary…");
  const floorBin = await buildFloor();
  const bin = await buildBinary();
  const floor = measure(runs, () => [floorBin], { stdin: () => "{}" });
  pairWithFloor(floorBin);
  const r = await benchHeavy({
    bin: [bin],
    floorMs: floor.median_ms,
    runs,
    scale,
    keep: process.argv.includes("--keep"),
  });
  console.log(renderHeavy(r));
  console.log(`floor median ${floor.median_ms} ms`);
  await Bun.write(
    join(WORK, `heavy-${scale}.json`),
    JSON.stringify({ ...r, floor_ms: floor.median_ms, runs, at: new Date().toISOString() }, null, 2),
  );
}
