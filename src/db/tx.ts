/**
 * Transactions. The one way to run a write that depends on what it reads: an IMMEDIATE
 * transaction takes the write lock first, so it waits for busy_timeout instead of failing with
 * SQLITE_BUSY when it upgrades from reading to writing. Every write site uses it
 * (docs/architecture.md, "One of each"; test/architecture.test.ts). Every read command's
 * statements run in one read transaction (`withReader`, src/db/open.ts).
 */
import type { Database } from "bun:sqlite";

export function writeTransaction<T>(db: Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/**
 * `fn` in one read transaction: every statement reads the same snapshot even while hooks write
 * (a WAL reader keeps its snapshot until COMMIT). For an async `fn` the transaction ends when it
 * returns its promise, so the snapshot covers its synchronous part only.
 */
export function readTransaction<T>(db: Database, fn: () => T): T {
  db.run("BEGIN");
  try {
    return fn();
  } finally {
    if (db.inTransaction) db.run("COMMIT");
  }
}
