/**
 * Redaction over the third-party corpus in ../shared/corpus (absent on a user's machine: these
 * tests skip). The corpus holds real sessions, so every redaction here is a candidate false
 * positive: the counts per kind are printed, and capped at what was found on looking at each hit.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_TRANSCRIPTS, corpusTranscripts } from "../../harness/db.ts";
import { REDACTION_KINDS, redact, redactReporting } from "../../src/core/redact.ts";

const dir = CORPUS_TRANSCRIPTS;
const present = existsSync(dir);
const files = corpusTranscripts();

/**
 * Every hit, looked at: all are in mclaude-abc757d1.jsonl, a session writing a secret scanner,
 * and all are that scanner's fake test inputs (`-----BEGIN PRIVATE KEY-----\ndata…`, the RSA
 * header inside its own patterns, `xoxb-TEST-EXAMPLE`, `sk_test_EXAMPLE1234567890`,
 * `password="SuperSecret123"`, `API_KEY=sk-1234567890abcdef`). Any other kind must find nothing.
 */
const CEILING: Record<string, number> = { private_key: 14, slack_token: 10, stripe_key: 8, env_secret: 5 };

const SHA = /\b[0-9a-f]{40}\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const PATH = /^(?:~|\.{1,2})?\/[\w.@-]+(?:\/[\w.@-]+)+\/?$/;
/** Paths inside text: after a separator, two segments or more. */
const PATH_IN_TEXT = /(?<=^|[\s"'(=:])(?:~|\.{1,2})?\/[\w.@-]+(?:\/[\w.@-]+)+/g;
const BASE64_BODY = /^[A-Za-z0-9+/=\s]{1024,}$/;

function strings(v: unknown, out: string[]): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

interface Tally {
  raw: Map<string, number>;
  decoded: Map<string, number>;
  hits: { kind: string; value: string; where: string }[];
  bytes: number;
}

function tally(): Tally {
  const t: Tally = { raw: new Map(), decoded: new Map(), hits: [], bytes: 0 };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const f of files)
    readFileSync(join(dir, f), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (!line) return;
        const where = `${f}:${i + 1}`;
        t.bytes += line.length;
        // The raw line (strings still JSON-escaped), then each string as the capture path sees it.
        redactReporting(line, (kind) => bump(t.raw, kind));
        for (const s of strings(JSON.parse(line), []))
          redactReporting(s, (kind, value) => {
            bump(t.decoded, kind);
            t.hits.push({ kind, value, where });
          });
      });
  return t;
}

describe.skipIf(!present)("corpus redaction", () => {
  const t = present ? tally() : null;

  test("counts per kind stay within the ceilings found by looking at every hit", () => {
    const rows = [...new Set([...t!.raw.keys(), ...t!.decoded.keys()])].sort().map((kind) => ({
      kind,
      raw_lines: t!.raw.get(kind) ?? 0,
      decoded_strings: t!.decoded.get(kind) ?? 0,
      ceiling: CEILING[kind] ?? 0,
    }));
    console.log(`redaction over ${files.length} corpus files (${(t!.bytes / 1e6).toFixed(1)} MB)`);
    console.table(rows);
    for (const r of rows) {
      expect(REDACTION_KINDS).toContain(r.kind);
      expect({ kind: r.kind, over: Math.max(r.raw_lines, r.decoded_strings) > r.ceiling }).toEqual({
        kind: r.kind,
        over: false,
      });
    }
  }, 60_000);

  test("no redacted value is a git SHA, a UUID, a file path or base64 image data", () => {
    for (const h of t!.hits) {
      const bad = {
        sha: /^[0-9a-f]{40}$/.test(h.value),
        uuid: new RegExp(UUID.source, "i").test(h.value),
        path: PATH.test(h.value),
        base64: BASE64_BODY.test(h.value),
      };
      expect({ ...h, bad }).toEqual({ ...h, bad: { sha: false, uuid: false, path: false, base64: false } });
    }
  });

  test("every git SHA, UUID, path and base64 body in the corpus survives redaction", () => {
    let shas = 0;
    let uuids = 0;
    let paths = 0;
    let bodies = 0;
    for (const f of files)
      for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
        if (!line) continue;
        for (const s of strings(JSON.parse(line), [])) {
          if (BASE64_BODY.test(s)) {
            bodies++;
            expect(redact(s) === s).toBe(true);
            continue;
          }
          const ids = [...(s.match(SHA) ?? []), ...(s.match(UUID) ?? [])];
          const ps = PATH.test(s) ? [s] : [];
          const inText = s.match(PATH_IN_TEXT) ?? [];
          if (ids.length + ps.length + inText.length === 0) continue;
          const out = redact(s);
          for (const id of ids) expect({ f, id, kept: out.includes(id) }).toEqual({ f, id, kept: true });
          for (const p of ps) expect({ f, p, kept: out === p }).toEqual({ f, p, kept: true });
          for (const p of inText) expect({ f, p, kept: out.includes(p) }).toEqual({ f, p, kept: true });
          shas += s.match(SHA)?.length ?? 0;
          uuids += s.match(UUID)?.length ?? 0;
          paths += ps.length + inText.length;
        }
      }
    console.log({ shas, uuids, paths, base64_bodies: bodies });
    // The corpus holds all four shapes, so the checks above checked something.
    expect(Math.min(shas, uuids, paths, bodies)).toBeGreaterThan(0);
  }, 60_000);
});
