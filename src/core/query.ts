/**
 * What a search query means (docs/search.md, "Query rules"): the words a person or a model
 * typed, quoted or not, become terms, each matched by its forms. Pure.
 *
 * - A sentence is words: `"why did the users migration fail"` (one argument, as a model passes
 *   a question to a shell) and the same words unquoted are the same query. Question and stop
 *   words drop out; a quoted span of two or three words is also a phrase.
 * - A word matches its forms: a stem cut from its end (`migrations` → `migrat`, which holds
 *   migrate, migrated, migration), a few derivations (`decision` ↔ `decid`), and the words of
 *   its entry in a small table of coding synonyms (`linter` → lint, eslint, biome, ruff…).
 * - A short form (four letters or fewer) matches at the start of a word only, camelCase and
 *   snake_case parts included (`test` finds `runTests`, not `latest`); a longer one anywhere.
 * - An identifier or a path is a term whole and its parts are terms of their own
 *   (`refreshAccessToken` → refresh, access, token), so the turn holding it exactly ranks
 *   above one holding its parts apart; CJK text matches by its runs of characters.
 */
import { foldCase } from "./fts-terms.ts";

/** One way a term can occur in a text: a folded substring, at a word start or anywhere. */
export interface Form {
  /** Lower case (foldCase). */
  s: string;
  /** Only where a word starts (after a non-alphanumeric, or an upper case letter after a lower). */
  start: boolean;
  /** A synonym's, not the word's own: it counts for less (core/search.ts rankTurns). */
  synonym?: boolean;
}

/** A term of a query: what the user typed of it, and the forms any one of which holds it. */
export interface QueryTerm {
  /** As typed (a word, a phrase, an identifier): what the output echoes. */
  text: string;
  forms: Form[];
  /** The word as typed, at a word start: holding it counts more than holding another form. */
  exact?: Form;
  /**
   * A whole phrase or identifier whose words are terms of their own: holding it is a bonus on
   * top of holding its words (the words are what a row must hold to hold them all).
   */
  whole?: boolean;
  /**
   * What the user sees of the query: a word or a name as typed is shown; an identifier's part
   * and a phrase (a span of shown words) are not (`not in this turn: …` names what was typed).
   */
  hidden?: boolean;
}

/**
 * Words that say nothing about what is looked for: English function words, question words and
 * what people say to a memory ("remember", "earlier"). Kept when nothing else is left.
 */
const STOP = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below
between both but by can can't cannot could couldn't did didn't do does doesn't doing don't done down during each
earlier few for from further get got had hadn't has hasn't have haven't having he her here hers herself him himself
his how i i'd i'll i'm i've if in into is isn't it it's its itself just let let's me more most much my myself no nor
not now of off on once only or other ought our ours ourselves out over own please same she should shouldn't so some
such than that that's the their theirs them themselves then there there's these they this those through to too
under until up upon us very was wasn't we we'd we'll we're we've were weren't what what's when where where's which
while who who's whom why why's will with won't would wouldn't you you'd you'll you're you've your yours yourself
yourselves tell show find remember recall happened happen thing things something anything way ago last previous
previously back went going gonna want wanted know knew think thought look looked say said see saw make made use used
using one ones there's was were still already ever actually really even though although anyway instead maybe perhaps`.split(
    /\s+/,
  ),
);

/** Whether a folded word is a stop word. */
export function isStopWord(word: string): boolean {
  return STOP.has(word.replace(/’/g, "'"));
}

/**
 * Coding words people use for the same thing, one group per line. A query word holding one of a
 * group's stems also matches the others. General vocabulary of the trade, not of any one project:
 * tools by what they do (`linter` → eslint, biome), the usual abbreviations (`db`, `repo`, `auth`).
 * A line `kind words : tools` is one-way: who forgot a tool's name asks for its kind (`the ORM`,
 * `the linter`), so the kind finds each tool, and a tool only the kind, never the other tools
 * (who types `jest` means jest, not vitest).
 */
const SYNONYMS: readonly string[] = [
  "lint linter linting : eslint biome ruff flake8 pylint clippy golangci stylelint",
  "format formatter formatting : prettier rustfmt gofmt black",
  "login logon signin sign-in auth authentication authenticate credential oauth",
  "token jwt bearer",
  "renew renewal refresh",
  "database db sql : sqlite postgres postgresql mysql mariadb mongodb redis",
  "orm : prisma sqlalchemy drizzle typeorm sequelize mongoose hibernate activerecord",
  "migration migrate schema alembic",
  "test tests testing spec : pytest jest vitest mocha junit rspec playwright cypress",
  "error errors fail failed failure failing exception traceback crash panic broken",
  "bug issue defect regression",
  "fix fixed patch repair",
  "delete remove removed drop erase",
  "config configuration settings setting options",
  "dependency dependencies package packages library libraries module",
  "install installed setup",
  "commit committed",
  "directory dir folder",
  "repository repo",
  "documentation docs readme",
  "performance perf slow speed latency benchmark bench fast faster",
  "deploy deployment release publish ship",
  "build compile bundle bundler : webpack vite esbuild rollup parcel turbopack",
  "function func method",
  "endpoint route api handler",
  "permission permissions chmod sudo denied",
  "timeout hang hangs stuck timed",
  "image picture screenshot png jpg",
  "container docker dockerfile podman",
  "typescript tsc types",
  "javascript nodejs",
  "environment env variable",
  "virtualenv venv",
  "terminal shell bash command",
  "frontend ui page view",
  "editor : vscode vim neovim emacs",
  "browser : chrome chromium firefox safari",
  "screen display monitor",
  "gpu graphics : nvidia cuda rocm",
  "signing signature signed gpg pgp keyring keychain",
  "certificate tls ssl",
  "cloud : aws gcp azure",
  "download downloaded : wget curl",
  "keyboard shortcut hotkey keybinding",
  "schedule scheduled cron timer",
  "upgrade update bump",
  "revert rollback undo",
  "disk storage drive",
  "start launch boot",
  "stop kill terminate",
  "memory oom leak",
  "branch checkout",
  "merge rebase",
  "password secret key credentials",
  "cache cached caching",
  "log logs logging",
  "rename renamed",
  "search grep query",
];

/** A stem-ish prefix long enough to mean something. */
const STEM_MIN = 4;
/** Forms this short match at a word start only (`run`: `runTests`, not `truncate`); longer, anywhere. */
const START_ONLY_MAX = 4;

/** Common endings, longest first: what a word drops to reach the stem its forms share. */
const ENDINGS = [
  "izations",
  "ization",
  "ations",
  "ation",
  "ements",
  "ement",
  "ments",
  "ment",
  "nesses",
  "ness",
  "ities",
  "ity",
  "ings",
  "ing",
  "ions",
  "ion",
  "ers",
  "er",
  "ies",
  "ied",
  "ed",
  "es",
  "ly",
  "s",
  "e",
  "y",
];

/**
 * The prefix a word shares with its inflections and common derivations: `migrations` →
 * `migrat`, `decided` → `decid`, `caching` → `cach`, `tests` → `test`. At least STEM_MIN
 * characters, else the word itself; a doubled final consonant is undoubled (`running` → `run`
 * would be shorter than STEM_MIN, so `running` stays `runn`… and `runn` still finds `running`).
 */
export function stemOf(word: string): string {
  if (word.length <= STEM_MIN || !/^[a-z]+$/.test(word)) return word;
  let fallback = word;
  for (const end of ENDINGS) {
    if (!word.endsWith(end)) continue;
    let stem = word.slice(0, -end.length);
    // running → run, stopped → stop: the doubled consonant belongs to the ending.
    if (/([b-df-hj-np-tv-z])\1$/.test(stem) && /^(?:ing|ed|er|ers|ings)$/.test(end)) stem = stem.slice(0, -1);
    // The longest ending that leaves a stem of five letters; else the first that leaves four.
    if (stem.length >= STEM_MIN + 1) return stem;
    if (fallback === word && (stem.length >= STEM_MIN || (stem.length === 3 && /^(?:ing|ed)$/.test(end))))
      fallback = stem;
  }
  return fallback;
}

/** Derivations the stem does not reach: decide/decision, extend/extension, permit/permission. */
function derived(stem: string): string[] {
  const out: string[] = [];
  const swap = (from: string, to: string) => {
    if (stem.length >= 5 && stem.endsWith(from) && stem.length - from.length >= 2)
      out.push(stem.slice(0, -from.length) + to);
  };
  swap("sion", "d"); // decision → decid (decis after the stem: see below)
  swap("cis", "cid"); // decis → decid
  swap("cid", "cis"); // decid → decis
  swap("vis", "vid"); // divis → divid
  swap("vid", "vis"); // divid → divis
  swap("ns", "nd"); // extens → extend
  swap("nd", "ns"); // extend → extens
  swap("miss", "mit"); // permiss → permit
  swap("mit", "miss"); // permit → permiss
  swap("olut", "olv"); // resolut → resolv
  swap("olv", "olut"); // resolv → resolut
  return out.filter((s) => s.length >= STEM_MIN);
}

/**
 * The other words of a word's synonym groups, looked up by the word and by its stem when the
 * stem is long enough to be the group's (`linting` → `lint…`; `set` is not `settings`). A scan
 * of the table, not an index built first: only the groups whose text holds the word or its stem
 * are split, so a search's cold process pays for a few lines (docs/search.md, "Speed").
 */
function synonymsOf(word: string): string[] {
  const stem = stemOf(word);
  const byStem = stem.length >= 5;
  const found = new Set<string>();
  for (const line of SYNONYMS) {
    if (!line.includes(byStem ? stem : word)) continue;
    const cut = line.indexOf(" : ");
    const kinds = (cut < 0 ? line : line.slice(0, cut)).split(" ");
    const tools = cut < 0 ? [] : line.slice(cut + 3).split(" ");
    const inGroup = (w: string) =>
      w === word || stemOf(w) === word || (byStem && (w === stem || stemOf(w) === stem));
    // A kind's word finds the other kind words and every tool; a tool finds the kind words only.
    const reach = kinds.some(inGroup) ? [...kinds, ...tools] : tools.some(inGroup) ? kinds : [];
    for (const w of reach) if (w !== word) found.add(w);
  }
  return [...found];
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Whether a text holds CJK characters (never, in ASCII: see ASCII). */
function isCjk(text: string): boolean {
  return !ASCII.test(text) && CJK.test(text);
}
/** Runs of CJK content characters: Han, Katakana (and its long vowel mark) and Hangul. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;
/** A CJK run longer than this is also looked for by its three-character pieces. */
const CJK_WHOLE_MAX = 6;

/** A word's own forms: the word (or its stem) and its derivations, short ones at word starts. */
function wordForms(word: string): Form[] {
  const stem = stemOf(word);
  const strings = [stem, ...derived(stem)];
  return strings.map((s) => ({ s, start: [...s].length <= START_ONLY_MAX }));
}

function dedupeForms(forms: readonly Form[]): Form[] {
  const out: Form[] = [];
  for (const f of forms) {
    // A form another one contains adds nothing: `test` (anywhere) holds `tests`.
    if (out.some((o) => o.s === f.s || (!o.start && f.s.includes(o.s)))) continue;
    for (let i = out.length - 1; i >= 0; i--) if (!f.start && out[i]!.s.includes(f.s)) out.splice(i, 1);
    out.push(f);
  }
  return out;
}

/**
 * A plain word as a term: its forms, and its synonyms as they are written (a synonym's own
 * inflections are not sought: each form costs a lookup, and the stems of short words match much).
 */
function wordTerm(text: string, folded: string): QueryTerm {
  const own = wordForms(folded);
  const syn = synonymsOf(folded).map((w) => asWritten(w, true));
  return { text, forms: dedupeForms([...own, ...syn]), exact: { s: folded, start: true } };
}

/** A term without its synonyms (as it is when it has no other forms: `db`). */
export function ownForms(t: QueryTerm): QueryTerm {
  const own = t.forms.filter((f) => !f.synonym);
  return own.length > 0 && own.length < t.forms.length ? { ...t, forms: own } : t;
}

/**
 * Printable ASCII text (and whitespace), for which the letter and digit classes below have ASCII
 * twins: a Unicode property class costs a cold process 0.05-0.3 ms to compile on first use, and a
 * query is rarely anything but ASCII (docs/search.md, "Speed"). In ASCII each twin matches what
 * its Unicode class matches (test/core/query-ascii.test.ts).
 */
const ASCII = /^[\t\n\r -~]*$/;
export const ASCII_TWINS = {
  notAlnum: { ascii: /[^A-Za-z0-9]+/, any: /[^\p{L}\p{N}]+/u },
  tokenEdges: {
    ascii: /^[^A-Za-z0-9_/.~$@#-]+|[^A-Za-z0-9_]+$/g,
    any: /^[^\p{L}\p{N}_/.~$@#-]+|[^\p{L}\p{N}_]+$/gu,
  },
  hasAlnum: { ascii: /[A-Za-z0-9]/, any: /[\p{L}\p{N}]/u },
  wordChar: { ascii: /[a-z0-9_]/, any: /[\p{Ll}\p{N}_]/u },
};

/** The parts of an identifier or path: camelCase, snake_case, kebab-case, dotted and slashed. */
export function identifierParts(token: string): string[] {
  return token
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(ASCII.test(token) ? ASCII_TWINS.notAlnum.ascii : ASCII_TWINS.notAlnum.any)
    .filter((p) => p !== "");
}

/** Quoted spans inside an argument (`why "users migration" failed`), and the rest. */
function splitQuotes(arg: string): { phrases: string[]; rest: string } {
  const phrases: string[] = [];
  const rest = arg.replace(/"([^"]+)"|“([^”]+)”/g, (_m, a: string | undefined, b: string | undefined) => {
    phrases.push((a ?? b ?? "").trim());
    return " ";
  });
  return { phrases: phrases.filter((p) => p !== ""), rest };
}

/** Tokens of a text: identifiers and paths stay whole; surrounding punctuation goes. */
function tokens(text: string): string[] {
  const ascii = ASCII.test(text);
  const { tokenEdges, hasAlnum } = ASCII_TWINS;
  const edges = ascii ? tokenEdges.ascii : tokenEdges.any;
  const alnum = ascii ? hasAlnum.ascii : hasAlnum.any;
  return text
    .split(/\s+/)
    .map((w) => w.replace(edges, "").replace(/['’]s$/, ""))
    .filter((w) => w !== "" && alnum.test(w));
}

/** Whether a token is an identifier or a path rather than a word. */
function isIdentifier(token: string): boolean {
  return /[a-z0-9][A-Z]|[_/\\.:=@#$-]|\d/.test(token);
}

/**
 * The terms of a query (docs/search.md, "Query rules"). `args` are the command's arguments as the
 * shell passed them: one per word, or a whole sentence in one, or a mix.
 */
export function parseQuery(args: readonly string[]): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  const dropped: string[] = [];
  const add = ([key, t]: Keyed) => {
    if (seen.has(key) || t.forms.length === 0) return;
    seen.add(key);
    terms.push(t);
  };
  const addToken = (tok: string) => {
    const found = tokenTerms(tok);
    // A stop word or a lone short word; Hiragana alone (grammar) is not kept even then.
    if (found.length === 0 && !isCjk(tok)) dropped.push(tok);
    found.forEach(add);
  };
  for (const given of args) {
    // A NUL ends a C string: SQLite would read the index query cut short (the web view's `q=%00`).
    const arg = given.replaceAll("\0", " ");
    const { phrases, rest } = splitQuotes(arg.trim());
    // An argument holding spaces was quoted in the shell: it is a span like a quoted one.
    const spans = phrases.length === 0 && /\s/.test(arg.trim()) ? [arg.trim()] : phrases;
    for (const p of spans) {
      const content = tokens(p).filter((w) => !isStopWord(foldCase(w)));
      if (content.length >= 2 && tokens(p).length <= 3)
        add([`p:${foldCase(p)}`, { ...literal(p.replace(/\s+/g, " ")), whole: true, hidden: true }]);
    }
    [...phrases.flatMap(tokens), ...tokens(rest)].forEach(addToken);
  }
  // Only stop words: they are what the user is looking for after all.
  if (terms.length === 0) for (const w of dropped) add([`w:${foldCase(w)}`, literal(w, true)]);
  return terms;
}

/** A term and the key that makes it distinct in a query (a word by its stem). */
type Keyed = [key: string, term: QueryTerm];

/** A term of one literal form; start-only when asked and the form is short. */
function literal(text: string, wordStart = false): QueryTerm {
  return { text, forms: [asWritten(foldCase(text), false, wordStart)] };
}

/** A word as written, as a form: start-only when short, or a synonym (`redis` is not in `predis`). */
function asWritten(s: string, synonym = false, wordStart = true): Form {
  const start = synonym || (wordStart && [...s].length <= START_ONLY_MAX);
  return synonym ? { s, start, synonym } : { s, start };
}

/** The terms of one token (core of parseQuery); none for a stop word or a lone short word. */
function tokenTerms(tok: string): Keyed[] {
  const folded = foldCase(tok);
  if (isCjk(tok)) {
    const out: Keyed[] = [];
    for (const run of tok.match(CJK_RUN) ?? []) {
      out.push([`w:${foldCase(run)}`, literal(run)]);
      if ([...run].length > CJK_WHOLE_MAX)
        for (const piece of cjkPieces(run)) out.push([`w:${foldCase(piece)}`, literal(piece)]);
    }
    const latin = tok.replace(CJK_RUN, " ").trim();
    if (latin !== "" && latin !== tok) out.push(...tokens(latin).flatMap(tokenTerms));
    return out;
  }
  if (isIdentifier(tok)) {
    const parts = identifierParts(tok).filter((p) => [...p].length >= 3 && !isStopWord(foldCase(p)));
    const whole = parts.length > 1 || foldCase(parts[0] ?? "") !== folded;
    // A name is exact: its parts match their own forms, never a synonym.
    // The parts are shown only when the name is one word after all (`Tokens` → tokens).
    const out: Keyed[] = parts.map((p) => [
      `w:${stemOf(foldCase(p))}`,
      { ...ownForms(wordTerm(p, foldCase(p))), ...(whole ? { hidden: true } : {}) },
    ]);
    if (whole || parts.length === 0) out.push([`x:${folded}`, { ...literal(tok), whole: parts.length > 0 }]);
    return out;
  }
  if (isStopWord(folded)) return [];
  // Two letters match too much as a part of a longer word; only a synonym gives them meaning.
  if ([...folded].length < 3) {
    const syn = synonymsOf(folded);
    return syn.length > 0
      ? [[`w:${folded}`, { text: tok, forms: dedupeForms(syn.map((w) => asWritten(w))) }]]
      : [];
  }
  return [[`w:${stemOf(folded)}`, wordTerm(tok, folded)]];
}

/** The three-character pieces covering a CJK run, without overlap except for the last. */
function cjkPieces(run: string): string[] {
  const cps = [...run];
  const out: string[] = [];
  for (let i = 0; i + 3 <= cps.length; i += 3) out.push(cps.slice(i, i + 3).join(""));
  if (cps.length % 3 !== 0) out.push(cps.slice(-3).join(""));
  return out;
}

const ALNUM = /[\p{L}\p{N}]/u;
const LOWER_OR_DIGIT = /[\p{Ll}\p{N}]/u;
const UPPER = /\p{Lu}/u;

/**
 * Where a form occurs in a text at or after `from` (`folded` is foldCase(text)), or -1. A
 * start-only form must begin a word: the text's start, after a character that is not a letter or
 * a digit, or at an upper case letter after a lower case one or a digit (camelCase).
 */
export function formAt(text: string, folded: string, form: Form, from = 0): number {
  for (let at = folded.indexOf(form.s, from); at >= 0; at = folded.indexOf(form.s, at + 1)) {
    if (!form.start || at === 0) return at;
    if (wordStartAt(text, at)) return at;
  }
  return -1;
}

/**
 * Whether a word starts at `at` (> 0), as formAt says. ASCII, what code and most prose are, is
 * decided by character codes; a Unicode property regex costs far more per call in a cold process.
 */
export function wordStartAt(text: string, at: number): boolean {
  const p = text.charCodeAt(at - 1);
  const c = text.charCodeAt(at);
  if (p < 128 && c < 128) {
    const pLower = p >= 97 && p <= 122;
    const pDigit = p >= 48 && p <= 57;
    if (!(pLower || pDigit || (p >= 65 && p <= 90))) return true;
    return (pLower || pDigit) && c >= 65 && c <= 90;
  }
  const prev = text[at - 1]!;
  if (!ALNUM.test(prev)) return true;
  return LOWER_OR_DIGIT.test(prev) && UPPER.test(text[at]!);
}

/** Whether any form of a term occurs (termAt without the place and the word's length). */
export function termHeld(text: string, folded: string, term: QueryTerm): boolean {
  for (const f of term.forms) if (formAt(text, folded, f) >= 0) return true;
  return false;
}

/** Where a term first occurs (the earliest of its forms), with the form's length; at -1 when nowhere. */
export function termAt(text: string, folded: string, term: QueryTerm): { at: number; len: number } {
  let best = { at: -1, len: 0 };
  for (const f of term.forms) {
    const at = formAt(text, folded, f);
    if (at >= 0 && (best.at < 0 || at < best.at)) best = { at, len: wordEnd(folded, at, f.s.length) };
  }
  return best;
}

/** A lower case letter, a digit or `_` (ASCII_TWINS.wordChar). */
function wordChar(text: string, at: number): boolean {
  const ch = text[at]!;
  return (ch < "\x80" ? ASCII_TWINS.wordChar.ascii : ASCII_TWINS.wordChar.any).test(ch);
}

/** The length of the word a match starts, at least the form's own (so `migrat` shows `migration`). */
function wordEnd(folded: string, at: number, len: number): number {
  let end = at + len;
  while (end < folded.length && end - at < 64 && wordChar(folded, end)) end++;
  return end - at;
}
