/**
 * Project identity, the one answer every hook and command uses (docs/project-identity.md):
 * `projectOf` maps a directory to its project with a few stat calls (a walk up for `.git`, no
 * `git` subprocess: hooks are cold processes); `findProject` is the lookup of a command run in
 * some directory; `Scope` is what every read is limited to.
 */
import type { Database } from "bun:sqlite";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { ancestors, type Env, normalizeProject, type ProjectFs, projectIdentity } from "../core/paths.ts";

/** Which rows a read looks at: one chain, every session of a project, or everything. */
export type Scope = { kind: "chain"; live: string } | { kind: "project"; project: string } | { kind: "all" };

export const nodeProjectFs: ProjectFs = {
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  },
  gitEntry(dir) {
    const p = `${dir === "/" ? "" : dir}/.git`;
    try {
      const st = statSync(p);
      if (st.isDirectory()) return { kind: "dir" };
      if (st.isFile()) return { kind: "file", text: readFileSync(p, "utf8").slice(0, 4096) };
    } catch {
      // no .git here
    }
    return null;
  },
  readText(path) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return null;
    }
  },
};

export function projectOf(cwd: string, env: Env = process.env): string {
  return projectIdentity(cwd, nodeProjectFs, env.HOME ?? env.USERPROFILE);
}

/**
 * The project a command run in `dir` reads: `projectOf(dir)` when the database knows it, else
 * the deepest directory at or above `dir` that it knows (rows written before project identity
 * followed git, or replayed from a transcript's own cwd). Null when nothing matches.
 */
export function findProject(db: Database, dir: string, env: Env = process.env): string | null {
  const known = db.query<{ x: number }, { p: string }>(
    `SELECT 1 AS x WHERE EXISTS (SELECT 1 FROM sessions WHERE project = $p)
       OR EXISTS (SELECT 1 FROM events WHERE project = $p)`,
  );
  const identity = projectOf(dir, env);
  if (known.get({ p: identity })) return identity;
  for (const p of ancestors(normalizeProject(dir))) if (known.get({ p })) return p;
  return null;
}
