/**
 * The only module that opens SQLite connections. Writers (hooks, replay, migrate) create the
 * database; readers open it `readonly` and never create, migrate or checkpoint it.
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { ThroughlineError } from "../errors.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";

export type { Database };

export const BUSY_TIMEOUT_MS = 5000;

export type MigrateStatus =
  | "not_applicable"
  | "already_current"
  | "migrated"
  | "future_schema"
  | "migration_failed";

function userVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function futureSchema(path: string, version: number): ThroughlineError {
  return new ThroughlineError(
    "E_FUTURE_SCHEMA",
    `the database at ${path} has schema version ${version}, newer than this throughline (${SCHEMA_VERSION}); upgrade throughline`,
  );
}

/** Apply pending migrations in one IMMEDIATE transaction, re-checking the version inside it. */
export function migrate(db: Database, path: string): { status: MigrateStatus; from: number; to: number } {
  const from = userVersion(db);
  if (from === SCHEMA_VERSION) return { status: "already_current", from, to: from };
  if (from > SCHEMA_VERSION) throw futureSchema(path, from);
  db.run("BEGIN IMMEDIATE");
  try {
    const v = userVersion(db);
    for (let i = v; i < SCHEMA_VERSION; i++) db.run(MIGRATIONS[i]!);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.run("COMMIT");
  } catch (err) {
    db.run("ROLLBACK");
    throw new ThroughlineError(
      "E_MIGRATION_FAILED",
      `migration of ${path} failed: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  return { status: "migrated", from, to: SCHEMA_VERSION };
}

/** Read-write connection for hooks and other writers; creates the directory (0700) and file (0600). */
export function openForWrite(path: string): Database {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Side files (-wal, -shm) are created by SQLite with the process umask: make them private too.
  const oldMask = process.umask(0o077);
  let db: Database;
  try {
    const fresh = !existsSync(path);
    db = new Database(path, { create: true, strict: true });
    if (fresh) chmodSync(path, 0o600);
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Refuse a newer schema before anything (even the journal mode) is changed.
    const version = userVersion(db);
    if (version > SCHEMA_VERSION) {
      db.close();
      throw futureSchema(path, version);
    }
    const mode = (db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
    if (mode.toLowerCase() !== "wal") db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    db.run("PRAGMA foreign_keys = ON");
    migrate(db, path);
  } finally {
    process.umask(oldMask);
  }
  return db;
}

export function missingDatabase(path: string): ThroughlineError {
  return new ThroughlineError(
    "E_NO_DATABASE",
    `no throughline database at ${path}; run \`throughline install\` or \`throughline import\``,
  );
}

/** Schema version of an existing file, read without opening it for writing. */
export function peekUserVersion(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return userVersion(db);
  } finally {
    db.close();
  }
}

/** Read-only connection; a missing file is a clear error and is never created. */
export function openForRead(path: string): Database {
  if (!existsSync(path)) throw missingDatabase(path);
  let db: Database;
  try {
    db = new Database(path, { readonly: true, strict: true });
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (err) {
    throw new ThroughlineError("E_OPEN", `cannot open ${path}: ${(err as Error).message}`, { cause: err });
  }
  const v = userVersion(db);
  if (v > SCHEMA_VERSION) {
    db.close();
    throw futureSchema(path, v);
  }
  if (v < SCHEMA_VERSION) {
    db.close();
    throw new ThroughlineError(
      "E_OLD_SCHEMA",
      `the database at ${path} has schema version ${v}; run \`throughline migrate\` to bring it to ${SCHEMA_VERSION}`,
    );
  }
  return db;
}
