/**
 * The never list's file, `$THROUGHLINE_HOME/never` (docs/memory-control.md): read and written
 * by `pause`/`resume`, read by `import` to pass listed transcripts over.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { formatNever, isEmptyNever, isNever, type NeverList, neverPath, parseNever } from "../core/never.ts";
import { type Env, throughlineHome } from "../core/paths.ts";
import { projectOf } from "../db/project.ts";
import { headEntries } from "./transcript-head.ts";

export function readNever(env: Env): NeverList {
  try {
    return parseNever(readFileSync(neverPath(env), "utf8"));
  } catch {
    return { projects: [], sessions: [] };
  }
}

export function writeNever(env: Env, list: NeverList): void {
  const dir = throughlineHome(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = neverPath(env);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, formatNever(list), { mode: 0o600 });
  renameSync(tmp, path);
}

/** The session id and working directory a transcript file belongs to (its first entry with a cwd). */
function transcriptOwner(file: string): { sessionId: string; cwd: string | null } {
  const parts = file.split("/");
  const sub = parts.lastIndexOf("subagents");
  const sessionId =
    sub > 0
      ? parts[sub - 1]!
      : basename(file)
          .replace(/\.jsonl$/, "")
          .replace(/\.sub-agent-.*$/, "");
  let cwd: string | null = null;
  try {
    for (const e of headEntries(file))
      if (typeof e.cwd === "string" && e.cwd) {
        cwd = e.cwd;
        break;
      }
  } catch {
    // unreadable: the ingest reports it
  }
  return { sessionId, cwd };
}

/**
 * For `import`: a filter that passes over transcripts of listed sessions and projects, or null
 * when nothing is listed (the common case costs nothing).
 */
export function neverTranscriptFilter(env: Env): ((file: string) => boolean) | null {
  const list = readNever(env);
  if (isEmptyNever(list)) return null;
  return (file) => {
    const who = transcriptOwner(file);
    return !isNever(list, {
      sessionId: who.sessionId,
      cwd: who.cwd,
      project: who.cwd ? projectOf(who.cwd, env) : null,
    });
  };
}
