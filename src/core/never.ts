/**
 * The `never` list (docs/memory-control.md): projects and sessions throughline must not
 * capture. It lives in a small text file, `$THROUGHLINE_HOME/never`, that `pause`/`resume`
 * edit and a person can edit by hand. Pure: the caller reads the file.
 *
 *   # comment
 *   project /home/me/secret-client
 *   session 5e1f0c2a-9b7d-4c3e-8a21-0f6b2d9c4e17
 */
import type { Env } from "./paths.ts";
import { normalizeProject, throughlineHome } from "./paths.ts";

export interface NeverList {
  projects: string[];
  sessions: string[];
}

export const NEVER_FILE = "never";

export function neverPath(env: Env): string {
  return `${throughlineHome(env)}/${NEVER_FILE}`;
}

/** Unknown lines are kept out of the list, never an error: a hook must not fail on a typo. */
export function parseNever(text: string): NeverList {
  const out: NeverList = { projects: [], sessions: [] };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(project|session)\s+(.+)$/.exec(line);
    if (!m) continue;
    const value = m[2]!.trim();
    if (m[1] === "project") {
      const p = normalizeProject(value);
      if (!out.projects.includes(p)) out.projects.push(p);
    } else if (!out.sessions.includes(value)) out.sessions.push(value);
  }
  return out;
}

export function formatNever(list: NeverList): string {
  const lines = [
    "# throughline never list: these are not captured (docs/memory-control.md).",
    "# One entry per line: `project <dir>` (that directory and everything under it) or `session <id>`.",
    ...list.projects.map((p) => `project ${p}`),
    ...list.sessions.map((s) => `session ${s}`),
  ];
  return `${lines.join("\n")}\n`;
}

export function isEmptyNever(list: NeverList): boolean {
  return list.projects.length === 0 && list.sessions.length === 0;
}

/** Is `dir` the listed directory or inside it? */
function within(dir: string, listed: string): boolean {
  if (dir === listed) return true;
  const prefix = listed.endsWith("/") ? listed : `${listed}/`;
  return dir.startsWith(prefix);
}

/**
 * Whether a session is listed, by its id or by a directory: its project (the git root) or the
 * directory it runs in may each be the listed one or lie under it.
 */
export function isNever(
  list: NeverList,
  who: { sessionId?: string | null; project?: string | null; cwd?: string | null },
): boolean {
  if (who.sessionId && list.sessions.includes(who.sessionId)) return true;
  const dirs = [who.project, who.cwd].filter((d): d is string => typeof d === "string" && d !== "");
  return dirs.some((d) => {
    const n = normalizeProject(d);
    return list.projects.some((p) => within(n, p));
  });
}
