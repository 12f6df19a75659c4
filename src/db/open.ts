/**
 * The only module that opens SQLite connections. Writers (hooks, replay, migrate) create the
 * database; readers open it `readonly` and never create, migrate or checkpoint it.
 */
import { constants, Database } from "bun:sqlite";
import { ThroughlineError } from "../errors.ts";
import { ensureMarks } from "./marks/pending.ts";
import { dropReadMarks } from "./marks/read.ts";
import { fileOf } from "./marks/store.ts";
import { readTransaction, writeTransaction } from "./tx.ts";
import { SCHEMA_VERSION, schemaVersion } from "./version.ts";

export type { Database };

export const BUSY_TIMEOUT_MS = 5000;
/** How much of the file a reader may map: SQLite caps it (~2 GiB in Bun's build; a heavy user's year is ~0.5 GiB). */
export const READ_MAP_BYTES = 2 ** 32;

export type MigrateStatus =
  | "not_applicable"
  | "already_current"
  | "migrated"
  | "future_schema"
  | "migration_failed";

const userVersion = schemaVersion;

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
  // Loaded only to migrate: ~0.1 ms of a cold start otherwise spent on every open.
  const { MIGRATIONS } = require("./schema.ts") as typeof import("./schema.ts");
  try {
    writeTransaction(db, () => {
      for (let i = userVersion(db); i < SCHEMA_VERSION; i++) {
        const m = MIGRATIONS[i]!;
        if (typeof m === "string") db.run(m);
        else m(db);
      }
      db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  } catch (err) {
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

/**
 * Switching a new file to WAL needs every other connection out of the way, and SQLite answers
 * "database is locked" at once instead of waiting on busy_timeout: several writers creating the
 * database together (parallel hooks or replays on a fresh install) retry within the same bound.
 */
function enableWal(db: Database): void {
  for (const deadline = Date.now() + BUSY_TIMEOUT_MS; ; ) {
    try {
      // A switch that cannot happen yet can also just answer the old mode: try again then too.
      const row = db.query("PRAGMA journal_mode = WAL").get() as { journal_mode: string };
      if (row.journal_mode.toLowerCase() === "wal") return;
      if (Date.now() > deadline) throw new Error(`journal mode stays ${row.journal_mode}`);
    } catch (err) {
      if (!/locked|busy/i.test(String(err)) || Date.now() > deadline) throw err;
    }
    Bun.sleepSync(5 + Math.random() * 20);
  }
}

/**
 * Size of a file, or null when there is none. Hooks are cold processes and `node:fs` costs
 * them ~2 ms to load (docs/benchmarks.md): `Bun.file` answers the usual case (a file with
 * bytes) natively, and only a size of 0 (empty or missing) asks `node:fs` which it is.
 */
export function fileSize(path: string): number | null {
  const size = Bun.file(path).size;
  if (size > 0) return size;
  return require("node:fs").existsSync(path) ? 0 : null;
}

/** The directory part of a `/`-separated path (`.` when there is none). */
function parentDir(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut > 0 ? path.slice(0, cut) : cut === 0 ? "/" : ".";
}

/** A side file of a creation that died is left alone this long (another creator may still be at work). */
const STALE_ASIDE_MS = 60_000;

/**
 * A first run makes the database aside, whole (WAL mode, every migration, one closed file), and
 * links it into place only then: `path` never exists half-made, whatever kills the process
 * (docs/architecture.md, "Creating the database"). Of several first runs at once, one link wins
 * and the others open what it made. Only a first run loads node:fs.
 */
function createAside(path: string): void {
  const fs: typeof import("node:fs") = require("node:fs");
  const dir = parentDir(path);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const base = path.slice(dir.length + 1);
  const aside = `${path}.new-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    const db = new Database(aside, { create: true, strict: true });
    try {
      // Before the first table: only then can a database keep its free pages apart for a bulk
      // import to give back at its end (src/db/queries/fts-deferral.ts). Older files keep theirs.
      db.run("PRAGMA auto_vacuum = INCREMENTAL");
      enableWal(db);
      migrate(db, aside);
    } finally {
      db.close(); // the last connection: its log goes into the file, and the side files go
    }
    try {
      fs.linkSync(aside, path);
      // A database removed and made again: the read marks of the old one say nothing of this one.
      dropReadMarks(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err; // another first run won
    }
  } finally {
    for (const f of [aside, `${aside}-wal`, `${aside}-shm`]) fs.rmSync(f, { force: true });
  }
  const now = Date.now();
  for (const f of fs.readdirSync(dir))
    if (f.startsWith(`${base}.new-`))
      try {
        if (now - fs.statSync(`${dir}/${f}`).mtimeMs > STALE_ASIDE_MS)
          fs.rmSync(`${dir}/${f}`, { force: true });
      } catch {
        // gone already
      }
}

/**
 * Read-write connection for hooks and other writers; creates the directory (0700) and the file.
 * The file and its side files (-wal, -shm) are created under umask 077, so they are 0600.
 */
export function openForWrite(path: string): Database {
  const oldMask = process.umask(0o077);
  let db: Database | undefined;
  try {
    if (fileSize(path) === null) createAside(path);
    db = new Database(path, { create: true, strict: true });
    // Per connection, never stored in the file: one statement for the three.
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON`);
    // Refuse a newer schema before anything (even the journal mode) is changed.
    const version = userVersion(db);
    if (version > SCHEMA_VERSION) {
      db.close();
      throw futureSchema(path, version);
    }
    const mode = (db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
    if (mode.toLowerCase() !== "wal") enableWal(db);
    if (version < SCHEMA_VERSION) migrate(db, path);
    ensureMarks(db);
    // A bulk ingest defers its rows' indexing to its passes (docs/search.md): one lookup of a
    // table that is empty but during an import, and only then the check of its owners, so an
    // import killed mid-way has its index completed by the next writer.
    if (db.query("SELECT 1 AS x FROM fts_deferral WHERE id = 1").get() !== null)
      try {
        (require("./queries/fts-deferral.ts") as typeof import("./queries/fts-deferral.ts")).settleDeferral(
          db,
        );
      } catch {
        // a lock held past busy_timeout: the index waits for the next writer, nothing is lost
      }
  } catch (err) {
    if (!isNotADatabase(err)) throw err;
    db?.close();
    throw notADatabase(path, err);
  } finally {
    process.umask(oldMask);
  }
  return db;
}

const isNotADatabase = (err: unknown): boolean =>
  (err as { code?: unknown } | null)?.code === "SQLITE_NOTADB";

/**
 * A file SQLite cannot read as a database (made by something else, or overwritten): which file,
 * and what to do about it, where SQLite says only "file is not a database".
 */
export function notADatabase(path: string, cause: unknown): ThroughlineError {
  return new ThroughlineError(
    "E_NOT_A_DATABASE",
    `${path} is not a throughline database (file is not a database); move it aside, or point --db or THROUGHLINE_DB at another file`,
    { cause },
  );
}

export function missingDatabase(path: string): ThroughlineError {
  return new ThroughlineError(
    "E_NO_DATABASE",
    `no throughline database at ${path}; run \`throughline install\` or \`throughline import\``,
  );
}

/** Schema version of an existing file, read without opening it for writing. */
export function peekUserVersion(path: string): number {
  const { db, version } = openReadOnly(path);
  db.close();
  return version;
}

/**
 * A WAL a hook leaves behind is read again by every connection that opens the database next
 * (SQLite rebuilds its index from the log, ~0.5 ms per MiB here), so it is kept only this small.
 */
export const KEPT_LOG_MAX_BYTES = 512 << 10;

/**
 * Close a hook's writer without SQLite's close-time checkpoint (docs/benchmarks-history.md, "The
 * close-time checkpoint"). The last connection to close copies the WAL into the database and
 * fsyncs it (1–7 ms, the largest single cost of a writing hook); a read-only connection that
 * holds the shared lock while the writer closes keeps the writer from being the last one, and
 * then closes last itself, which a read-only connection does without checkpointing. The commit
 * stays in the WAL, as durable as every commit under `synchronous = NORMAL` (it survives the
 * process, `test/hooks/durability.test.ts`). Once the WAL is past KEPT_LOG_MAX_BYTES the writer
 * closes as usual: one checkpoint and one fsync for every half MiB that hooks wrote.
 */
export function closeKeepingLog(db: Database): void {
  const path = fileOf(db);
  let guard: Database | null = null;
  if (path !== null && Bun.file(`${path}-wal`).size <= KEPT_LOG_MAX_BYTES)
    try {
      guard = new Database(path, { readonly: true });
      // A read takes the shared lock, which a WAL connection then keeps while it is open.
      schemaVersion(guard);
    } catch {
      guard?.close();
      guard = null; // the ordinary close, with its checkpoint
    }
  db.close();
  guard?.close();
}

function fileUri(path: string, query: string): string {
  const abs = path.startsWith("/") ? path : `${process.cwd()}/${path}`;
  return `file:${abs.split("/").map(encodeURIComponent).join("/")}?${query}`;
}

/** Named parameters as strict mode binds them: `{ id }` fills `$id`, `:id` or `@id`. */
function withPrefixes(arg: unknown): unknown {
  if (arg === null || typeof arg !== "object" || Array.isArray(arg) || ArrayBuffer.isView(arg)) return arg;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(arg)) {
    if (/^[$:@?]/.test(k)) out[k] = v;
    else out[`$${k}`] = out[`:${k}`] = out[`@${k}`] = v;
  }
  return out;
}

const BINDING_METHODS = new Set(["get", "all", "values", "run", "iterate"]);

function prefixedStatement<T extends object>(stmt: T): T {
  return new Proxy(stmt, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      if (typeof prop === "string" && BINDING_METHODS.has(prop))
        return (...args: unknown[]) => v.apply(target, args.map(withPrefixes));
      return v.bind(target);
    },
  });
}

/**
 * A read-only connection. The immutable fallback opens its file through a URI: bun:sqlite honours
 * a URI only with numeric open flags, and those cannot ask for `strict` (named parameters bound
 * without their `$`), which every query here is written for, so its binding methods add the
 * prefix. A live file waits out a writer's lock from its first read on (`busy_timeout` before it).
 */
function connect(path: string, query: "mode=ro" | "immutable=1"): { db: Database; version: number } {
  // The usual read-only open needs no URI: `readonly` is SQLITE_OPEN_READONLY, and `strict` binds
  // `{ id }` to `$id` natively (a cold read pays for every wrapped call, docs/benchmarks.md).
  if (query === "mode=ro") {
    const db = new Database(path, { readonly: true, strict: true });
    try {
      // Pages read through a mapping of the file, not copied in by read(2): a cold reader fills its
      // empty cache ~35% faster where it reads many pages (search, docs/benchmarks.md). SQLite never
      // shrinks a file under a reader's snapshot (test/reliability/mapped-reads.test.ts), and caps
      // the size at its compile-time maximum.
      db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA mmap_size = ${READ_MAP_BYTES}`);
      return { db, version: userVersion(db) };
    } catch (err) {
      db.close();
      throw err;
    }
  }
  const db = new Database(fileUri(path, query), constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
  try {
    const query0 = db.query.bind(db);
    const prepare0 = db.prepare.bind(db);
    const run0 = db.run.bind(db);
    db.query = ((sql: string) => prefixedStatement(query0(sql))) as typeof db.query;
    db.prepare = ((sql: string, ...rest: unknown[]) =>
      prefixedStatement(prepare0(sql, ...(rest.map(withPrefixes) as [])))) as typeof db.prepare;
    db.run = ((sql: string, ...params: unknown[]) =>
      run0(sql, ...(params.map(withPrefixes) as []))) as typeof db.run;
    // SQLite opens files lazily: read now, so a file it cannot use fails here, not mid-command.
    return { db, version: userVersion(db) };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** A lock or a recovery in progress: over within a writer's transaction, so worth waiting out. */
const TRANSIENT = /locked|busy/i;
/** The reader cannot make the WAL's side files: a directory it may not write. */
const NO_SIDE_FILES = /unable to open|readonly|read-only|cannot open/i;

/**
 * Open without creating or writing the database (docs/architecture.md, "The read path"). `mode=ro`
 * reads through the WAL and its shared-memory index like any reader: it sees every committed
 * transaction and never a half-written one, beside any number of writers and checkpoints, and
 * creates `-wal`/`-shm` beside the file when they are missing (their content is not the
 * database's). Locks are waited out: `busy_timeout` for a writer's lock, and a short retry for
 * what SQLite answers at once (a WAL recovery by another connection). Only where the reader
 * cannot create those side files (a directory it may not write, so no writer of its own can
 * exist) and no log holds frames does it read the main file alone, with `immutable=1`.
 */
function openReadOnly(path: string): { db: Database; version: number } {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      return connect(path, "mode=ro");
    } catch (err) {
      const message = (err as Error).message;
      if (TRANSIENT.test(message) && Date.now() < deadline) {
        Bun.sleepSync(wait);
        continue;
      }
      // `Bun.file` answers without loading node:fs: 0 is "no log" and "an empty log" alike.
      if (NO_SIDE_FILES.test(message) && !(Bun.file(`${path}-wal`).size > 0))
        try {
          return connect(path, "immutable=1");
        } catch {
          // the first error says more
        }
      if (isNotADatabase(err)) throw notADatabase(path, err);
      throw new ThroughlineError("E_OPEN", `cannot open ${path} read-only: ${message}`, { cause: err });
    }
  }
}

/** Read-only connection; a missing file is a clear error and is never created. */
export function openForRead(path: string): Database {
  if (fileSize(path) === null) throw missingDatabase(path);
  const { db, version: v } = openReadOnly(path);
  if (v > SCHEMA_VERSION) {
    db.close();
    throw futureSchema(path, v);
  }
  if (v === 0 && !db.query("SELECT 1 FROM sqlite_master LIMIT 1").get()) {
    // A first writer is creating it (or died before its first commit): the schema comes in one
    // transaction, so until then there is no memory here yet, as when there is no file.
    db.close();
    throw missingDatabase(path);
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

/**
 * Run `fn` on a connection and close it however `fn` ends (a promise: once it settles). The one
 * scope of a command's database use: `withReader` for the read commands, `withWriter` for writers.
 */
export function withDatabase<T>(db: Database, fn: (db: Database) => T): T {
  let settled = true;
  try {
    const out = fn(db);
    if (out instanceof Promise) {
      settled = false;
      return out.finally(() => db.close()) as T;
    }
    return out;
  } finally {
    if (settled) db.close();
  }
}

/**
 * `fn` on a read-only connection, its statements in one read transaction: they all read one
 * moment of the database (docs/architecture.md, "The read path"), so a writer committing
 * between two of them (a Stop beside a `search`, whose bounds and candidates are statements
 * apart) is seen by all of them or by none. An async `fn` would keep that moment for its
 * synchronous part only: held across awaits, it would pin the log and never see a new turn.
 */
export function withReader<T>(path: string, fn: (db: Database) => T): T {
  return withDatabase(openForRead(path), (db) => readTransaction(db, () => fn(db)));
}

/**
 * `withReader` when `path` opens as a database; null when it is absent or does not open (doctor's
 * information lines: its database checks say why).
 */
export function readIfOpens<T>(path: string, fn: (db: Database) => T): T | null {
  if (fileSize(path) === null) return null;
  let db: Database;
  try {
    db = openForRead(path);
  } catch {
    return null;
  }
  return withDatabase(db, (d) => readTransaction(d, () => fn(d)));
}

export function withWriter<T>(path: string, fn: (db: Database) => T): T {
  return withDatabase(openForWrite(path), fn);
}
