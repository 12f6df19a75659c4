/**
 * Forks (docs/contract.md#forks, docs/architecture.md "Forks"). `claude --resume <id> --fork-session`
 * (and the TUI's branch) writes a new session file that repeats its parent's entries, uuids
 * included. A turn another session holds too (same prompt uuid, start, prompt and reply) is
 * stored once, by the older of the two sessions; the other keeps only its own turns and records the fork point
 * (`sessions.fork_uuid`: the uuid of the newest turn it copied). A chain then reads, besides
 * its own rows, the chain holding the fork point up to and including that turn: a *part* with a
 * bound. The parent's chain is left as it was, and each branch goes on independently.
 */
import type { Database } from "bun:sqlite";
import { chainKeyOf } from "./sessions.ts";

/** A stored turn holding one of the prompt uuids asked for, with its session's birth. */
export interface UuidHolder {
  uuid: string;
  origin_session_id: string;
  turn_number: number;
  started_at: number;
  /** `created_at` of the holding session. */
  born: number;
  /** 1 when the stored turn has the same assistant text too: a copy; 0: a fork made inside this turn. */
  same: number;
}

/**
 * Turns of sessions other than `origin` that hold one of `turns`: the same prompt uuid, start
 * and prompt text (test fixtures reuse uuids, never all three). `same` tells a copy (the
 * assistant text too) from a fork made inside the turn, which went on with it differently.
 */
export function uuidHolders(
  db: Database,
  origin: string,
  turns: readonly { uuid: string; startedAt: number; user: string; assistant: string }[],
): UuidHolder[] {
  if (turns.length === 0) return [];
  return db
    .query<UuidHolder, { turns: string; origin: string }>(
      `SELECT t.uuid, t.origin_session_id, t.turn_number, t.started_at, coalesce(s.created_at, t.started_at) AS born,
              coalesce(a.text, '') = json_extract(j.value, '$.assistant') AS same
       FROM json_each($turns) j
       JOIN turns t ON t.uuid = json_extract(j.value, '$.uuid') AND t.started_at = json_extract(j.value, '$.startedAt')
       JOIN bodies b ON b.turn_id = t.id AND b.role = 'user' AND b.text = json_extract(j.value, '$.user')
       LEFT JOIN bodies a ON a.turn_id = t.id AND a.role = 'assistant'
       LEFT JOIN sessions s ON s.id = t.origin_session_id
       WHERE t.origin_session_id <> $origin`,
    )
    .all({ turns: JSON.stringify(turns), origin });
}

/**
 * Which of two sessions holding the same entry holds the original: the one born first (its
 * `created_at`: the first timestamp of its file, or when a hook saw it start), then the smaller id.
 */
export function bornBefore(a: { id: string; born: number }, b: { id: string; born: number }): boolean {
  return a.born < b.born || (a.born === b.born && a.id < b.id);
}

/**
 * Remove turns of `origin` that turned out to be copies of an older session's (its file was
 * read before its parent's), with their events; the origin's remaining events are numbered
 * again from 1, as they would have been had the copies never been stored.
 */
export function dropCopiedTurns(db: Database, origin: string, numbers: readonly number[]): void {
  if (numbers.length === 0) return;
  const p = { origin, ns: JSON.stringify(numbers) };
  db.query(
    "DELETE FROM turns WHERE origin_session_id = $origin AND turn_number IN (SELECT value FROM json_each($ns))",
  ).run(p);
  db.query(
    "DELETE FROM events WHERE origin_session_id = $origin AND turn_number IN (SELECT value FROM json_each($ns))",
  ).run(p);
  renumberEvents(db, origin);
}

/**
 * Events of `origin`'s turn `number` that another session's turn recorded too (`ikeys`: the
 * same tool calls, copied into a fork made inside that turn): they belong to the older session.
 */
export function dropSharedEvents(
  db: Database,
  origin: string,
  number: number,
  ikeys: readonly string[],
): void {
  if (ikeys.length === 0) return;
  const gone = db
    .query(
      `DELETE FROM events WHERE origin_session_id = $origin AND turn_number = $n
       AND ikey IN (SELECT value FROM json_each($ikeys))`,
    )
    .run({ origin, n: number, ikeys: JSON.stringify(ikeys) }).changes;
  if (gone > 0) renumberEvents(db, origin);
}

function renumberEvents(db: Database, origin: string): void {
  db.query(
    `UPDATE events SET seq = r.n
     FROM (SELECT id, row_number() OVER (ORDER BY seq, id) AS n FROM events WHERE origin_session_id = $origin) r
     WHERE events.id = r.id AND events.seq <> r.n`,
  ).run({ origin });
}

/**
 * `session` was forked after the turn whose prompt uuid is `uuid` (started at `startedAt`):
 * kept unless the session already records a later fork point (a file read in several runs).
 */
export function setForkPoint(db: Database, session: string, uuid: string, startedAt: number): void {
  db.query(
    `UPDATE sessions SET fork_uuid = $uuid
     WHERE id = $session AND fork_uuid IS NOT $uuid AND (fork_uuid IS NULL OR
       coalesce((SELECT max(started_at) FROM turns WHERE uuid = sessions.fork_uuid), -1) <= $at)`,
  ).run({ session, uuid, at: startedAt });
}

/** One stored set of rows a chain reads: its own (no bound), or a parent's up to the fork point. */
export interface ChainPart {
  key: string;
  /** The fork point: rows ordered after this turn (`started_at, origin, number`) are not read. */
  bound: { at: number; origin: string; number: number; endedAt: number } | null;
}

/** Forks of forks are followed this far (a damaged database could hold a cycle). */
const MAX_FORK_HOPS = 64;

interface PartRow {
  key: string;
  pkey: string | null;
  at: number | null;
  origin: string | null;
  num: number | null;
  ended: number | null;
}

/**
 * The parts the chain holding `id` reads, its own first. One statement for a chain that is not
 * a fork (the usual case); one more per fork level.
 */
export function chainParts(db: Database, id: string): ChainPart[] {
  const q = db.query<PartRow, { id: string }>(
    `SELECT k.key, ft.session_id AS pkey, ft.started_at AS at, ft.origin_session_id AS origin,
            ft.turn_number AS num, ft.ended_at AS ended
     FROM (SELECT ${chainKeyOf("$id")} AS key) k
     LEFT JOIN turns ft ON ft.uuid = (SELECT s.fork_uuid FROM sessions s WHERE s.chain = k.key AND s.fork_uuid IS NOT NULL
                                      ORDER BY s.created_at, s.id LIMIT 1)
     ORDER BY ft.started_at DESC LIMIT 1`,
  );
  const parts: ChainPart[] = [];
  const seen = new Set<string>();
  let next: string | null = id;
  let bound: ChainPart["bound"] = null;
  for (let hop = 0; next !== null && hop <= MAX_FORK_HOPS; hop++) {
    const row: PartRow | null = q.get({ id: next });
    if (!row || seen.has(row.key)) break;
    seen.add(row.key);
    parts.push({ key: row.key, bound });
    if (row.pkey === null || row.at === null || row.origin === null || row.num === null) break;
    const here = { at: row.at, origin: row.origin, number: row.num, endedAt: row.ended ?? row.at };
    // A fork of a fork reads the grandparent no further than either fork point.
    bound = bound === null || !turnAfter(bound, here) ? here : bound;
    next = row.pkey;
  }
  return parts;
}

function turnAfter(a: { at: number; origin: string; number: number }, b: typeof a): boolean {
  if (a.at !== b.at) return a.at > b.at;
  if (a.origin !== b.origin) return a.origin > b.origin;
  return a.number > b.number;
}

/**
 * SQL for "row `alias` of table turns (or events, `events: true`) belongs to one of `parts`",
 * with its parameters (`$ck0`, …) added to `params`. A chain that is not a fork reads
 * `<alias>.session_id = $ck0`: the same index walk as before forks existed.
 */
export function partsWhere(
  parts: readonly ChainPart[],
  alias: string,
  params: Record<string, string | number>,
  opts: { events?: boolean } = {},
): string {
  const terms = parts.map((p, i) => {
    params[`ck${i}`] = p.key;
    if (p.bound === null) return `${alias}.session_id = $ck${i}`;
    if (opts.events) {
      params[`ce${i}`] = p.bound.endedAt;
      return `(${alias}.session_id = $ck${i} AND ${alias}.ts <= $ce${i})`;
    }
    params[`ca${i}`] = p.bound.at;
    params[`co${i}`] = p.bound.origin;
    params[`cn${i}`] = p.bound.number;
    return `(${alias}.session_id = $ck${i} AND (${alias}.started_at, ${alias}.origin_session_id, ${alias}.turn_number) <= ($ca${i}, $co${i}, $cn${i}))`;
  });
  return terms.length === 1 ? terms[0]! : `(${terms.join(" OR ")})`;
}

/**
 * `forget` is about to delete the turns `ids`: a fork whose fork point is one of them moves it to
 * the newest older turn left in the same chain (none: the fork then reads its own turns only),
 * so the fork still reads what remains of its parent, with the same gap the parent shows.
 */
export function moveForkPoints(db: Database, ids: readonly number[]): void {
  if (ids.length === 0) return;
  db.query(
    `UPDATE sessions SET fork_uuid = (
       SELECT p.uuid FROM turns f JOIN turns p ON p.session_id = f.session_id
       WHERE f.uuid = sessions.fork_uuid AND p.uuid IS NOT NULL
         AND (p.started_at, p.origin_session_id, p.turn_number) < (f.started_at, f.origin_session_id, f.turn_number)
         AND p.id NOT IN (SELECT value FROM json_each($ids))
       ORDER BY p.started_at DESC, p.origin_session_id DESC, p.turn_number DESC LIMIT 1)
     WHERE fork_uuid IN (SELECT uuid FROM turns WHERE id IN (SELECT value FROM json_each($ids)) AND uuid IS NOT NULL)`,
  ).run({ ids: JSON.stringify(ids) });
}
