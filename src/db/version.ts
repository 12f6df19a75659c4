import type { Database } from "bun:sqlite";

/**
 * How many migrations src/db/schema.ts holds (test/db/open.test.ts keeps the two equal). Said here
 * so that opening a database that is current never loads the migrations' text.
 */
export const SCHEMA_VERSION = 16;

/** The one read of the schema version (`PRAGMA user_version`: how many migrations ran). */
export function schemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}
