/**
 * The one way to run a write that depends on what it reads: an IMMEDIATE transaction takes the
 * write lock first, so it waits for busy_timeout instead of failing with SQLITE_BUSY when it
 * upgrades from reading to writing. Every write site uses it (docs/architecture.md, "One of each";
 * test/architecture.test.ts).
 */
import type { Database } from "bun:sqlite";

export function writeTransaction<T>(db: Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}
