/**
 * Continuation recall on real sessions (docs/benchmarks.md, "Continuation recall"): after /clear
 * at turn k, does the model have in the push, or get with at most 3 of the commands the push
 * prints, the facts turn k+1 needs? Each cut is replayed into a fresh home and the product is
 * driven as a black box: `replay --json`, `context --json`, then the printed commands run through
 * `sh -c` with a user's PATH, as Claude Code's Bash tool would.
 *
 *   bun bench/continuation.ts [--files NAME…] [--cuts N] [--quick] [--jobs N] [--binary]
 *       [--bash-view-limit N] [--out FILE] [--keep]
 *
 * Progress goes to stderr, the summary to stdout, every row and the summary to --out (JSON).
 */
import { Database } from "bun:sqlite";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import {
  type Cut,
  chooseCuts,
  parseLine,
  parseSession,
  promptWords,
  splitLines,
  stripBytes,
  type Turn,
} from "./continuation/facts.ts";
import {
  aggregateSummary,
  BASH_VIEW_LIMIT,
  bashView,
  type Call,
  COVERAGE_KEYS,
  type CoverageKey,
  detailCommand,
  detailTurns,
  type Loc,
  missReason,
  printedCommands,
  type Row,
  renderSummary,
  type ScoredFact,
  type Summary,
  searchTurns,
  whatIfCommand,
} from "./continuation/score.ts";
import { cpLength, present, round4, strip, universalNewlines } from "./continuation/text.ts";

export { renderSummary, type Summary };

const ROOT = join(import.meta.dir, "..");
/** The shared corpus beside the checkout; absent on most machines. */
export const CORPUS_TRANSCRIPTS = join(ROOT, "..", "shared", "corpus", "transcripts");
const CALL_TIMEOUT_MS = 120_000;
const REPLAY_TIMEOUT_MS = 600_000;

export type ContinuationOptions = {
  /** Cut points per session (spread evenly over the eligible ones). */
  cuts?: number;
  /** Cuts evaluated at once. */
  jobs?: number;
  /** Outputs longer than this are seen as a 2,000-character preview; 0 = no cut. */
  bashViewLimit?: number;
  /** The product as an argv prefix; default `bun <package.json bin>`. */
  cli?: string[];
  /** Only the first 5 sessions that have a usable cut. */
  quick?: boolean;
  keep?: boolean;
  progress?: (line: string) => void;
};
export type SkippedSession = { file: string; turns: number; eligible_cuts: number; why: string };
export type ContinuationResult = { summary: Summary; rows: Row[]; skipped: SkippedSession[]; kept: string[] };

/** The .jsonl files of a corpus directory, sorted; subagent files (`<main>.sub-…`) included. */
export function corpusFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f));
}

function defaultCli(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    bin: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin.throughline!;
  return [process.execPath, join(ROOT, bin)];
}

/** The session id a transcript's main lines carry, else its file name. */
function sessionIdOf(lines: Uint8Array[], path: string): string {
  for (const l of lines) {
    const e = parseLine(l) as { sessionId?: unknown; isSidechain?: unknown } | undefined;
    if (e && typeof e === "object" && !Array.isArray(e) && e.sessionId && !e.isSidechain)
      return String(e.sessionId);
  }
  return basename(path).slice(0, -6);
}

function homeEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.THROUGHLINE_HOME = join(home, "tl");
  env.CLAUDE_CONFIG_DIR = join(home, "claude");
  env.HOME = home;
  env.NO_COLOR = "1";
  delete env.THROUGHLINE_DB;
  mkdirSync(env.THROUGHLINE_HOME, { recursive: true });
  mkdirSync(env.CLAUDE_CONFIG_DIR, { recursive: true });
  return env;
}

/**
 * The shell's environment: a user's PATH (where bun lives, then the system directories, never
 * node_modules/.bin) and the cut's home, nothing else, so a printed command that only works
 * inside the project fails here as it would for the model.
 */
function shellEnv(env: Record<string, string>): Record<string, string> {
  const dirs: string[] = [];
  for (const d of [dirname(process.execPath), dirname(realpathSync(process.execPath))])
    if (!dirs.includes(d)) dirs.push(d);
  for (const d of "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".split(":"))
    if (!dirs.includes(d)) dirs.push(d);
  return {
    PATH: dirs.join(":"),
    THROUGHLINE_HOME: env.THROUGHLINE_HOME!,
    HOME: env.HOME!,
    NO_COLOR: "1",
    LANG: "C.UTF-8",
  };
}

type Ran = { code: number; stdout: string; stderr: string; timedOut: boolean };

async function run(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<Ran> {
  const proc = Bun.spawn(argv, { env, cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stdout: universalNewlines(stdout), stderr: universalNewlines(stderr), timedOut };
  } finally {
    clearTimeout(timer);
  }
}

async function runCli(argv: string[], env: Record<string, string>, timeoutMs: number): Promise<Ran> {
  const r = await run(argv, env, ROOT, timeoutMs);
  if (r.timedOut) throw new Error(`timed out after ${timeoutMs / 1000}s: ${argv.slice(1, 3).join(" ")}`);
  return r;
}

/** One printed command, as the model runs it: `sh -c`, the shell environment, the cut's home as cwd. */
async function runCall(
  cmd: string,
  env: Record<string, string>,
  cwd: string,
  limit: number,
): Promise<{ info: Call; out: string; view: string }> {
  const t0 = performance.now();
  const sh = Bun.which("sh", { PATH: env.PATH! }) ?? "/bin/sh";
  const r = await run([sh, "-c", cmd], env, cwd, CALL_TIMEOUT_MS);
  const rc = r.timedOut ? 124 : r.code;
  const se = r.timedOut ? `${r.stderr}\n(timeout)` : r.stderr;
  const out = r.stdout + (strip(se) ? `\n${se}` : "");
  const { view, cut } = bashView(out, limit);
  const info: Call = {
    step: "",
    cmd,
    rc,
    stdout_chars: cpLength(r.stdout),
    stderr_chars: cpLength(se),
    out_chars: cpLength(out),
    error: rc !== 0 || Boolean(strip(se)) || r.stdout.startsWith("throughline: "),
    stderr_head: strip(se).slice(0, 300),
    view_cut: cut,
    secs: Math.round((performance.now() - t0) / 10) / 100,
  };
  return { info, out, view };
}

type Stored = { L2u?: string; L2a?: string; final?: string; L3?: [string, string][] };

/** turn number → its texts by layer, the events' text, and (started_at, turn number) sorted, from the replayed database. */
function readStoredTexts(dbPath: string): {
  st: Map<number | null, Stored>;
  ev: string;
  starts: [number, number][];
} {
  const db = new Database(dbPath, { readonly: true });
  try {
    const tn = new Map<number, [number, number]>();
    for (const [id, num, started] of db.query("SELECT id, turn_number, started_at FROM turns").values())
      tn.set(id as number, [num as number, started as number]);
    const st = new Map<number | null, Stored>();
    const at = (num: number | null): Stored => {
      const d = st.get(num) ?? {};
      st.set(num, d);
      return d;
    };
    for (const [tid, role, text, final] of db
      .query("SELECT turn_id, role, text, final_text FROM bodies")
      .values()) {
      const d = at(tn.get(tid as number)?.[0] ?? null);
      if (role === "user") d.L2u = (text as string) || "";
      else {
        d.L2a = (text as string) || "";
        d.final = (final as string | null) || "";
      }
    }
    for (const [tid, kind, inp, outp] of db
      .query("SELECT turn_id, kind, input, output FROM details")
      .values()) {
      const d = at(tid === null ? null : (tn.get(tid as number)?.[0] ?? null));
      d.L3 = d.L3 ?? [];
      d.L3.push([kind as string, `${(inp as string | null) || ""}\n${(outp as string | null) || ""}`]);
    }
    const ev = db
      .query("SELECT summary, detail FROM events")
      .values()
      .map(([a, b]) => `${(a as string) || ""}\n${(b as string) || ""}`)
      .join("\n");
    const starts = [...tn.values()]
      .map(([n, s]): [number, number] => [s, n])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return { st, ev, starts };
  } finally {
    db.close();
  }
}

/** Which turns hold the fact and in which layer; an event only when no turn does. */
function locate(fact: string, st: Map<number | null, Stored>, ev: string): Loc[] {
  const locs: Loc[] = [];
  for (const [num, d] of st) {
    if (present(fact, d.L2u ?? "") || present(fact, d.L2a ?? ""))
      locs.push([num, present(fact, d.final ?? "") || present(fact, d.L2u ?? "") ? "L2final" : "L2"]);
    else if ((d.L3 ?? []).some(([, t]) => present(fact, t))) locs.push([num, "L3"]);
  }
  if (locs.length === 0 && present(fact, ev)) locs.push([null, "event"]);
  return locs;
}

/**
 * A fresh directory named like the reference's (`conteval-` and 8 random characters): the home's
 * path shows in some outputs, so its length moves their sizes.
 */
function tempHome(): string {
  const chars = "abcdefghijklmnopqrstuvwxyz0123456789_";
  for (;;) {
    const name = Array.from({ length: 8 }, () => chars[Math.floor(Math.random() * chars.length)]).join("");
    const path = join(tmpdir(), `conteval-${name}`);
    try {
      mkdirSync(path, { mode: 0o700 });
      return path;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw e;
    }
  }
}

type Task = {
  path: string;
  name: string;
  sid: string;
  subs: string[];
  lines: Uint8Array[];
  turns: Turn[];
  cut: Cut;
  eligible: number;
  noFacts: number;
};

/** The subagent file's lines before the cut: its lines from turn k+1 on would leak the future into turn k. */
function readSubagentBefore(path: string, cutTs: unknown): Uint8Array[] {
  const keep: Uint8Array[] = [];
  for (const rl of splitLines(readFileSync(path))) {
    if (stripBytes(rl).length === 0) continue;
    const e = parseLine(rl) as { timestamp?: unknown } | undefined;
    const ts = e && typeof e === "object" ? e.timestamp : undefined;
    if (typeof ts === "string" && cutTs && ts >= (cutTs as string)) break;
    keep.push(rl);
  }
  return keep;
}

const joinLines = (lines: Uint8Array[]): Buffer =>
  Buffer.concat([...lines.flatMap((l, i) => (i ? [Buffer.from("\n"), l] : [l])), Buffer.from("\n")]);

async function evalCut(
  cli: string[],
  t: Task,
  opts: Required<Omit<ContinuationOptions, "progress" | "cli">>,
  kept: string[],
): Promise<Row> {
  const { k, facts } = t.cut;
  const home = tempHome();
  const env = homeEnv(home);
  const row: Row = {
    file: t.name,
    corpus: "shared",
    session_id: t.sid,
    k,
    turns_total: t.turns.length,
    next_prompt: t.turns[k]!.prompt.slice(0, 200),
    fact_stats: { ...t.cut.stats, eligible_cuts: t.eligible, eligible_without_facts: t.noFacts },
  };
  try {
    const cutTs = t.turns[k]!.ts || "";
    const tdir = join(home, "in");
    mkdirSync(tdir);
    const mainCopy = join(tdir, `${t.name}.jsonl`);
    writeFileSync(mainCopy, joinLines(t.lines.slice(0, t.turns[k]!.line)));
    const subCopies: string[] = [];
    let subsAfterCut = 0;
    for (const sp of t.subs) {
      const keep = readSubagentBefore(sp, cutTs);
      if (keep.length === 0) {
        subsAfterCut++;
        continue;
      }
      const dst = join(tdir, basename(sp));
      writeFileSync(dst, joinLines(keep));
      subCopies.push(dst);
    }
    row.subagent_files = subCopies.length;
    row.subagent_files_after_cut = subsAfterCut;
    const r = await runCli([...cli, "replay", mainCopy, ...subCopies, "--json"], env, REPLAY_TIMEOUT_MS);
    row.replay_rc = r.code;
    if (r.code !== 0) row.replay_stderr_head = strip(r.stderr).slice(0, 300);
    try {
      const rep = JSON.parse(r.stdout) as { sessions: { session_id?: string; turns?: number }[] };
      row.turns_replayed = rep.sessions
        .filter((s) => s.session_id === t.sid)
        .reduce((a, s) => a + (s.turns ?? 0), 0);
    } catch {
      row.turns_replayed = null;
    }
    row.turns_match = row.turns_replayed === k;
    const c = await runCli([...cli, "context", "--session", t.sid, "--json"], env, CALL_TIMEOUT_MS);
    if (c.code !== 0) {
      row.error = `context failed: ${(c.stderr || c.stdout).slice(0, 300)}`;
      return row;
    }
    const cj = JSON.parse(c.stdout) as {
      text: string;
      stats?: Record<string, unknown>;
      turns?: { turn_key: string }[];
      pull?: { l2?: string | null; l1?: string | null };
    };
    const push = cj.text;
    const stt = cj.stats ?? {};
    row.push = {
      chars: cpLength(push),
      injected_turns: stt.injected_turns,
      R: stt.remaining_turns,
      M: stt.older_turns,
    };
    const pushed = new Set<number>();
    for (const tk of cj.turns ?? []) {
      const at = tk.turn_key.lastIndexOf(":");
      if (at >= 0 && tk.turn_key.slice(0, at) === t.sid) pushed.add(Number(tk.turn_key.slice(at + 1)));
    }
    const printed = printedCommands(push);
    row.printed = {
      ...printed,
      matches_json: printed.l2 === (cj.pull?.l2 ?? null) && printed.l1 === (cj.pull?.l1 ?? null),
    };
    const words = promptWords(t.turns[k]!.prompt);
    row.search_words = words;
    const plan = [...(printed.l2 ? ["l2"] : []), ...(printed.l1 ? ["l1"] : []), "search", "detail"].slice(
      0,
      3,
    );
    const senv = shellEnv(env);
    const views = [push];
    const raws = [push];
    const calls: Call[] = [];
    const ran: string[] = [];
    let searchOut: string | null = null;
    let searchNums: number[] = [];
    let detailNums = new Set<number>();
    for (const step of plan) {
      const cmd =
        step === "l2"
          ? printed.l2
          : step === "l1"
            ? printed.l1
            : step === "search"
              ? printed.search && words.length
                ? printed.search.replaceAll("<words>", words.join(" "))
                : null
              : detailCommand(searchOut ?? "");
      if (!cmd) {
        calls.push({
          step,
          skipped:
            step === "search" ? "no search words" : step === "detail" ? "no search hit" : "not printed",
        });
        continue;
      }
      const { info, out, view } = await runCall(cmd, senv, home, opts.bashViewLimit);
      info.step = step;
      calls.push(info);
      raws.push(out);
      views.push(view);
      ran.push(step);
      if (step === "search") {
        searchOut = out;
        searchNums = searchTurns(out);
      }
      if (step === "detail") detailNums = detailTurns(out);
    }
    row.calls = calls;
    const wcmd = whatIfCommand(push);
    let whatIfView = "";
    if (wcmd) {
      const w = await runCall(wcmd, senv, home, opts.bashViewLimit);
      whatIfView = w.view;
      row.whatif_call = { ...w.info, step: "detail_newest" };
    }
    const cov = Object.fromEntries(COVERAGE_KEYS.map((x) => [x, 0])) as Record<CoverageKey, number>;
    const { st, ev, starts } = readStoredTexts(join(env.THROUGHLINE_HOME!, "throughline.db"));
    let boundary: number | null = null;
    if (pushed.size > 0) {
      const ss = starts.filter(([, n]) => pushed.has(n)).map(([s]) => s);
      if (ss.length === 0) throw new Error("pushed turns are not in the database");
      boundary = Math.min(...ss);
    }
    const before = starts.filter(([s]) => boundary === null || s < boundary).map(([, n]) => n);
    const R = Number(stt.remaining_turns) || 0;
    const l2Range = new Set(R ? before.slice(before.length - R) : []);
    const older = new Set(before.filter((n) => !l2Range.has(n)));
    const scored: ScoredFact[] = [];
    for (const f of facts) {
      const gotView = views.map((v) => present(f.fact, v));
      const gotRaw = raws.map((v) => present(f.fact, v));
      const first = gotView.indexOf(true);
      const locs = locate(f.fact, st, ev);
      const d: ScoredFact = {
        ...f,
        found_at: first < 0 ? null : first,
        stored: locs.slice(0, 6).map(([n, lay]) => `${n === null ? "None" : n}:${lay}`),
        in_newest_turn: locs.some(([n]) => n === k),
      };
      // in which outputs it was, past what Claude Code shows
      if (first < 0 && gotRaw.some(Boolean)) d.cut_from = ran.filter((_, i) => gotRaw[i + 1]);
      if (locs.length > 0) cov.stored++;
      if (gotRaw.some(Boolean)) cov.c3_raw++;
      if (gotView.some(Boolean) || present(f.fact, whatIfView)) cov.c4_detail_newest++;
      if (first >= 0) {
        if (first <= 0) cov.push++;
        if (first <= 1) cov.c1++;
        if (first <= 2) cov.c2++;
        if (first <= 3) cov.c3++;
      } else d.reason = missReason(locs, gotRaw, pushed, l2Range, older, calls, searchNums, detailNums);
      scored.push(d);
    }
    // the commands as the model ran them, with this machine's program path as <tl>
    const inv = printed.search ? printed.search.slice(0, -" search <words>".length) : null;
    if (inv)
      for (const c of [...calls, ...(row.whatif_call ? [row.whatif_call as Call] : [])]) {
        if (c.cmd) c.cmd = c.cmd.replaceAll(inv, "<tl>");
        if (c.stderr_head) c.stderr_head = c.stderr_head.replaceAll(inv, "<tl>");
      }
    const n = facts.length;
    row.facts = scored;
    row.n_facts = n;
    row.coverage = Object.fromEntries(COVERAGE_KEYS.map((x) => [x, n ? round4(cov[x] / n) : null])) as Record<
      CoverageKey,
      number | null
    >;
    row.found = cov;
    return row;
  } catch (ex) {
    // a broken cut must not stop the run
    row.error = ex instanceof Error ? `${ex.name}: ${ex.message}` : String(ex);
    return row;
  } finally {
    if (opts.keep) kept.push(home);
    else rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Run the measurement over transcript files (main sessions and their `<main>.sub-…` subagent
 * files): up to `cuts` cuts per main session, `jobs` at a time.
 */
export async function runContinuation(
  files: string[],
  options: ContinuationOptions = {},
): Promise<ContinuationResult> {
  const opts = {
    cuts: options.cuts ?? 4,
    jobs: Math.max(1, options.jobs ?? 2),
    bashViewLimit: options.bashViewLimit ?? BASH_VIEW_LIMIT,
    quick: options.quick ?? false,
    keep: options.keep ?? false,
  };
  const cli = options.cli ?? defaultCli();
  const progress = options.progress ?? (() => {});
  const t0 = performance.now();
  const subs = new Map<string, string[]>();
  for (const f of files) {
    const b = basename(f);
    if (!b.includes(".sub-")) continue;
    const key = join(dirname(f), b.split(".sub-")[0]!);
    subs.set(key, [...(subs.get(key) ?? []), f]);
  }
  const tasks: Task[] = [];
  const skipped: SkippedSession[] = [];
  let used = 0;
  for (const path of files.filter((f) => !basename(f).includes(".sub-"))) {
    if (opts.quick && used === 5) break;
    const name = basename(path).slice(0, -6);
    const { lines, turns, cwd } = parseSession(readFileSync(path));
    const { cuts, eligible, noFacts } = chooseCuts(turns, cwd, opts.cuts);
    if (cuts.length === 0) {
      skipped.push({
        file: name,
        turns: turns.length,
        eligible_cuts: eligible,
        why: turns.length < 4 ? "fewer than 4 turns" : "no cut needs a fact",
      });
      continue;
    }
    used++;
    const sid = sessionIdOf(lines, path);
    for (const cut of cuts)
      tasks.push({
        path,
        name,
        sid,
        subs: subs.get(path.slice(0, -6)) ?? [],
        lines,
        turns,
        cut,
        eligible,
        noFacts,
      });
  }
  progress(
    `${used + skipped.length} sessions read, ${used} with cuts, ${tasks.length} cuts (${skipped.length} without a usable cut); parsed in ${((performance.now() - t0) / 1000).toFixed(1)}s`,
  );
  const rows: Row[] = new Array(tasks.length);
  const kept: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.jobs }, async () => {
      while (next < tasks.length) {
        const i = next++;
        const t1 = performance.now();
        const r = await evalCut(cli, tasks[i]!, opts, kept);
        rows[i] = r;
        progress(
          `[${i + 1}/${tasks.length}] ${r.file} k=${r.k} facts=${r.n_facts} push=${r.coverage?.push} c3=${r.coverage?.c3} ${((performance.now() - t1) / 1000).toFixed(1)}s${r.error ? `  ERROR ${r.error}` : ""}`,
        );
      }
    }),
  );
  const summary = aggregateSummary(rows, {
    sessionsRead: used + skipped.length,
    sessionsSkipped: skipped.length,
    seconds: (performance.now() - t0) / 1000,
    bashViewLimit: opts.bashViewLimit,
  });
  return { summary, rows, skipped, kept };
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const flag = (name: string) => argv.includes(name);
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  if (!existsSync(CORPUS_TRANSCRIPTS)) {
    console.log(`continuation recall: skipped, no corpus at ${CORPUS_TRANSCRIPTS}`);
  } else {
    let files = corpusFiles(CORPUS_TRANSCRIPTS);
    const fi = argv.indexOf("--files");
    if (fi >= 0) {
      const want = new Set<string>();
      for (const w of argv.slice(fi + 1)) {
        if (w.startsWith("--")) break;
        want.add(basename(w).replace(/\.jsonl$/, ""));
      }
      files = files.filter(
        (f) => want.has(basename(f).slice(0, -6)) || want.has(basename(f).split(".sub-")[0]!),
      );
    }
    const out = value("--out") ?? join(tmpdir(), "continuation.json");
    const res = await runContinuation(files, {
      cuts: Number(value("--cuts") ?? 4),
      jobs: Number(value("--jobs") ?? 2),
      bashViewLimit: Number(value("--bash-view-limit") ?? BASH_VIEW_LIMIT),
      quick: flag("--quick"),
      keep: flag("--keep"),
      ...(flag("--binary") ? { cli: [join(ROOT, "dist", "throughline")] } : {}),
      progress: (l) => console.error(l),
    });
    console.log(renderSummary(res.summary));
    writeFileSync(
      out,
      JSON.stringify(
        {
          schema: "continuation_eval.v1",
          summary: res.summary,
          skipped_sessions: res.skipped,
          rows: res.rows,
        },
        null,
        1,
      ),
    );
    console.error(`wrote ${out}`);
    if (res.kept.length > 0) console.error(`kept: ${res.kept.join(" ")}`);
  }
}
