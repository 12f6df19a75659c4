/**
 * Project identity, the one answer every hook and command uses (docs/project-identity.md):
 * `projectOf` maps a directory to its project with a few stat calls (a walk up for `.git`, no
 * `git` subprocess: hooks are cold processes); `findProject` is the lookup of a command run in
 * some directory; `Scope` is what every read is limited to.
 */

import type { Database } from "bun:sqlite";
import {
  ancestors,
  type Env,
  joinPath,
  normalizeProject,
  type ProjectFs,
  projectIdentity,
} from "../core/paths.ts";
import type { ChainPart } from "./queries/forks.ts";

/** Which rows a read looks at: one chain, every session of a project, or everything. */
export type Scope =
  /** `parts`: where a fork's reads of events reach its parent (docs/contract.md#forks); absent: the chain's own. */
  | { kind: "chain"; live: string; parts?: readonly ChainPart[] }
  | { kind: "project"; project: string }
  | { kind: "all" };

/** `node:fs` costs a cold process ~2 ms to load (docs/benchmarks.md): loaded only for the rare cases below. */
const nodeFs = (): typeof import("node:fs") => require("node:fs");

/**
 * What project identity reads, answered natively where it can be. Every hook and most commands
 * ask it once per process, so the usual case (a directory, inside a repository whose `.git` is a
 * directory) loads no module; a `.git` file (a worktree, a submodule) and the texts it points
 * to are read with `node:fs`.
 */
const projectFs: ProjectFs = {
  realpath(path) {
    // The kernel resolves a directory when the process enters it: `pwd -P`, without node:fs.
    let here: string;
    try {
      here = process.cwd();
    } catch {
      here = "";
    }
    if (here !== "")
      try {
        process.chdir(path);
        try {
          return process.cwd();
        } finally {
          process.chdir(here);
        }
      } catch (err) {
        // Gone or not a directory: realpath could not resolve it either. Anything else (a
        // directory we may not enter) is asked of node:fs below.
        const code = (err as { code?: string }).code;
        if (code === "ENOENT" || code === "ENOTDIR") return path;
      }
    try {
      return nodeFs().realpathSync(path);
    } catch {
      return path;
    }
  },
  gitEntry(dir) {
    const p = `${dir === "/" ? "" : dir}/.git`;
    // Every git directory holds a HEAD file; a missing `.git` has no bytes.
    if (Bun.file(`${p}/HEAD`).size > 0) return { kind: "dir" };
    if (Bun.file(p).size === 0) return null;
    try {
      const st = nodeFs().statSync(p);
      if (st.isDirectory()) return { kind: "dir" };
      if (st.isFile()) return { kind: "file", text: nodeFs().readFileSync(p, "utf8").slice(0, 4096) };
    } catch {
      // no .git here
    }
    return null;
  },
  readText(path) {
    try {
      return nodeFs().readFileSync(path, "utf8");
    } catch {
      return null;
    }
  },
};

export function projectOf(cwd: string, env: Env = process.env): string {
  return projectIdentity(cwd, projectFs, env.HOME ?? env.USERPROFILE);
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

/**
 * The one reading of `--project <dir>` (docs/project-identity.md, "--project"): the directory,
 * relative to `cwd` when not absolute (`.` when no flag), resolved to the project the database
 * files it under: its identity, or the deepest directory at or above it the database knows
 * (findProject), else its identity. Without a database (pause, resume) the identity.
 */
export function resolveProject(
  db: Database | null,
  flag: string | undefined,
  cwd: string,
  env: Env = process.env,
): string {
  const dir = joinPath(normalizeProject(cwd), flag || ".");
  return (db ? findProject(db, dir, env) : null) ?? projectOf(dir, env);
}
