/**
 * doctor's line about sync (docs/sync.md): the remote, the last sync, and what waits to be
 * published. Information, never a problem: a machine that does not sync is fine.
 */
import { existsSync } from "node:fs";
import { formatIso } from "../core/clock.ts";
import { plural } from "../core/text.ts";
import { openForRead } from "../db/open.ts";
import { syncState, syncWaiting } from "../db/queries/sync.ts";
import type { Check } from "../render/doctor.ts";

export function syncCheck(dbPath: string): Check {
  const off: Check = {
    name: "sync",
    ok: true,
    detail:
      "off: `throughline sync --remote <git url or path>` shares this memory with your other machines (docs/sync.md)",
  };
  if (!existsSync(dbPath)) return off;
  let db: ReturnType<typeof openForRead>;
  try {
    db = openForRead(dbPath);
  } catch {
    return off; // doctor's database checks say why
  }
  try {
    const state = syncState(db);
    if (!state.remote) return off;
    const w = syncWaiting(db);
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
  } catch {
    return off; // a database older than sync (schema 13): nothing recorded
  } finally {
    db.close();
  }
}
