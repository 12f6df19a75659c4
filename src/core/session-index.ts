/**
 * The session-index convention of the original `/recall` skill (docs/monitor.md): plain files
 * a skill can read without throughline,
 * `$CLAUDE_CONFIG_DIR/projects/<project-hash>/memory/session-index/<session-id>/events.jsonl`
 * (one `{"ts","seq","type","summary","detail"}` per line, append-only) and `summary.md`.
 * Pure: paths and lines from database rows; the files are written by src/capture/session-index.ts.
 */

import { formatIso } from "./clock.ts";
import { EVENT_TYPES, type EventType, summaryLine } from "./events.ts";
import { type JsonObject, objectOrEmpty } from "./jsonl.ts";

export const SESSION_INDEX_ENV = "THROUGHLINE_SESSION_INDEX";

/** Opt-in: `install --session-index` puts the variable in settings.json `env`, which hooks inherit. */
export function sessionIndexEnabled(env: Record<string, string | undefined>): boolean {
  const v = env[SESSION_INDEX_ENV];
  return v === "1" || v === "true";
}

/** First 16 hex digits of SHA-256 of the absolute project directory (`sha256sum | cut -c1-16`). */
export function projectHash(project: string): string {
  return new Bun.CryptoHasher("sha256").update(project).digest("hex").slice(0, 16);
}

export function sessionIndexRoot(configDir: string, project: string): string {
  return `${configDir}/projects/${projectHash(project)}/memory/session-index`;
}

export function sessionIndexDir(configDir: string, project: string, sessionId: string): string {
  return `${sessionIndexRoot(configDir, project)}/${sessionId}`;
}

export interface IndexEventRow {
  ts: number;
  seq: number;
  type: EventType;
  summary: string;
  /** As stored: JSON text. */
  detail: string;
}

export interface IndexEvent {
  ts: string;
  seq: number;
  type: EventType;
  summary: string;
  detail: JsonObject;
}

export const INDEX_TYPES: readonly EventType[] = EVENT_TYPES;

/** One event as the convention writes it; the same row gives the same line on every run. */
export function indexEvent(r: IndexEventRow): IndexEvent {
  // A damaged detail reads as {}: the event still keeps its summary.
  const detail = objectOrEmpty(r.detail);
  return {
    ts: formatIso(r.ts),
    seq: r.seq,
    type: r.type,
    summary: summaryLine(r.summary),
    detail,
  };
}

export function indexLine(r: IndexEventRow): string {
  return `${JSON.stringify(indexEvent(r))}\n`;
}

/** The `seq` of the last complete line of an events.jsonl tail, or 0 when there is none. */
export function lastSeq(tail: string): number {
  const lines = tail.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    if (!l.startsWith("{") || (i === lines.length - 1 && !tail.endsWith("\n"))) continue;
    try {
      const v = JSON.parse(l) as { seq?: unknown };
      if (typeof v.seq === "number") return v.seq;
    } catch {
      // an unterminated or damaged line: look further back
    }
  }
  return 0;
}
