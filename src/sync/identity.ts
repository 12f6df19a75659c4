/**
 * A project's identity across machines (docs/sync.md, "One project across machines"): the
 * repository's root commit, else its normalised origin URL, else none (the directory stays its
 * own project). Worked out by sync only, with the system git, and kept per directory in the
 * database: hooks never spawn git (docs/project-identity.md, "Cost").
 */
import { existsSync } from "node:fs";
import { runGit } from "./git.ts";

/** `git@github.com:Me/x.git`, `https://me@github.com/Me/x`, `ssh://git@github.com/Me/x.git/` → `github.com/Me/x`. */
export function normalizeOrigin(url: string): string {
  let u = url
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(u);
  if (scheme) u = u.slice(scheme[0].length);
  else {
    const scp = /^([^/@]+@)?([^/:]+):(?!\/)(.*)$/.exec(u);
    if (scp) u = `${scp[2]}/${scp[3]}`;
  }
  u = u.replace(/^[^/@]+@/, "");
  const slash = u.indexOf("/");
  const host = (slash < 0 ? u : u.slice(0, slash)).toLowerCase().replace(/:\d+$/, "");
  return slash < 0 ? host : `${host}${u.slice(slash)}`;
}

/** The identity of the project at `dir`, or null when it is not a repository here. */
export function projectKeyOf(dir: string): string | null {
  if (!existsSync(`${dir}/.git`)) return null;
  const roots = runGit(null, ["-C", dir, "rev-list", "--max-parents=0", "HEAD"]);
  if (roots.code === 0) {
    const first = roots.stdout.toString().split("\n").filter(Boolean).sort()[0];
    if (first) return `root:${first}`;
  }
  const origin = runGit(null, ["-C", dir, "config", "--get", "remote.origin.url"]);
  if (origin.code === 0 && origin.stdout.toString().trim() !== "")
    return `origin:${normalizeOrigin(origin.stdout.toString())}`;
  return null;
}
