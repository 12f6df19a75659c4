/**
 * The pure half of the continuation measurement (docs/benchmarks.md, "Continuation recall"): turns
 * as the model saw them, the facts turn k+1 needs from turns ≤ k, the cut points, and the search
 * words of a prompt. The definitions are the reference measurement's, rule for rule; they read
 * the transcript themselves, so a change in the product cannot move what is asked of it.
 */
import { cpLength, firstAt, lstrip, present, splitWords, strip, W, WS } from "./text.ts";

export type ItemKind = "prompt" | "asst" | "tool_in" | "tool_out" | "meta" | "sys";
export type Turn = {
  /** Index of the prompt's line in the transcript's `\n`-split bytes. */
  line: number;
  ts: unknown;
  promptRaw: string;
  prompt: string;
  items: [ItemKind, string][];
};
export type FactKind = "backquote" | "path" | "file" | "sha" | "ident" | "number";
export type Fact = {
  fact: string;
  kind: FactKind;
  first_turn: number;
  via: "asst" | "tool_in";
  earlier_in?: string[];
};
export type FactStats = {
  candidates: number;
  in_prompt: number;
  read_in_turn: number;
  not_earlier: number;
  needed_before_cap?: number;
};

export const MAX_FACTS = 30;
const BQ_MAX = 40;

// ---------------------------------------------------------------- turns (like src/core/prompt.ts + assemble.ts)
const MACHINE_PREFIXES = [
  "[Request interrupted by user",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<local-command-caveat>",
  "Caveat: The messages below",
  "<task-notification>",
  "<bash-stdout>",
  "<bash-stderr>",
  "<system-reminder>",
  "This session is being continued from a previous conversation",
];
const IDE_BLOCK = /<(ide_[a-z_]+)>[\s\S]*?<\/\1>/g;
const COMMAND_NAME = new RegExp(`<command-name>[${WS}]*([\\s\\S]*?)[${WS}]*</command-name>`, "u");
const COMMAND_MESSAGE = new RegExp(`<command-message>[${WS}]*([\\s\\S]*?)[${WS}]*</command-message>`, "u");
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const BASH_INPUT = new RegExp(`^<bash-input>([\\s\\S]*?)</bash-input>[${WS}]*$`, "u");

const isMachine = (text: string): boolean => {
  const t = lstrip(text);
  return MACHINE_PREFIXES.some((p) => t.startsWith(p));
};

/** Like classifyPromptText: a human prompt (rendered), text Claude Code inserted, or nothing. */
export function classifyPrompt(text: string, images: number): ["human" | "machine" | "empty", string] {
  if (isMachine(text)) return ["machine", text];
  const t = lstrip(text);
  if (t.startsWith("<command-name>") || t.startsWith("<command-message>")) {
    let name: string | null = COMMAND_NAME.exec(t)?.[1] ?? null;
    if (!name) {
      const m2 = COMMAND_MESSAGE.exec(t);
      name = m2 ? (splitWords(m2[1]!)[0] ?? null) : null;
    }
    if (name) {
      const args = strip(COMMAND_ARGS.exec(t)?.[1] ?? "");
      const slash = name.startsWith("/") ? name : `/${name}`;
      return ["human", args ? `${slash} ${args}` : slash];
    }
  }
  const b = BASH_INPUT.exec(strip(text));
  if (b) return ["human", `!${strip(b[1]!)}`];
  const rest = strip(text.replace(IDE_BLOCK, ""));
  const hadIde = rest !== strip(text);
  if (rest && isMachine(rest)) return ["machine", text];
  if (!rest && images === 0) return hadIde ? ["machine", text] : ["empty", ""];
  return ["human", rest];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const textOf = (b: Obj): string => (typeof b.text === "string" ? b.text : "");

function blocksOf(e: Obj): Json[] {
  const m = e.message;
  if (!isObj(m)) return [];
  const c = m.content;
  if (typeof c === "string") return [{ type: "text", text: c }];
  return Array.isArray(c) ? c : [];
}

function resultText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isObj)
    .filter((b) => b.type === "text")
    .map(textOf)
    .join("\n");
}

/** String leaves of a tool input, in order (numbers there are parameters: timeouts, limits). */
function leaves(v: Json | undefined, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (isObj(v)) for (const x of Object.values(v)) leaves(x, out);
  return out;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
const isByteSpace = (c: number | undefined): boolean =>
  c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;

/** `bytes.strip()`: ASCII whitespace only. */
export function stripBytes(b: Uint8Array): Uint8Array {
  let a = 0;
  let z = b.length;
  while (a < z && isByteSpace(b[a])) a++;
  while (z > a && isByteSpace(b[z - 1])) z--;
  return b.subarray(a, z);
}

/** The `\n`-split lines of a file's bytes, the last one possibly empty. */
export function splitLines(raw: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (;;) {
    const i = raw.indexOf(10, start);
    if (i < 0) break;
    out.push(raw.subarray(start, i));
    start = i + 1;
  }
  out.push(raw.subarray(start));
  return out;
}

/** One JSON value from a line's bytes, or undefined (not UTF-8, not JSON). */
export function parseLine(b: Uint8Array): unknown {
  try {
    return JSON.parse(STRICT_UTF8.decode(b));
  } catch {
    return undefined;
  }
}

/**
 * Turns of one transcript. Items: prompt, asst (assistant text), tool_in, tool_out, meta
 * (user-role text that is not a prompt), sys (system entries, attachments, API errors).
 */
export function parseSession(raw: Uint8Array): { lines: Uint8Array[]; turns: Turn[]; cwd: string | null } {
  const lines = splitLines(raw);
  const endsWithNewline = raw.length > 0 && raw[raw.length - 1] === 10;
  const turns: Turn[] = [];
  const seen = new Set<string>();
  let cwd: string | null = null;
  let cur: Turn | null = null;
  for (let i = 0; i < lines.length; i++) {
    const t = stripBytes(lines[i]!);
    if (t.length === 0 || t[0] !== 123) continue;
    if (i === lines.length - 1 && !endsWithNewline) continue; // unterminated last line: not consumed
    const e = parseLine(t);
    if (!isObj(e)) continue;
    if (typeof e.uuid === "string") {
      if (seen.has(e.uuid)) continue;
      seen.add(e.uuid);
    }
    if (typeof e.cwd === "string" && e.cwd && e.isSidechain !== true) cwd = e.cwd;
    const typ = e.type;
    // the main model never saw the subagent's own lines
    if (e.isSidechain === true && (typ === "user" || typ === "assistant")) continue;
    const items = cur ? cur.items : null;
    if (typ === "user") {
      const bl = blocksOf(e).filter(isObj);
      if (bl.some((b) => b.type === "tool_result")) {
        const extra = bl.filter((b) => b.type === "text").map(textOf);
        for (const b of bl)
          if (b.type === "tool_result" && items)
            items.push(["tool_out", [resultText(b.content), ...extra].join("\n")]);
        continue;
      }
      const text = bl
        .filter((b) => b.type === "text")
        .map(textOf)
        .join("\n");
      const images = bl.filter((b) => b.type === "image" || b.type === "document").length;
      if (e.isCompactSummary === true || e.isMeta === true) {
        if (items && strip(text)) items.push(["meta", text]);
        continue;
      }
      const [kind, rendered] = classifyPrompt(text, images);
      if (kind === "empty") continue;
      if (kind === "machine") {
        if (items) items.push(["meta", text]);
        continue;
      }
      cur = {
        line: i,
        ts: e.timestamp,
        promptRaw: text,
        prompt: rendered || "(image)",
        items: [["prompt", text]],
      };
      turns.push(cur);
    } else if (typ === "assistant") {
      if (!items) continue;
      const m = isObj(e.message) ? e.message : {};
      const bl = blocksOf(e).filter(isObj);
      if (e.isApiErrorMessage === true || m.model === "<synthetic>") {
        items.push(["sys", bl.map(textOf).join("\n")]);
        continue;
      }
      for (const b of bl) {
        if (b.type === "text") items.push(["asst", textOf(b)]);
        else if (b.type === "tool_use") items.push(["tool_in", leaves(b.input).join("\n")]);
      }
    } else if (typ === "system" && items) {
      if (typeof e.content === "string" && e.content) items.push(["sys", e.content]);
    } else if (typ === "attachment" && items) {
      items.push(["sys", leaves(e.attachment).join("\n")]);
    }
  }
  return { lines, turns, cwd };
}

// ---------------------------------------------------------------- facts
const EXTS = new Set(
  `py pyi pyx ipynb ts tsx js jsx mjs cjs mts cts json jsonl json5 md mdx markdown txt rst adoc org yml yaml
toml ini cfg conf config env properties plist xml html htm xhtml css scss sass less styl vue svelte astro sh bash zsh
fish ps1 psm1 bat cmd rs go c h cc cpp cxx hpp hh hxx cu cuh m mm swift java kt kts scala groovy gradle rb erb php pl
pm lua r jl dart ex exs erl hrl hs elm clj cljs ml mli fs fsx cs vb sql db sqlite sqlite3 csv tsv log lock lockb tex
bib sty cls pdf png jpg jpeg gif webp svg ico bmp tiff mp3 mp4 wav mov zip gz tgz tar bz2 xz whl jar so dylib dll exe
wasm proto graphql gql prisma pem crt patch diff service timer socket tf tfvars hcl nix mk cmake dockerfile vim el asm
tmpl tpl j2 jinja hbs ejs pug bak orig tmp pid ttf woff woff2 otf map snap pkl pt pth onnx h5 npy npz parquet ndjson
geojson ics doc docx xls xlsx ppt pptx odt rtf epub`.split(/\s+/),
);
/** Names of tools, products and languages: everywhere, so they say nothing about the work. */
const TECH = new Set(
  `node.js vue.js next.js nuxt.js react.js three.js express.js chart.js d3.js nest.js socket.io javascript
typescript github gitlab postgresql mysql sqlite mongodb nodejs macos iphone ipad youtube openai chatgpt linkedin
powershell wordpress devops fastapi graphql nextjs pytorch tensorflow websocket websockets oauth todowrite multiedit
webfetch websearch taskoutput bashoutput exitplanmode enterplanmode askuserquestion notebookedit killshell killbash
taskcreate taskupdate toolsearch claudecode vscode iterm macbook airpods playwright in_progress activeform`.split(
    /\s+/,
  ),
);
const GENERIC_PATHS = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/bin/bash",
  "/bin/sh",
  "/usr/bin/env",
  "/usr/bin/bash",
  "/usr/bin/python3",
  "/usr/bin/python",
]);
/** `console.log`, `res.json`: member access on a common object, not a file name. */
const CODE_OBJECTS = new Set(
  `console process window document self this res req response request module exports err ctx router
event obj args kwargs props state options opts prev next item items arr result results logger log db cursor conn client
schema`.split(/\s+/),
);

const rx = (source: string) => new RegExp(source, "gu");
const URL_RE = rx(`(?<![${W}])[A-Za-z][A-Za-z0-9+.\\-]*://[^${WS}\`'"<>)\\]]+`);
const UUID_RE = rx(
  `(?<![${W}])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![${W}])`,
);
const BQ_RE = rx(`\`([^\`\\n]{3,${BQ_MAX}})\``);
const WINPATH_RE = rx(`(?<![${W}])[A-Za-z]:\\\\(?:[${W}.@+\\-]+\\\\)*[${W}.@+\\-]+`);
const PATH_RE = rx(`(?<![${W}.~/@+\\-])(?:~|\\.\\.?)?/?(?:[${W}.@+\\-]+/)+[${W}.@+\\-]+`);
const FILE_RE = rx(`(?<![${W}.@+/\\\\\\-])[${W}@+\\-][${W}.@+\\-]*\\.([A-Za-z][A-Za-z0-9]{0,9})(?![${W}])`);
const SHA_RE = rx(`(?<![${W}])[0-9a-f]{7,40}(?![${W}])`);
const IDENT_RE = rx(`(?<![${W}])[A-Za-z_][A-Za-z0-9_]{4,}(?![${W}])`);
const NUM_RE = rx(`(?<![${W}.])\\p{Nd}{3,}(?![${W}])`);
const INNER_CAP = /[a-z0-9][A-Z]|[A-Z]{2}[a-z]/;
const PLAIN_WORD = /^[A-Za-z][a-z]*$/;
const SHORT_NUMBER = /^\p{Nd}{1,2}$/u;
const LOWER_SEG = /^[a-z0-9._-]+$/;
const TWO_LETTERS = /[A-Za-z]{2}/;

type Match = { start: number; end: number; text: string };
const matches = (re: RegExp, s: string): Match[] =>
  Array.from(s.matchAll(re), (m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));

/** Spaces over the given spans, length kept, so later patterns neither match them nor shift. */
function blank(s: string, spans: Match[]): string {
  if (spans.length === 0) return s;
  const parts: string[] = [];
  let at = 0;
  for (const m of spans) {
    parts.push(s.slice(at, m.start), " ".repeat(m.end - m.start));
    at = m.end;
  }
  parts.push(s.slice(at));
  return parts.join("");
}

function extOk(name: string): boolean {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return false;
  const base = name.slice(0, dot);
  const ext = name.slice(dot + 1);
  if (!EXTS.has(ext.toLowerCase())) return false;
  return cpLength(name) >= 4 && (cpLength(ext) > 1 || cpLength(base) >= 3);
}

const ND = /^\p{Nd}$/u;

/**
 * The value of a run of decimal digits of any script, as Python's `int` reads it: every Unicode
 * digit block is a run of tens counting from 0, so a digit's value is its distance from the run's
 * start, mod 10.
 */
function digitsValue(n: string): number {
  let v = 0;
  for (const ch of n) {
    const cp = ch.codePointAt(0)!;
    let start = cp;
    while (ND.test(String.fromCodePoint(start - 1))) start--;
    v = v * 10 + ((cp - start) % 10);
  }
  return v;
}

/** (fact, kind) in order of appearance, from one piece of assistant text or tool input. */
export function tokens(text: string, cwd: string | null): [string, FactKind][] {
  const out: [number, string, FactKind][] = [];
  let s = text;
  for (const re of [URL_RE, UUID_RE]) s = blank(s, matches(re, s));
  for (const m of s.matchAll(BQ_RE)) {
    const span = strip(m[1]!);
    if (cpLength(span) < 3 || !/[A-Za-z0-9]/.test(span)) continue;
    if (PLAIN_WORD.test(span)) continue; // a plain word: the identifier rule asks for `_` or an inner capital too
    if (SHORT_NUMBER.test(span) || TECH.has(span.toLowerCase())) continue;
    out.push([m.index + 1, span, "backquote"]);
  }
  for (const re of [WINPATH_RE, PATH_RE]) {
    const found = matches(re, s);
    s = blank(s, found);
    for (const m of found) {
      let p = m.text.replace(/[.,:;]+$/, "").replace(/^-+[A-Za-z]?(?=\/)/, "");
      if (GENERIC_PATHS.has(p)) continue;
      if (re === PATH_RE) {
        const segs = p.split("/").filter((x) => x && x !== "." && x !== ".." && x !== "~");
        const absolute = p.startsWith("/") || p.startsWith("~/");
        const hasExt = segs.length > 0 && extOk(segs[segs.length - 1]!);
        if (segs.length === 0 || !segs.some((x) => TWO_LETTERS.test(x))) continue;
        if (!hasExt && segs.length < (absolute ? 2 : 3)) continue;
        // "Ubuntu/Windows/macOS": a list in prose, not a path
        if (!hasExt && !absolute && !segs.some((x) => LOWER_SEG.test(x))) continue;
        const root = cwd?.replace(/\/+$/, "");
        if (cwd && root !== undefined && p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
        else if (cwd && p === cwd) continue;
        if (p.startsWith("./")) p = p.slice(2);
        if (!p.includes("/") && !extOk(p)) continue;
      } else if (cwd) {
        const root = cwd.replace(/\\+$/, "");
        if (p.toLowerCase().startsWith(`${cwd.toLowerCase().replace(/\\+$/, "")}\\`))
          p = p.slice(root.length + 1);
      }
      if (cpLength(p) >= 4) out.push([m.start, p, "path"]);
    }
  }
  const files = matches(FILE_RE, s);
  s = blank(s, files);
  for (const m of files) {
    const name = m.text;
    if (extOk(name) && !TECH.has(name.toLowerCase()) && !CODE_OBJECTS.has(name.split(".")[0]!))
      out.push([m.start, name, "file"]);
  }
  const shas = matches(SHA_RE, s).filter((m) => /\d/.test(m.text) && /[a-f]/.test(m.text));
  s = blank(s, shas);
  for (const m of shas) out.push([m.start, m.text, "sha"]);
  const idents = matches(IDENT_RE, s);
  s = blank(s, idents);
  for (const m of idents) {
    const w = m.text;
    if (w.length > 64 || TECH.has(w.toLowerCase()) || !TWO_LETTERS.test(w)) continue;
    if (w.includes("_") || INNER_CAP.test(w)) out.push([m.start, w, "ident"]);
  }
  for (const m of matches(NUM_RE, s)) {
    const n = m.text;
    const v = digitsValue(n);
    if (cpLength(n) === 4 && v >= 1990 && v <= 2039) continue; // a year: dates are everywhere
    out.push([m.start, n, "number"]);
  }
  // the same string as a path, a file name…: that kind, not backquote
  out.sort((a, b) => a[0] - b[0] || Number(a[2] === "backquote") - Number(b[2] === "backquote"));
  return out.map(([, f, k]) => [f, k]);
}

const SEEN_KINDS: ItemKind[] = ["prompt", "asst", "tool_in", "tool_out", "meta"];
const seenKind = (k: ItemKind) => SEEN_KINDS.includes(k);

/**
 * The text of every turn the model saw (prompt, assistant text, tool inputs and outputs, user-role
 * text that is not a prompt), and the first turn each fact occurs in (computed once per fact).
 */
export class History {
  private readonly text: string;
  private readonly starts: number[] = [];
  private readonly cache = new Map<string, number | null>();
  constructor(turns: Turn[]) {
    const SEP = "\n\x00\n";
    const parts: string[] = [];
    let pos = 0;
    for (const tu of turns) {
      const t = tu.items
        .filter(([k]) => seenKind(k))
        .map(([, x]) => x)
        .join("\n");
      this.starts.push(pos);
      parts.push(t);
      pos += t.length + SEP.length;
    }
    this.text = parts.join(SEP);
  }

  /** 1-based number of the first turn whose text holds the fact, or null. */
  firstTurn(fact: string): number | null {
    let r = this.cache.get(fact);
    if (r === undefined) {
      const i = firstAt(fact, this.text);
      r = i < 0 ? null : bisectRight(this.starts, i);
      this.cache.set(fact, r);
    }
    return r;
  }
}

function bisectRight(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (x < xs[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Facts turn k+1 (index k) needs from turns 1..k: used by its assistant text or tool inputs, not
 * in its prompt, not shown to it by a tool output (or injected text) of the turn before that use,
 * and present in an earlier turn. At most MAX_FACTS, spread evenly over the turn.
 */
export function neededFacts(
  turns: Turn[],
  hist: History,
  k: number,
  cwd: string | null,
): { facts: Fact[]; stats: FactStats } {
  const nxt = turns[k]!;
  const promptText = `${nxt.promptRaw}\n${nxt.prompt}`;
  const seenInTurn: string[] = [];
  const cands = new Map<string, Fact | null>();
  const order: string[] = [];
  const stats: FactStats = { candidates: 0, in_prompt: 0, read_in_turn: 0, not_earlier: 0 };
  for (const [kind, text] of nxt.items.slice(1)) {
    if (kind === "tool_out" || kind === "meta" || kind === "sys") {
      seenInTurn.push(text);
      continue;
    }
    if (kind !== "asst" && kind !== "tool_in") continue;
    for (const [fact, fk] of tokens(text, cwd)) {
      if (cands.has(fact)) continue;
      stats.candidates++;
      if (present(fact, promptText)) {
        cands.set(fact, null);
        stats.in_prompt++;
        continue;
      }
      if (seenInTurn.some((x) => present(fact, x))) {
        cands.set(fact, null);
        stats.read_in_turn++;
        continue;
      }
      const first = hist.firstTurn(fact);
      if (first === null || first > k) {
        cands.set(fact, null);
        stats.not_earlier++;
        continue;
      }
      cands.set(fact, { fact, kind: fk, first_turn: first, via: kind });
      order.push(fact);
    }
  }
  let facts = order.map((f) => cands.get(f)!);
  if (facts.length > MAX_FACTS) {
    const all = facts;
    facts = Array.from({ length: MAX_FACTS }, (_, i) => all[Math.floor((i * all.length) / MAX_FACTS)]!);
  }
  // what kind of earlier text held it: the model's own words, or only what a tool showed it
  for (const f of facts) {
    const kinds = new Set<string>();
    for (const tu of turns.slice(0, k))
      for (const [kind, x] of tu.items)
        if (seenKind(kind) && !kinds.has(kind) && present(f.fact, x)) kinds.add(kind);
    f.earlier_in = [...kinds].sort();
  }
  stats.needed_before_cap = order.length;
  return { facts, stats };
}

export type Cut = { k: number; facts: Fact[]; stats: FactStats };

/** Up to `ncuts` cut points k ≥ 3 whose turn k+1 needs a fact, spread evenly over the eligible ones. */
export function chooseCuts(
  turns: Turn[],
  cwd: string | null,
  ncuts: number,
): { cuts: Cut[]; eligible: number; noFacts: number } {
  const elig: Cut[] = [];
  let noFacts = 0;
  const hist = new History(turns);
  for (let k = 3; k < turns.length; k++) {
    const { facts, stats } = neededFacts(turns, hist, k, cwd);
    if (facts.length > 0) elig.push({ k, facts, stats });
    else noFacts++;
  }
  let pick = elig;
  if (elig.length > ncuts) {
    const idx = new Set<number>();
    for (let i = 0; i < ncuts; i++) idx.add(Math.floor(((i + 0.5) * elig.length) / ncuts));
    pick = [...idx].sort((a, b) => a - b).map((i) => elig[i]!);
  }
  return { cuts: pick, eligible: elig.length + noFacts, noFacts };
}

// ---------------------------------------------------------------- search words of the prompt
const STOP = new Set(
  `the and for with that this from have into your what when then them they were will would could should
there their about which while after before other these those using file files line lines error errors please
thanks thank great really something anything everything going doing being right still maybe since every first
again where make sure need want like just also some more only very much well look here does dont lets okay yeah
good know think done work working works start check tell help give take find able want wants need needs
still actually already right other another`.split(/\s+/),
);

/** The words the stand-in model searches for: up to 4 of 5+ letters not in STOP, else of 4+. */
export function promptWords(text: string, n = 4): string[] {
  const pick = (minlen: number): string[] => {
    const out: string[] = [];
    for (const [w] of (text ?? "").matchAll(new RegExp(`[A-Za-z][A-Za-z0-9_]{${minlen - 1},}`, "g"))) {
      const lw = w.toLowerCase();
      if (!STOP.has(lw) && !out.some((o) => o.toLowerCase() === lw)) out.push(w);
      if (out.length === n) break;
    }
    return out;
  };
  const five = pick(5);
  return five.length > 0 ? five : pick(4);
}
