/**
 * The question benchmark (test/fixtures/questions/corpus.json): questions an engineer or a
 * coding model asks after losing its context, written by hand from the shared corpus's sessions,
 * each with the exact strings (evidence) the turn answering it holds. The fixture was written
 * without looking at the ranking; it is not generated from templates.
 *
 * - `style`: `natural` (plain words, one argument each), `paraphrase` (other words than the
 *   memory holds: the evidence's key term is not in the question), `name` (an identifier, file,
 *   flag or constant among plain words), `quoted` (the whole question as one argument).
 * - `split`: whole sessions are `dev` or `holdout`; tune on dev, report holdout.
 * - A turn answers a question when its L2 bodies, its L3 details (input, output, tool name) or
 *   its events hold one of the evidence strings (case-insensitive). Each evidence string must be
 *   in 1 to 3 turns of the replayed corpus, and so must their union (`resolveAnswers` throws).
 *
 * `evaluateQuestions` asks `searchTurns` (the ranked results `search` prints) each question with
 * a scope and records the rank of the first answering turn among the top 5.
 */
import type { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { withNearest } from "../src/core/did-you-mean.ts";
import { isStopWord } from "../src/core/query.ts";
import { SEARCH_KINDS } from "../src/core/search.ts";
import type { Scope } from "../src/db/project.ts";
import { searchTurns } from "../src/read/search-turns.ts";
import { FIXTURES } from "./db.ts";

export const QUESTION_STYLES = ["natural", "paraphrase", "name", "quoted"] as const;
export type QuestionStyle = (typeof QUESTION_STYLES)[number];
export const SPLITS = ["dev", "holdout"] as const;
export type Split = (typeof SPLITS)[number];

export interface Question {
  id: string;
  style: QuestionStyle;
  /** Exactly the argv after `throughline search`. */
  args: string[];
  /** 1 to 3 strings (case-insensitive) the answering turn holds. */
  evidence: string[];
  /** The transcript file the question was written from, without `.jsonl`. */
  session: string;
  split: Split;
  /** What the answer is, for a human reading a miss. */
  note: string;
}

export const QUESTIONS_FIXTURE = join(FIXTURES, "questions", "corpus.json");
/**
 * A second, larger set of paraphrases only (docs/search.md, "Questions"), written blind after the
 * first set's figures were known: by writers who saw no ranking, from the same split of sessions
 * (and, for the holdout, sessions the first set left out), to measure the weakest style on more
 * than the first set's 40. Same rules and format.
 */
export const PARAPHRASES_FIXTURE = join(FIXTURES, "questions", "paraphrases.json");
/** How many turns an evidence string (and the union of a question's) may be found in. */
export const MAX_ANSWER_TURNS = 3;
/** How many results each question's search asks for. */
export const RESULTS = 5;

/** The fixture, its shape checked: a malformed entry throws, naming it. */
export function loadQuestions(path = QUESTIONS_FIXTURE): Question[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as unknown;
  if (!Array.isArray(raw)) throw new Error(`${path}: not a JSON array`);
  const seen = new Set<string>();
  return raw.map((e: unknown, i) => {
    const q = e as Partial<Question>;
    const where = `${path} entry ${i} (${String(q?.id)})`;
    const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string" && s !== "");
    if (typeof q?.id !== "string" || seen.has(q.id)) throw new Error(`${where}: missing or repeated id`);
    seen.add(q.id);
    if (!QUESTION_STYLES.includes(q.style as QuestionStyle)) throw new Error(`${where}: bad style`);
    if (!SPLITS.includes(q.split as Split)) throw new Error(`${where}: bad split`);
    if (!strings(q.args) || q.args!.length === 0) throw new Error(`${where}: args must be non-empty strings`);
    if (q.style === "quoted" ? q.args!.length !== 1 : q.args!.some((a) => /\s/.test(a)))
      throw new Error(`${where}: a quoted question is one argument, any other one word per argument`);
    if (!strings(q.evidence) || q.evidence!.length < 1 || q.evidence!.length > 3)
      throw new Error(`${where}: 1 to 3 evidence strings`);
    if (typeof q.session !== "string" || typeof q.note !== "string")
      throw new Error(`${where}: session, note`);
    return q as Question;
  });
}

/** Where a question's answer lives in the replayed corpus. */
export interface Answer {
  /** `origin_session_id:turn_number` of every turn holding an evidence string. */
  turns: Set<string>;
  /** `sessions.project` of the answering turn's session (one from the question's own session). */
  project: string;
  /** True when only tool calls' inputs and outputs (and the events drawn from them) hold it. */
  toolOnly: boolean;
}

interface Hit {
  turn: string;
  origin: string;
  /** `body`, `event`, or the details row's kind (`tool_input`, `tool_output`, `thinking`…). */
  source: string;
}

function evidenceHits(db: Database, evidence: string): Hit[] {
  return db
    .query<Hit, { $e: string }>(
      `SELECT t.origin_session_id || ':' || t.turn_number AS turn, t.origin_session_id AS origin, 'body' AS source
         FROM bodies b JOIN turns t ON t.id = b.turn_id
        WHERE instr(lower(b.text), $e) > 0
       UNION
       SELECT t.origin_session_id || ':' || t.turn_number, t.origin_session_id, d.kind
         FROM details d JOIN turns t ON t.id = d.turn_id
        WHERE instr(lower(coalesce(d.input, '')), $e) > 0 OR instr(lower(coalesce(d.output, '')), $e) > 0
           OR instr(lower(coalesce(d.tool_name, '')), $e) > 0
       UNION
       SELECT t.origin_session_id || ':' || t.turn_number, t.origin_session_id, 'event'
         FROM events e JOIN turns t ON t.origin_session_id = e.origin_session_id AND t.turn_number = e.turn_number
        WHERE instr(lower(e.summary), $e) > 0 OR instr(lower(e.detail), $e) > 0`,
    )
    .all({ $e: evidence.toLowerCase() });
}

const TOOL_SOURCES = new Set(["tool_input", "tool_output", "event"]);

/**
 * Each question's answering turns. Throws, listing every violation, when an evidence string is in
 * no turn or in more than MAX_ANSWER_TURNS, when the union is, or when none of the turns belongs
 * to the session the question names.
 */
export function resolveAnswers(db: Database, questions: readonly Question[]): Map<string, Answer> {
  const sessionOf = new Map<string, string>();
  for (const s of db
    .query<{ id: string; path: string }, []>(
      "SELECT id, transcript_path AS path FROM sessions WHERE transcript_path IS NOT NULL",
    )
    .all())
    sessionOf.set(basename(s.path).replace(/\.jsonl$/, ""), s.id);
  const projectOf = db.query<{ project: string | null }, { $id: string }>(
    "SELECT project FROM sessions WHERE id = $id",
  );
  const problems: string[] = [];
  const answers = new Map<string, Answer>();
  for (const q of questions) {
    const hits: Hit[] = [];
    for (const e of q.evidence) {
      const found = evidenceHits(db, e);
      const n = new Set(found.map((h) => h.turn)).size;
      if (n === 0 || n > MAX_ANSWER_TURNS) problems.push(`${q.id}: "${e}" is in ${n} turns`);
      hits.push(...found);
    }
    const turns = new Set(hits.map((h) => h.turn));
    if (turns.size > MAX_ANSWER_TURNS) problems.push(`${q.id}: its evidence is in ${turns.size} turns`);
    const own = sessionOf.get(q.session);
    const home = hits.find((h) => h.origin === own) ?? hits[0];
    if (own === undefined || !hits.some((h) => h.origin === own))
      problems.push(`${q.id}: no answering turn in its session ${q.session}`);
    const project = home ? projectOf.get({ $id: home.origin })?.project : null;
    if (home && !project) problems.push(`${q.id}: the answering session has no project`);
    if (turns.size > 0 && project)
      answers.set(q.id, { turns, project, toolOnly: hits.every((h) => TOOL_SOURCES.has(h.source)) });
  }
  if (problems.length > 0) throw new Error(`question evidence:\n  ${problems.join("\n  ")}`);
  return answers;
}

export type ScopeName = "project" | "all";

/** The scope a question is asked in: its answering session's project, or everything. */
export function scopeFor(name: ScopeName): (q: Question, a: Answer) => Scope {
  return name === "project" ? (_q, a) => ({ kind: "project", project: a.project }) : () => ({ kind: "all" });
}

export interface QuestionResult {
  question: Question;
  /** 1-based rank of the first answering turn among the results; null when none of the top 5. */
  rank: number | null;
  /** The search returned nothing at all. */
  empty: boolean;
}

/** Each question searched as `search` would search it, in the scope `scope` gives it. */
export function evaluateQuestions(
  db: Database,
  questions: readonly Question[],
  scope: (q: Question, a: Answer) => Scope,
  answers: Map<string, Answer> = resolveAnswers(db, questions),
): QuestionResult[] {
  return questions.map((q) => {
    const answer = answers.get(q.id)!;
    const found = ask(db, scope(q, answer), q.args, answer);
    return { question: q, rank: found.rank, empty: found.empty };
  });
}

/** Each question in its answering project and across everything (the two tables a report prints). */
export function evaluateScopes(
  db: Database,
  questions: readonly Question[],
  answers: Map<string, Answer>,
): Record<ScopeName, QuestionResult[]> {
  return {
    project: evaluateQuestions(db, questions, scopeFor("project"), answers),
    all: evaluateQuestions(db, questions, scopeFor("all"), answers),
  };
}

/** One search as `search` runs it: the answer's rank in the top RESULTS, and the also-try query. */
function ask(
  db: Database,
  scope: Scope,
  args: readonly string[],
  answer: Answer,
): { rank: number | null; empty: boolean; retry: string[] | null } {
  const res = searchTurns(db, scope, args, SEARCH_KINDS, RESULTS);
  const at = res.results.findIndex(
    (r) => r.hit.turnNumber !== null && answer.turns.has(`${r.hit.origin}:${r.hit.turnNumber}`),
  );
  return {
    rank: at === -1 ? null : at + 1,
    empty: res.results.length === 0,
    retry: withNearest(args, res.unheld),
  };
}

/** A question asked once, and again as its "also try" line says when the first search missed. */
export interface RetryResult {
  question: Question;
  /** The answer's rank in the first search's top RESULTS. */
  first: number | null;
  /** The search offered an "also try" query (a word no row holds had a near word). */
  offered: boolean;
  /** The rank after at most two searches: the first, else the "also try" one. */
  rank: number | null;
}

/** Each question asked as a model following the output would: the also-try query when the first missed. */
export function evaluateWithRetry(
  db: Database,
  questions: readonly Question[],
  scope: (q: Question, a: Answer) => Scope,
  answers: Map<string, Answer>,
): RetryResult[] {
  return questions.map((q) => {
    const answer = answers.get(q.id)!;
    const first = ask(db, scope(q, answer), q.args, answer);
    const again =
      first.rank === null && first.retry ? ask(db, scope(q, answer), first.retry, answer).rank : null;
    return { question: q, first: first.rank, offered: first.retry !== null, rank: first.rank ?? again };
  });
}

/**
 * The questions again with one typo each (docs/search.md, "Nearest words"): in a name question its
 * longest name, in a natural one its longest word of 7 letters or more, loses the letter 60% into
 * it (never the first or last). Questions without such a word are left out. Derived, not written:
 * the rule is fixed, so no typo is picked for what it finds.
 */
export function typoQuestions(questions: readonly Question[]): Question[] {
  const out: Question[] = [];
  for (const q of questions) {
    if (q.style !== "name" && q.style !== "natural") continue;
    const name = (w: string) => /[a-z0-9][A-Z]|[_./-]|\d/.test(w);
    const pick = q.args
      .map((w, i) => ({ w, i }))
      .filter(({ w }) =>
        q.style === "name" ? name(w) && w.length >= 6 : /^[a-z]{7,}$/.test(w) && !isStopWord(w),
      )
      .sort((a, b) => b.w.length - a.w.length || a.i - b.i)[0];
    if (!pick) continue;
    const cut = Math.min(pick.w.length - 2, Math.max(1, Math.floor(pick.w.length * 0.6)));
    const args = [...q.args];
    args[pick.i] = pick.w.slice(0, cut) + pick.w.slice(cut + 1);
    out.push({ ...q, id: `${q.id}-typo`, args });
  }
  return out;
}

/** Recall of the typo questions by style (name, natural): @5 of the first search and after the also-try. */
export function renderRetries(name: ScopeName, results: readonly RetryResult[]): string {
  const lines = [`typos, ${name} scope (one letter dropped from a name or a long word)`];
  for (const style of ["name", "natural", "all"] as const) {
    const rs = results.filter((r) => style === "all" || r.question.style === style);
    const first = rs.filter((r) => r.first !== null).length;
    const after = rs.filter((r) => r.rank !== null).length;
    const offered = rs.filter((r) => r.offered).length;
    lines.push(
      `  ${style.padEnd(10)} n ${String(rs.length).padStart(3)}   @5 ${pct(first, rs.length).padStart(6)}   after "also try" ${pct(after, rs.length).padStart(6)}   offered ${offered}`,
    );
  }
  return lines.join("\n");
}

export interface Tally {
  n: number;
  at1: number;
  at5: number;
  empty: number;
}

/** Counts for the questions `keep` selects. */
export function tally(
  results: readonly QuestionResult[],
  keep: (q: Question) => boolean = () => true,
): Tally {
  const t: Tally = { n: 0, at1: 0, at5: 0, empty: 0 };
  for (const r of results) {
    if (!keep(r.question)) continue;
    t.n++;
    if (r.rank === 1) t.at1++;
    if (r.rank !== null) t.at5++;
    if (r.empty) t.empty++;
  }
  return t;
}

const pct = (a: number, n: number) => (n === 0 ? "-" : `${((100 * a) / n).toFixed(1)}%`);

/** One scope's table: a row per style and one for all, recall@1 / @5 and n for dev, holdout, all. */
export function renderScope(name: ScopeName, results: readonly QuestionResult[]): string {
  const groups: { label: string; keep: (q: Question) => boolean }[] = [
    { label: "dev", keep: (q) => q.split === "dev" },
    { label: "holdout", keep: (q) => q.split === "holdout" },
    { label: "all", keep: () => true },
  ];
  const cols = (a: string, b: string, c: string) => `${a.padStart(4)} ${b.padStart(7)} ${c.padStart(7)}`;
  const cell = (t: Tally) => cols(String(t.n), pct(t.at1, t.n), pct(t.at5, t.n));
  const lines = [
    `${`questions, ${name} scope`.padEnd(26)}${groups.map((g) => g.label.padEnd(20)).join("  ")}`,
    `${"".padEnd(26)}${groups.map(() => cols("n", "@1", "@5")).join("  ")}`,
  ];
  for (const style of [...QUESTION_STYLES, "all"] as const) {
    const cells = groups.map((g) =>
      cell(tally(results, (q) => g.keep(q) && (style === "all" || q.style === style))),
    );
    lines.push(`  ${style.padEnd(24)}${cells.join("  ")}`);
  }
  const empty = groups.map((g) => `${g.label} ${tally(results, g.keep).empty}`).join(", ");
  lines.push(`  no results: ${empty}`);
  return lines.join("\n");
}

/** The whole report: what the fixture holds, then one table per scope. */
export function renderQuestions(
  questions: readonly Question[],
  answers: Map<string, Answer>,
  byScope: Record<ScopeName, readonly QuestionResult[]>,
  title = "question benchmark",
): string {
  const sessions = new Set(questions.map((q) => q.session)).size;
  const tool = questions.filter((q) => answers.get(q.id)?.toolOnly).length;
  return [
    `${title}: ${questions.length} questions from ${sessions} sessions; evidence only in tool input/output: ${tool} (${pct(tool, questions.length)})`,
    renderScope("project", byScope.project),
    renderScope("all", byScope.all),
  ].join("\n");
}
