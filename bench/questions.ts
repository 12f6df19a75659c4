/**
 * The question benchmark (harness/questions.ts, test/fixtures/questions/corpus.json): the
 * shared corpus replayed into a fresh database, each hand-written question searched in its
 * answering session's project and across everything, recall@1 and @5 by style for dev, holdout
 * and all. The table goes to stdout (bench/run.ts), the tallies to .bench/questions.json.
 *
 *   BENCH_ONLY=questions bun run bench
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  evaluateScopes,
  evaluateWithRetry,
  loadQuestions,
  PARAPHRASES_FIXTURE,
  QUESTION_STYLES,
  renderQuestions,
  renderRetries,
  resolveAnswers,
  SPLITS,
  scopeFor,
  tally,
  typoQuestions,
} from "../harness/questions.ts";
import { replay } from "../src/capture/replay.ts";
import { openForWrite } from "../src/db/open.ts";
import { ROOT, WORK } from "./lib.ts";

const CORPUS_TRANSCRIPTS = join(ROOT, "..", "shared", "corpus", "transcripts");

/** The rendered tables, or why the section was skipped. */
export async function benchQuestions(): Promise<string> {
  if (!existsSync(CORPUS_TRANSCRIPTS)) return `questions: skipped, no corpus at ${CORPUS_TRANSCRIPTS}`;
  console.error("question benchmark…");
  const dir = mkdtempSync(join(tmpdir(), "tl-bench-questions-"));
  const db = openForWrite(join(dir, "throughline.db"));
  try {
    replay(db, [CORPUS_TRANSCRIPTS]);
    const questions = loadQuestions();
    const answers = resolveAnswers(db, questions);
    const results = evaluateScopes(db, questions, answers);
    const tallies = Object.fromEntries(
      (["project", "all"] as const).map((scope) => [
        scope,
        Object.fromEntries(
          [...SPLITS, "all"].map((split) => [
            split,
            Object.fromEntries(
              [...QUESTION_STYLES, "all"].map((style) => [
                style,
                tally(
                  results[scope],
                  (q) => (split === "all" || q.split === split) && (style === "all" || q.style === style),
                ),
              ]),
            ),
          ]),
        ),
      ]),
    );
    mkdirSync(WORK, { recursive: true });
    await Bun.write(
      join(WORK, "questions.json"),
      JSON.stringify({ tallies, at: new Date().toISOString() }, null, 1),
    );
    const typos = typoQuestions(questions);
    const typoAnswers = new Map(typos.map((q) => [q.id, answers.get(q.id.replace(/-typo$/, ""))!]));
    // The second paraphrase set, on its own: mixed into the first it would change the styles' mix.
    const paraphrases = loadQuestions(PARAPHRASES_FIXTURE);
    const paraphraseAnswers = resolveAnswers(db, paraphrases);
    const paraphraseResults = evaluateScopes(db, paraphrases, paraphraseAnswers);
    return [
      renderQuestions(questions, answers, results),
      ...(["project", "all"] as const).map((scope) =>
        renderRetries(scope, evaluateWithRetry(db, typos, scopeFor(scope), typoAnswers)),
      ),
      renderQuestions(paraphrases, paraphraseAnswers, paraphraseResults, "second paraphrase set"),
    ].join("\n");
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
