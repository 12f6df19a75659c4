import type { Database } from "bun:sqlite";

/** `PRAGMA quick_check`: "ok", or the first problems SQLite found. */
export function quickCheck(db: Database): string {
  return (db.query("PRAGMA quick_check").get() as { quick_check: string }).quick_check;
}

export function schemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}
