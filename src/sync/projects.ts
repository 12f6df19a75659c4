/**
 * The identity of every project directory the database names, worked out once per directory
 * with git (src/sync/identity.ts) and kept in `sync_projects`; a directory that was no
 * repository is looked at again while it has a `.git`.
 */
import { existsSync } from "node:fs";
import type { Database } from "../db/open.ts";
import { knownProjects, projectKeys, saveProjectKey } from "../db/queries/sync.ts";
import { writeTransaction } from "../db/tx.ts";
import { projectKeyOf } from "./identity.ts";

/**
 * `here`: the project sync runs in (a clone with no session yet still receives its project's
 * sessions and baton from the other machines).
 */
export function refreshProjectKeys(
  db: Database,
  now: number,
  here: string | null,
): Map<string, string | null> {
  const keys = projectKeys(db);
  const fresh: [string, string | null][] = [];
  for (const path of new Set([...knownProjects(db), ...(here ? [here] : [])])) {
    if (keys.get(path)) continue;
    if (keys.has(path) && !existsSync(`${path}/.git`)) continue;
    const key = projectKeyOf(path);
    keys.set(path, key);
    fresh.push([path, key]);
  }
  if (fresh.length > 0)
    writeTransaction(db, () => {
      for (const [path, key] of fresh) saveProjectKey(db, path, key, now);
    });
  return keys;
}
