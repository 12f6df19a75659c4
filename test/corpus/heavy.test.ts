/**
 * The heavy user's year at its small size (bench/heavy.ts; docs/benchmarks.md, "A heavy user's
 * year"): a tree derived from ../shared/corpus, imported with the real `throughline import`.
 * Structure only, never times. Skipped when the corpus is absent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CORPUS,
  type Generated,
  generate,
  type ImportFigures,
  importTree,
  loadCorpus,
  SCALES,
  searchWords,
} from "../../bench/heavy.ts";

const present = existsSync(CORPUS);
if (!present) console.warn(`heavy.test: skipped, no corpus at ${CORPUS}`);

const ROOT = join(import.meta.dir, "..", "..");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.skipIf(!present)("a heavy user's year, small", () => {
  let work = "";
  let gen: Generated;
  let imp: ImportFigures;
  let env: Record<string, string>;
  const corpus = present ? loadCorpus() : [];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "throughline-heavy-"));
    env = {
      THROUGHLINE_HOME: join(work, "home"),
      CLAUDE_CONFIG_DIR: join(work, "claude"),
      THROUGHLINE_SUMMARIZER: "extractive",
      THROUGHLINE_DETACH: "0",
    };
    gen = generate(env.CLAUDE_CONFIG_DIR!, SCALES.small, { corpus });
    imp = importTree(
      ["bun", join(ROOT, "src", "cli.ts")],
      env,
      gen,
      join(env.THROUGHLINE_HOME!, "throughline.db"),
    );
  }, 120_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the tree reaches the small targets, over a year and 20+ projects", () => {
    expect(gen.sessions.length).toBeGreaterThanOrEqual(SCALES.small.sessions);
    expect(gen.bytes).toBeGreaterThanOrEqual(SCALES.small.bytes);
    expect(gen.turns).toBeGreaterThanOrEqual(SCALES.small.turns);
    expect(gen.projects).toBeGreaterThanOrEqual(20);
    expect(gen.last - gen.first).toBeGreaterThan(300 * 86_400_000);
    const months = new Set(gen.sessions.map((s) => new Date(s.start).toISOString().slice(0, 7)));
    expect(months.size).toBeGreaterThanOrEqual(12);
    // Copies keep their subagent files, under <sessionId>/subagents/.
    expect(gen.sessions.some((s) => s.subagents > 0)).toBe(true);
    for (const s of gen.sessions.filter((x) => x.subagents > 0)) {
      const folder = join(gen.root, s.project.replace(/[^A-Za-z0-9]/g, "-"));
      expect(readdirSync(join(folder, s.id, "subagents")).length).toBe(s.subagents);
    }
  });

  test("every id is new: sessions distinct and none a corpus id, no uuid in two sessions", () => {
    const ids = gen.sessions.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID);
    const old = new Set(corpus.map((s) => s.sessionId));
    expect(ids.filter((id) => old.has(id))).toEqual([]);
    const owner = new Map<string, string>();
    const shared: string[] = [];
    for (const s of gen.sessions) {
      const path = join(gen.root, s.project.replace(/[^A-Za-z0-9]/g, "-"), `${s.id}.jsonl`);
      for (const line of readFileSync(path, "utf8").split("\n")) {
        if (!line) continue;
        let e: { uuid?: unknown; sessionId?: unknown; cwd?: unknown };
        try {
          e = JSON.parse(line);
        } catch {
          continue; // the corpus's torn last line, copied as it is
        }
        if (e.sessionId !== undefined) expect(e.sessionId).toBe(s.id);
        if (typeof e.cwd === "string") expect(e.cwd.startsWith(s.project)).toBe(true);
        if (typeof e.uuid !== "string") continue;
        const was = owner.get(e.uuid);
        if (was !== undefined && was !== s.id) shared.push(e.uuid);
        owner.set(e.uuid, s.id);
      }
    }
    expect(shared).toEqual([]);
  });

  test("the same seed makes the same tree", () => {
    const again = generate(join(work, "again"), SCALES.small, { corpus });
    expect(again.sessions).toEqual(gen.sessions);
    expect(again.bytes).toBe(gen.bytes);
  });

  test("import takes every generated session, none merged as a fork", () => {
    expect(imp.missing).toEqual([]);
    expect(imp.sessions).toBe(gen.sessions.length);
    expect(imp.transcript_bytes).toBe(gen.bytes);
    expect(imp.turns).toBeGreaterThanOrEqual(SCALES.small.turns);
  });

  test("search finds a word of a generated turn in its session", () => {
    const s = gen.sessions.find((x) => x.kind === "mix" && searchWords(x.middlePrompt, 1).length > 0)!;
    const [word] = searchWords(s.middlePrompt, 1);
    const r = Bun.spawnSync(
      ["bun", join(ROOT, "src", "cli.ts"), "search", word!, "--session", s.id, "--json"],
      {
        env: { ...process.env, ...env },
        cwd: ROOT,
      },
    );
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout.toString()) as { results: { turn_key: string | null }[] };
    expect(out.results.length).toBeGreaterThan(0);
    for (const x of out.results) expect(x.turn_key?.startsWith(`${s.id}:`)).toBe(true);
  });

  // Issue 24's goal is ≤ 0.5, missed today (0.52-0.53 here and at the full size since schema 11,
  // 0.41 on the corpus itself: a year of ~10 KB turns pays each turn's fixed rows and indexes more
  // often; docs/benchmarks.md "What a row costs"). The test holds the line near where it is, with
  // room for the index passes a loaded machine makes while it waits for plans (more, smaller
  // segments), so storage cannot grow unseen: tighten it to 0.5 when the goal is met.
  test("database bytes per transcript byte stay at most 0.55 (goal 0.5: docs/benchmarks.md)", () => {
    expect(imp.db_bytes).toBeGreaterThan(0);
    expect(imp.db_bytes_per_transcript_byte).toBeLessThanOrEqual(0.55);
  });
});
