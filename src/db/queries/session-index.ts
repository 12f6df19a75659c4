/** Reads behind the session-index files (docs/monitor.md): a session's events in `seq` order. */
import type { Database } from "bun:sqlite";
import type { IndexEventRow } from "../../core/session-index.ts";
import { chainKeyOf } from "./sessions.ts";

/** Events a session produced (its own, whichever chain holds them now), `seq` after `afterSeq`. */
export function originEvents(db: Database, origin: string, afterSeq = 0): IndexEventRow[] {
  return db
    .query<IndexEventRow, { o: string; after: number }>(
      `SELECT ts, seq, type, summary, detail FROM events
       WHERE origin_session_id = $o AND seq > $after ORDER BY seq`,
    )
    .all({ o: origin, after: afterSeq });
}

/** The project directory a session's files go under: its session row, else its events. */
export function originProject(db: Database, origin: string): string | null {
  return (
    db
      .query<{ p: string | null }, { o: string }>(
        `SELECT coalesce(
           (SELECT project FROM sessions WHERE id = $o),
           (SELECT project FROM events WHERE origin_session_id = $o AND project IS NOT NULL LIMIT 1)) AS p`,
      )
      .get({ o: origin })?.p ?? null
  );
}

export type IndexScope =
  | { kind: "chain"; live: string }
  | { kind: "project"; project: string }
  | { kind: "all" };

/** Sessions with events in a scope, oldest first. */
export function indexedSessions(db: Database, scope: IndexScope): string[] {
  const where =
    scope.kind === "chain"
      ? `WHERE session_id = ${chainKeyOf("$v")}`
      : scope.kind === "project"
        ? "WHERE project = $v"
        : "";
  const v = scope.kind === "chain" ? scope.live : scope.kind === "project" ? scope.project : "";
  return db
    .query<{ o: string }, { v: string }>(
      `SELECT origin_session_id AS o FROM events ${where} GROUP BY origin_session_id ORDER BY min(ts), o`,
    )
    .all(scope.kind === "all" ? ({} as { v: string }) : { v })
    .map((r) => r.o);
}
