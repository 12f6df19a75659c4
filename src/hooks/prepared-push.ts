/**
 * The prepared push (docs/contract.md, "The prepared push"). The Stop worker runs behind the
 * client, with the chain just ingested: it renders what a successor of the chain would be pushed,
 * with a placeholder of a session id's length where the successor's id goes. The first prompt
 * after a /clear then prints it, the placeholder replaced, when the handoff merged exactly that
 * chain and nothing a push is rendered from changed since (the content generation, raised by
 * triggers). Otherwise it renders as before; either way the text is the same.
 */
import type { ContextStats } from "../core/context.ts";
import type { Database } from "../db/open.ts";
import { contentGeneration, deletePrepared, getPrepared, putPrepared } from "../db/queries/prepared.ts";
import { writeTransaction } from "../db/tx.ts";
import { VERSION } from "../version.ts";

/** Client session ids are UUIDs: the placeholder is one, so the budget counts the same length. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Render and store the push a successor of `live` would get, as of the current generation. */
export function preparePush(db: Database, live: string, invocation: string, now: number): void {
  if (!SESSION_ID.test(live)) return;
  // Loaded here, not at the top: the handoff imports this module for takePrepared, and a prepared
  // push is there to spare it the renderer.
  const { renderContext } = require("../core/context.ts") as typeof import("../core/context.ts");
  const { loadContextInput } = require("../db/queries/chain.ts") as typeof import("../db/queries/chain.ts");
  // Rendered outside the write lock, which other hooks may be waiting for: any write meanwhile
  // raises the generation, and the row is stored only if it did not move.
  const generation = contentGeneration(db);
  // Random: 122 bits no transcript holds by chance, so every occurrence is the id.
  const placeholder = crypto.randomUUID();
  const result = renderContext({ ...loadContextInput(db, live), sessionId: placeholder }, invocation);
  writeTransaction(db, () => {
    if (contentGeneration(db) !== generation) return;
    putPrepared(db, {
      session_id: live,
      generation,
      version: VERSION,
      invocation,
      placeholder,
      text: result.text,
      stats: result.stats,
      created_at: now,
    });
  });
}

/** What the handoff did that a prepared push depends on. */
export interface HandoffTrace {
  /** The content generation when the handoff's transaction began, before any of its writes. */
  generation: number;
  /** The live ends merged into the new session, in order (a cleared predecessor passes its own on). */
  merged: string[];
  /** Whether reading a predecessor's transcript further during the handoff changed anything. */
  ingested: boolean;
  /** The sessions whose SessionStart intent this handoff claimed (their links chosen just now). */
  claimed: string[];
  /** The transcripts the handoff looked at to finish reading them (a rehearsal's state includes them). */
  transcripts: string[];
}

/**
 * The prepared push for `sessionId` after a handoff that merged one chain, or null when it
 * cannot stand in for a render: none prepared for that chain, another version or invocation,
 * a change since (the generation moved), more than one merge, or a read of the transcript.
 */
export function takePrepared(
  db: Database,
  sessionId: string,
  trace: HandoffTrace,
  invocation: string,
): { text: string; stats: ContextStats } | null {
  if (trace.merged.length !== 1) return null;
  const pred = trace.merged[0]!;
  const row = getPrepared(db, pred);
  if (row) deletePrepared(db, pred); // its chain has a new live end now: the row would only go stale
  if (
    !row ||
    trace.ingested ||
    row.generation !== trace.generation ||
    row.version !== VERSION ||
    row.invocation !== invocation ||
    !SESSION_ID.test(sessionId) ||
    row.placeholder.length !== sessionId.length
  )
    return null;
  return { text: row.text.split(row.placeholder).join(sessionId), stats: row.stats };
}
