/** Subagent transcripts: each becomes one L3 row of the parent turn during which it ran. */

import type { Database } from "bun:sqlite";
import { existsSync, fstatSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { EventDraft } from "../core/events.ts";
import { splitLines } from "../core/jsonl.ts";
import type { DetailDraft } from "../core/model.ts";
import { assembleSubagent } from "../core/subagent.ts";
import { saveCursor, turnAt, upsertSubagentDetail } from "../db/queries/capture.ts";
import { insertEvents } from "../db/queries/events.ts";
import { chainKey, getSession } from "../db/queries/sessions.ts";
import { writeTransaction } from "../db/tx.ts";
import { type IngestResult, unchanged } from "./ingest.ts";
import { eventsOf, redactDetail } from "./ingest-plan.ts";
import {
  fingerprintAfterRead,
  type Observed,
  observe,
  readRange,
  sameObserved,
  sessionIdFromPath,
  withFile,
} from "./transcript-read.ts";

/** `<dir>/<session>.jsonl` → `<dir>/<session>/subagents/agent-*.jsonl` (Claude Code 2.1+ layout). */
export function subagentFiles(transcriptPath: string): string[] {
  const dir = join(dirname(transcriptPath), sessionIdFromPath(transcriptPath), "subagents");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith("agent-") && f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f))
    .filter(isRegularFile);
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

interface SubagentPlan {
  observed: Observed;
  identity: string;
  origin: string;
  agent: string;
  firstTimestamp: number | undefined;
  detail: DetailDraft;
  events: EventDraft[];
  consumedTo: number;
  skipped: number;
}

function planSubagent(path: string, observed: Observed, parentSessionId: string | undefined): SubagentPlan {
  const { lines, consumedTo, identity } = withFile(path, (fd) => {
    const buf = readRange(fd, 0, observed.size);
    const split = splitLines(buf, 0);
    return { ...split, identity: fingerprintAfterRead(fd, fstatSync(fd), buf, 0, split.consumedTo, null) };
  });
  const sub = assembleSubagent(lines);
  return {
    observed,
    identity,
    origin: parentSessionId ?? sub.sessionId ?? sessionIdFromPath(path),
    agent: sub.agentId ?? basename(path).replace(/\.jsonl$/, ""),
    firstTimestamp: sub.firstTimestamp,
    detail: redactDetail(sub.detail),
    events: eventsOf(sub.toolCalls),
    consumedTo,
    skipped: sub.skippedLines,
  };
}

function subagentDone(o: Observed): boolean {
  return o.cursor !== null && o.valid && o.cursor.size === o.size;
}

/** A subagent transcript becomes one L3 row of the parent turn during which it ran. */
export function ingestSubagent(
  db: Database,
  path: string,
  now: number,
  parentSessionId?: string,
): IngestResult {
  const first = observe(db, path);
  const result = (o: Observed): IngestResult => unchanged({ path, sessionId: parentSessionId }, o.cursor);
  if (subagentDone(first)) return result(first);
  const plan = planSubagent(path, first, parentSessionId);
  // IMMEDIATE for the same reason as ingestTranscript: the turn lookup decides the write.
  return writeTransaction(db, (): IngestResult => {
    const again = observe(db, path);
    if (subagentDone(again)) return result(again); // a parallel hook stored this very file
    const p = sameObserved(first, again) ? plan : planSubagent(path, again, parentSessionId);
    const turn = turnAt(db, p.origin, p.firstTimestamp ?? now);
    const chain = turn?.session_id ?? chainKey(db, p.origin);
    upsertSubagentDetail(db, {
      turnId: turn?.id ?? null,
      sessionId: chain,
      originSessionId: p.origin,
      key: `${p.origin}:agent:${p.agent}`,
      detail: p.detail,
    });
    const events = insertEvents(
      db,
      {
        sessionId: chain,
        originSessionId: p.origin,
        project: getSession(db, p.origin)?.project ?? null,
        turnNumber: turn?.turn_number ?? null,
      },
      p.events,
    );
    saveCursor(db, {
      transcript_path: path,
      session_id: p.origin,
      offset: p.consumedTo,
      turn_offset: 0,
      turn_number: 0,
      identity: p.identity,
      size: p.observed.size,
      skipped_lines: p.skipped,
      updated_at: now,
    });
    return {
      ...result(again),
      sessionId: p.origin,
      details: 1,
      events,
      skippedLines: p.skipped,
      bytes: p.consumedTo,
    };
  });
}
