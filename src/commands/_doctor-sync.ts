/**
 * doctor's line about sync (docs/sync.md): the remote, the last sync, and what waits to be
 * published. Information, never a problem: a machine that does not sync is fine.
 */
import { formatIso } from "../core/clock.ts";
import { plural } from "../core/text.ts";
import { readIfOpens } from "../db/open.ts";
import { syncState, syncWaiting } from "../db/queries/sync.ts";
import type { Check } from "../render/doctor.ts";

export function syncCheck(dbPath: string): Check {
  const off: Check = {
    name: "sync",
    ok: true,
    detail:
      "off: `throughline sync --remote <git url or path>` shares this memory with your other machines (docs/sync.md)",
  };
  let found: { state: ReturnType<typeof syncState>; w: ReturnType<typeof syncWaiting> } | null;
  try {
    found = readIfOpens(dbPath, (db) => {
      const state = syncState(db);
      return state.remote ? { state, w: syncWaiting(db) } : null;
    });
  } catch {
    return off; // a database older than sync (schema 13): nothing recorded
  }
  if (found === null) return off;
  const { state, w } = found;
  const last = state.last_sync ? formatIso(Number(state.last_sync)) : "never";
  const waiting =
    w.sessions + w.tombstones === 0
      ? "nothing waiting"
      : `waiting: ${plural(w.sessions, "session")} with new turns, ${plural(w.tombstones, "tombstone")}`;
  return {
    name: "sync",
    ok: true,
    detail: `remote ${state.remote}, machine ${state.machine ?? "?"}, last sync ${last}; ${waiting}; ${plural(w.foreign, "session")} from other machines${state.republish === "1" ? "; a republish (after forget) is due" : ""}`,
  };
}
