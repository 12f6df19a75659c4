/**
 * Batons across machines (docs/sync.md, "A baton from the desk to the laptop"): a `/tl` made on
 * another machine, for a project this machine has too, becomes this machine's baton when it
 * arrives, and counts its hour from then; each is taken in once.
 */
import type { Database } from "../db/open.ts";
import { localProjectOf, sessionExists, takeBaton } from "../db/queries/sync-apply.ts";
import { writeTransaction } from "../db/tx.ts";
import type { BatonEntry } from "./chunk.ts";
import { listTree, readBlobs, remoteRefs } from "./git.ts";

/** A baton older than this on its machine is not handed on: it was left, not passed. */
const BATON_SYNC_MAX_MS = 12 * 60 * 60 * 1000;

function entriesOf(text: string): BatonEntry[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v)
      ? v.filter(
          (b): b is BatonEntry =>
            typeof b?.project === "string" &&
            typeof b?.session_id === "string" &&
            Number.isSafeInteger(b?.created_at),
        )
      : [];
  } catch {
    return [];
  }
}

export function takeBatons(db: Database, mirror: string, self: string, now: number): number {
  let taken = 0;
  for (const [machine, commit] of remoteRefs(mirror)) {
    if (machine === self) continue;
    const id = listTree(mirror, commit).get("batons.json");
    if (!id) continue;
    const entries = entriesOf(readBlobs(mirror, [id]).get(id)!.toString("utf8"));
    writeTransaction(db, () => {
      for (const b of entries) {
        if (now - b.created_at > BATON_SYNC_MAX_MS || !sessionExists(db, b.session_id)) continue;
        const project = localProjectOf(db, b.project_key ?? null) ?? b.project;
        if (takeBaton(db, { project, session_id: b.session_id, created_at: b.created_at }, now)) taken++;
      }
    });
  }
  return taken;
}
