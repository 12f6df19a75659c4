import type { Database } from "bun:sqlite";

/** The one read of the schema version (`PRAGMA user_version`: how many migrations ran). */
export function schemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}
