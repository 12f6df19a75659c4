import type { Database } from "bun:sqlite";

/** `PRAGMA quick_check`: "ok", or the first problems SQLite found. */
export function quickCheck(db: Database): string {
  return (db.query("PRAGMA quick_check").get() as { quick_check: string }).quick_check;
}

export { schemaVersion } from "../version.ts";
