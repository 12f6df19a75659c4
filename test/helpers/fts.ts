/**
 * What the full-text indexes answer, to compare two databases filled two ways (one-pass
 * indexing of a bulk ingest against the per-row triggers): the rows each index holds, and the
 * `search --json` output of a set of queries taken from the turns themselves.
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { cliInProcess } from "./cli-in-process.ts";

/** The full-text indexes, in the order the helpers below report them. */
export const INDEXES = ["bodies_fts", "details_fts", "events_fts"] as const;

/** Each index's segments: one segment id per segment in its %_idx table. */
export function segmentsOf(db: Database): number[] {
  return INDEXES.map(
    (t) => (db.query(`SELECT count(DISTINCT segid) AS n FROM ${t}_idx`).get() as { n: number }).n,
  );
}

/**
 * Per index: how many rows it holds and a hash of their rowids in order (a row indexed twice or
 * missing changes both). Also the FTS5 integrity check of each.
 */
export function indexState(path: string): Record<string, { rows: number; rowids: string }> {
  const db = new Database(path);
  try {
    const out: Record<string, { rows: number; rowids: string }> = {};
    for (const t of INDEXES) {
      db.run(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`);
      const ids = db.query(`SELECT rowid AS id FROM ${t} ORDER BY rowid`).values() as number[][];
      out[t] = {
        rows: ids.length,
        rowids: createHash("sha256")
          .update(ids.map((r) => r[0]).join(","))
          .digest("hex"),
      };
    }
    return out;
  } finally {
    db.close();
  }
}

/**
 * Queries from the database's own text: from every `every`-th turn's prompt, its two longest
 * words, then the longest one alone; and from every `every`-th event, its longest word.
 */
export function queriesOf(path: string, every: number, max = 40): string[][] {
  const db = new Database(path, { readonly: true });
  try {
    const words = (text: string) =>
      [...new Set(text.match(/[\p{L}\p{N}_./-]{4,40}/gu) ?? [])].sort(
        (a, b) => b.length - a.length || (a < b ? -1 : 1),
      );
    const prompts = db
      .query("SELECT text FROM bodies WHERE role = 'user' ORDER BY id")
      .values()
      .map((r) => String(r[0]));
    const events = db
      .query("SELECT summary FROM events ORDER BY id")
      .values()
      .map((r) => String(r[0]));
    const fromPrompts: string[][] = [];
    const fromEvents: string[][] = [];
    prompts.forEach((p, i) => {
      if (i % every !== 0) return;
      const w = words(p).filter((x) => !x.startsWith("-"));
      if (w.length >= 2) fromPrompts.push(w.slice(0, 2));
      if (w.length >= 1) fromPrompts.push([w[0]!]);
    });
    events.forEach((e, i) => {
      const w = words(e).filter((x) => !x.startsWith("-"));
      if (i % every === 0 && w.length > 0) fromEvents.push([w[0]!]);
    });
    const quarter = Math.min(fromEvents.length, Math.floor(max / 4));
    return [...fromPrompts.slice(0, max - quarter), ...fromEvents.slice(0, quarter)];
  } finally {
    db.close();
  }
}

/** `search <words> --all --json` for each query, in this process. */
export async function searchOutputs(path: string, queries: string[][]): Promise<string[]> {
  const out: string[] = [];
  for (const q of queries) out.push(await cliInProcess(path, ["search", ...q, "--all", "--json"]));
  return out;
}
