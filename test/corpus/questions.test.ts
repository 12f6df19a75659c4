/**
 * The question benchmark over the real recorded sessions (harness/questions.ts): questions
 * written by hand from the corpus, in four styles, each searched in its answering session's
 * project and across everything; the rank of the answering turn among the top 5 is tallied by
 * style and by split (dev for tuning, holdout for reporting). `BENCH_ONLY=questions bun run bench`
 * prints the same tables.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { CORPUS_TRANSCRIPTS, tempDb } from "../../harness/db.ts";
import {
  type Answer,
  evaluateQuestions,
  evaluateScopes,
  evaluateWithRetry,
  loadQuestions,
  MAX_ANSWER_TURNS,
  PARAPHRASES_FIXTURE,
  QUESTION_STYLES,
  type Question,
  type QuestionResult,
  type QuestionStyle,
  renderQuestions,
  renderRetries,
  resolveAnswers,
  type ScopeName,
  scopeFor,
  tally,
  typoQuestions,
} from "../../harness/questions.ts";
import { replay } from "../../src/capture/replay.ts";

const present = existsSync(CORPUS_TRANSCRIPTS);

const MIN_QUESTIONS = 120;
const MIN_PER_STYLE = 30;
const MIN_SESSIONS = 10;
/** No session may hold more than this share of the questions. */
const MAX_SESSION_SHARE = 0.15;

// Recall over all questions (dev and holdout), per scope: a little below what was measured
// (docs/search.md, "Measured": project 78.5% @1, 93.1% @5 since the first page is in order of where
// the words meet; every project 72.2% / 87.5%), so that one question more or less does not fail the suite.
const FLOOR: Record<ScopeName, { at1: number; at5: number }> = {
  project: { at1: 0.75, at5: 0.9 },
  all: { at1: 0.69, at5: 0.85 },
};
/** Recall@5 per style, all questions, project scope (measured 97.1 / 85.0 / 100 / 90.6%). */
const STYLE_FLOOR_AT_5: Record<QuestionStyle, number> = {
  natural: 0.94,
  paraphrase: 0.82,
  name: 0.97,
  quoted: 0.87,
};
/**
 * The typo questions (harness/questions.ts typoQuestions) found within two searches, the first and
 * the "also try" one it prints: measured 98.6% (project) and 95.7% (every project, where the first
 * search finds 84.1%), docs/search.md "Nearest words".
 */
const TYPO_FLOOR: Record<ScopeName, number> = { project: 0.95, all: 0.92 };
/** Where the first search falls below the floor, what the also-try search must add (measured +11.6 points). */
const TYPO_GAIN = 0.06;
/** Every question finds something: "no match" only when no word of it matches anything. */
const MAX_EMPTY = 0;
/**
 * The second paraphrase set, project scope, dev and holdout together: a little below what was
 * measured (docs/search.md, "Questions": 51.1% @1, 88.6% @5 of 88).
 */
const PARAPHRASE_SET_FLOOR = { at1: 0.48, at5: 0.85 };

describe.skipIf(!present)("question benchmark over the corpus", () => {
  let env: ReturnType<typeof tempDb>;
  let questions: Question[];
  let answers: Map<string, Answer>;
  const results = {} as Record<ScopeName, QuestionResult[]>;
  beforeAll(() => {
    env = tempDb();
    replay(env.db, [CORPUS_TRANSCRIPTS]);
    questions = loadQuestions();
  }, 60_000);
  afterAll(() => env[Symbol.dispose]());

  test("the fixture: enough questions, of every style, from enough sessions, in both splits", () => {
    expect(questions.length).toBeGreaterThanOrEqual(MIN_QUESTIONS);
    const perStyle = Object.fromEntries(
      QUESTION_STYLES.map((s) => [s, questions.filter((q) => q.style === s).length]),
    );
    expect(QUESTION_STYLES.filter((s) => perStyle[s]! < MIN_PER_STYLE)).toEqual([]);
    const perSession = new Map<string, number>();
    const splitOf = new Map<string, Set<string>>();
    for (const q of questions) {
      perSession.set(q.session, (perSession.get(q.session) ?? 0) + 1);
      splitOf.set(q.session, (splitOf.get(q.session) ?? new Set()).add(q.split));
    }
    expect(perSession.size).toBeGreaterThanOrEqual(MIN_SESSIONS);
    expect([...perSession].filter(([, n]) => n > MAX_SESSION_SHARE * questions.length)).toEqual([]);
    // a session is all dev or all holdout, and both splits are used
    expect([...splitOf].filter(([, s]) => s.size > 1).map(([session]) => session)).toEqual([]);
    expect(new Set(questions.map((q) => q.split)).size).toBe(2);
  });

  test(`each question's evidence is in 1 to ${MAX_ANSWER_TURNS} turns of the replayed corpus`, () => {
    answers = resolveAnswers(env.db, questions); // throws with every violation listed
    expect(answers.size).toBe(questions.length);
  }, 60_000);

  test("recall by style and split, in the answering project and across everything", () => {
    answers ??= resolveAnswers(env.db, questions);
    Object.assign(results, evaluateScopes(env.db, questions, answers));
    console.log(renderQuestions(questions, answers, results));
    const dev = results.project.filter((r) => r.question.split === "dev" && r.rank === null);
    if (dev.length > 0)
      console.log(
        `dev questions not in the top 5 (project scope, ${dev.length}):\n  ${dev
          .map((r) => `${r.question.id} [${r.question.style}] ${r.question.args.join(" ")}`)
          .join("\n  ")}`,
      );
    const below: string[] = [];
    for (const scope of ["project", "all"] as const) {
      const t = tally(results[scope]);
      if (t.at1 / t.n < FLOOR[scope].at1) below.push(`${scope} @1 ${t.at1}/${t.n}`);
      if (t.at5 / t.n < FLOOR[scope].at5) below.push(`${scope} @5 ${t.at5}/${t.n}`);
    }
    for (const style of QUESTION_STYLES) {
      const t = tally(results.project, (q) => q.style === style);
      if (t.at5 / t.n < STYLE_FLOOR_AT_5[style]) below.push(`project ${style} @5 ${t.at5}/${t.n}`);
    }
    expect(below).toEqual([]);
  }, 300_000);

  test("typos: the also-try command a search prints finds what the typo missed", () => {
    answers ??= resolveAnswers(env.db, questions);
    const typos = typoQuestions(questions);
    const typoAnswers = new Map(typos.map((q) => [q.id, answers.get(q.id.replace(/-typo$/, ""))!]));
    const below: string[] = [];
    for (const scope of ["project", "all"] as const) {
      const r = evaluateWithRetry(env.db, typos, scopeFor(scope), typoAnswers);
      console.log(renderRetries(scope, r));
      const first = r.filter((x) => x.first !== null).length / r.length;
      const after = r.filter((x) => x.rank !== null).length / r.length;
      if (after < TYPO_FLOOR[scope]) below.push(`${scope}: ${after.toFixed(3)} after the also-try`);
      // the command is what recovers them: with fewer found first, it must add
      if (first < TYPO_FLOOR[scope] && after - first < TYPO_GAIN)
        below.push(`${scope}: +${(after - first).toFixed(3)} only`);
    }
    expect(typos.length).toBeGreaterThanOrEqual(60);
    expect(below).toEqual([]);
  }, 300_000);

  test("the second paraphrase set: paraphrases only, splits kept apart, recall in the project", () => {
    const set = loadQuestions(PARAPHRASES_FIXTURE);
    expect(set.length).toBeGreaterThanOrEqual(80);
    expect(set.filter((q) => q.style !== "paraphrase").map((q) => q.id)).toEqual([]);
    expect(set.filter((q) => questions.some((p) => p.id === q.id)).map((q) => q.id)).toEqual([]);
    // A session is dev or holdout in both sets, and no answer lies in a session of the other split:
    // tuning on dev must not reach a holdout answer through a session both hold.
    const splitOf = new Map(questions.map((q) => [q.session, q.split]));
    for (const q of set) if (!splitOf.has(q.session)) splitOf.set(q.session, q.split);
    expect(set.filter((q) => splitOf.get(q.session) !== q.split).map((q) => q.id)).toEqual([]);
    const setAnswers = resolveAnswers(env.db, set);
    const nameOf = new Map(
      env.db
        .query<{ id: string; path: string }, []>(
          "SELECT id, transcript_path AS path FROM sessions WHERE transcript_path IS NOT NULL",
        )
        .all()
        .map((r) => [r.id, r.path.replace(/^.*[\\/]/, "").replace(/\.jsonl$/, "")]),
    );
    const crossing = set.filter((q) =>
      [...setAnswers.get(q.id)!.turns].some((t) => {
        const other = splitOf.get(nameOf.get(t.slice(0, t.lastIndexOf(":"))) ?? "");
        return other !== undefined && other !== q.split;
      }),
    );
    expect(crossing.map((q) => q.id)).toEqual([]);
    const byScope = evaluateScopes(env.db, set, setAnswers);
    console.log(renderQuestions(set, setAnswers, byScope, "second paraphrase set"));
    const t = tally(byScope.project);
    expect(t.at1 / t.n).toBeGreaterThanOrEqual(PARAPHRASE_SET_FLOOR.at1);
    expect(t.at5 / t.n).toBeGreaterThanOrEqual(PARAPHRASE_SET_FLOOR.at5);
    expect(tally(byScope.project).empty + tally(byScope.all).empty).toBeLessThanOrEqual(MAX_EMPTY);
  }, 300_000);

  test("no question without results", () => {
    answers ??= resolveAnswers(env.db, questions);
    for (const scope of ["project", "all"] as const) {
      results[scope] ??= evaluateQuestions(env.db, questions, scopeFor(scope), answers);
      const empty = results[scope].filter((r) => r.empty).map((r) => r.question.id);
      if (empty.length > 0) console.log(`no results, ${scope} scope (${empty.length}): ${empty.join(" ")}`);
      expect(empty.length).toBeLessThanOrEqual(MAX_EMPTY);
    }
  }, 300_000);
});
