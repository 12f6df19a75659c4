/**
 * Secret redaction. Every string is passed through `redact` before it reaches the database.
 * Each rule names its kind; the replacement is `[REDACTED:<kind>]`. The rules are data in
 * src/core/redact-rules.ts (documented in docs/redaction.md); this module is the engine.
 * test/capture/redaction.test.ts fails for a kind without a fixture: keep the three in step.
 *
 * Speed matters: this runs on every stored string, in hook processes that start cold, and most
 * text holds no secret. So each rule lists literal substrings (`hints`), one of which every match
 * contains; a single combined scan finds which hints occur, and only the rules they name run.
 */
import { rules } from "./redact-rules.ts";

/**
 * Finding the hints. A cold hook redacts a few kilobytes, where one `includes` per hint is
 * cheapest (~0.04 ms per KiB in a cold process); building and compiling the single regex over
 * all hints costs ~2-4 ms once, then ~0.01 ms per KiB (docs/benchmarks.md). They break even
 * near 70 KiB, so the first SCAN_SWITCH characters a process redacts use `includes` and the
 * rest (replay, import, a huge tool output) the regex.
 */
const SCAN_SWITCH = 65_536;
let scannedByIncludes = 0;
let hintScan: { re: RegExp; rules: Map<string, number[]> } | null = null;

/**
 * One scan over all hints. Longest hints come first in it, so at a position the longest hint
 * present is reported; it stands for its own rules and those of every hint that is a prefix of it.
 */
function buildHintScan(): { re: RegExp; rules: Map<string, number[]> } {
  const own = new Map<string, number[]>();
  rules.forEach((r, i) => {
    for (const h of r.hints) own.set(h, [...(own.get(h) ?? []), i]);
  });
  const hintRules = new Map<string, number[]>();
  for (const [h, ids] of own) {
    const all = [...ids];
    for (let n = 1; n < h.length; n++) all.push(...(own.get(h.slice(0, n)) ?? []));
    hintRules.set(h, all);
  }
  const re = new RegExp(
    [...hintRules.keys()]
      .sort((a, b) => b.length - a.length)
      .map((h) => h.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("|"),
    "g",
  );
  return { re, rules: hintRules };
}

/**
 * Hints found once for a batch of strings: an ingest redacts a turn as dozens of strings, and
 * one `includes` per hint per string costs more in calls than in bytes (~2 ms of a Stop,
 * docs/benchmarks.md). Inside `withHintBatch`, a string of the batch is checked only for the
 * hints of the rules the whole batch may match: a hint a string holds, the batch holds too.
 */
let batch: { texts: Set<string>; due: Uint8Array | null } | null = null;
/** Past this many characters a batch is not joined (replay, import): the regex scan serves. */
const BATCH_MAX = 1 << 20;

export function withHintBatch<T>(texts: readonly (string | null | undefined)[], fn: () => T): T {
  if (batch !== null) return fn();
  const list = texts.filter((t): t is string => typeof t === "string" && t.length >= MIN_LENGTH);
  let total = 0;
  for (const t of list) total += t.length + 1;
  if (list.length < 2 || total > BATCH_MAX) return fn();
  const joined = list.join("\n");
  batch = { texts: new Set(list), due: dueRules(joined, chooseScan(joined)) };
  try {
    return fn();
  } finally {
    batch = null;
  }
}

/** How a string's hints are found: against the batch's rules, one `includes` each, or one regex. */
type Scan = "batch" | "includes" | "regex";

/** Which rules may match `text` (each names a hint `text` contains), or null for none. */
function dueRules(text: string, scan: Scan): Uint8Array | null {
  const due = new Uint8Array(rules.length);
  let any = false;
  if (scan === "batch") {
    const batchDue = batch?.due ?? null;
    if (batchDue === null) return null;
    for (let i = 0; i < rules.length; i++)
      if (batchDue[i] === 1 && rules[i]!.hints.some((h) => text.includes(h))) {
        due[i] = 1;
        any = true;
      }
    return any ? due : null;
  }
  if (scan === "includes") {
    for (let i = 0; i < rules.length; i++)
      if (rules[i]!.hints.some((h) => text.includes(h))) {
        due[i] = 1;
        any = true;
      }
    return any ? due : null;
  }
  hintScan ??= buildHintScan();
  const { re, rules: hintRules } = hintScan;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    for (const i of hintRules.get(m[0])!) due[i] = 1;
    any = true;
    // Hints may overlap (`key-` and `-us`): resume just after this one's start.
    re.lastIndex = m.index + 1;
  }
  return any ? due : null;
}

function chooseScan(text: string): Scan {
  if (batch?.texts.has(text)) return "batch";
  if (hintScan !== null || scannedByIncludes + text.length > SCAN_SWITCH) return "regex";
  scannedByIncludes += text.length;
  return "includes";
}

/** Both ways of finding hints name the same rules for `text` (test/capture/redaction.test.ts). */
export function hintScansAgree(text: string): boolean {
  return String(dueRules(text, "includes")) === String(dueRules(text, "regex"));
}

/** No secret shape is shorter than this: shorter strings skip the scan entirely. */
const MIN_LENGTH = 12;

/** Each rule's pattern once made (`Rule.re`). */
const compiled: RegExp[] = [];

function apply(text: string, onHit?: (kind: string, value: string) => void): string {
  if (text.length < MIN_LENGTH) return text;
  const due = dueRules(text, chooseScan(text));
  if (due === null) return text;
  let out = text;
  for (let i = 0; i < rules.length; i++) {
    if (due[i] === 0) continue;
    const rule = rules[i]!;
    let re = compiled[i];
    if (re === undefined) {
      re = rule.re();
      compiled[i] = re;
    }
    out = out.replace(re, (match: string, ...groups: unknown[]) => {
      if (match.includes("[REDACTED:")) return match;
      // The callback receives the captures, then the match offset (the first number).
      const at = groups.findIndex((g) => typeof g === "number");
      if (rule.at && !rule.at(groups[at + 1] as string, groups[at] as number)) return match;
      const parts = groups.slice(0, at) as (string | undefined)[];
      const value = rule.group === 0 ? match : (parts[rule.group - 1] ?? "");
      if (rule.keep?.(value)) return match;
      onHit?.(rule.kind, value);
      const marker = `[REDACTED:${rule.kind}]`;
      if (rule.group === 0) return marker;
      return parts.map((p, j) => (j + 1 === rule.group ? marker : (p ?? ""))).join("");
    });
  }
  return out;
}

/** Replace every secret shape in `text` by `[REDACTED:<kind>]`. */
export function redact(text: string): string {
  return apply(text);
}

/** `redact`, also telling `onHit` each value it replaced and its kind (for measuring false positives). */
export function redactReporting(text: string, onHit: (kind: string, value: string) => void): string {
  return apply(text, onHit);
}

export function redactNullable(text: string | null): string | null {
  return text === null ? null : redact(text);
}

/** Every kind `redact` can report, in rule order. */
export const REDACTION_KINDS: readonly string[] = rules.map((r) => r.kind);
