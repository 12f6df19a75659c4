/**
 * The file side of `throughline export jsonl` and `throughline import --from-export <file>`
 * (docs/export.md): the whole memory as `throughline.export.v1` JSONL, and back. The export
 * streams row by row from a read-only connection; the import reads the file in chunks inside
 * one IMMEDIATE transaction, so a damaged or truncated file writes nothing. The format itself
 * (records, lines, checks) is pure, in src/core/export-format.ts.
 */
import { closeSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { formatIso } from "../core/clock.ts";
import {
  type BodyRecord,
  COUNT_KEY,
  EXPORT_SCHEMA,
  type ExportCounts,
  emptyCounts,
  exportLine,
  parseRecord,
} from "../core/export-format.ts";
import { withReader, withWriter } from "../db/open.ts";
import {
  exportDetails,
  exportEvents,
  exportImporter,
  exportSessions,
  exportSummaries,
  exportTurns,
  type ImportTally,
  schemaVersion,
} from "../db/queries/export.ts";
import { writeTransaction } from "../db/tx.ts";
import { ThroughlineError } from "../errors.ts";
import { VERSION } from "../version.ts";

/** Write all of `data`, waiting out a non-blocking pipe that is momentarily full. */
function writeAll(fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) {
    try {
      off += writeSync(fd, data, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      Bun.sleepSync(2);
    }
  }
}

/** Lines gathered into ~1 MiB writes: the export's memory stays bounded whatever the database size. */
class FdSink {
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;
  private readonly fd: number;
  constructor(fd: number) {
    this.fd = fd;
  }
  write(s: string): void {
    this.parts.push(s);
    this.pending += s.length;
    if (this.pending >= 1 << 20) this.flush();
  }
  flush(): void {
    if (this.parts.length === 0) return;
    const data = Buffer.from(this.parts.join(""), "utf8");
    this.parts = [];
    this.pending = 0;
    writeAll(this.fd, data);
    this.bytes += data.length;
  }
}

/** Write the whole database as `throughline.export.v1` to `sink`; returns what it wrote. */
export function writeExport(path: string, sink: { write(s: string): void }, now = Date.now()): ExportCounts {
  // withReader reads every table from one snapshot while hooks write.
  return withReader(path, (db) => {
    const counts = emptyCounts();
    sink.write(
      exportLine({
        record: "header",
        schema: EXPORT_SCHEMA,
        exported_at: formatIso(now),
        generator: `throughline ${VERSION}`,
        db_schema_version: schemaVersion(db),
      }),
    );
    const tables: Iterable<BodyRecord>[] = [
      exportSessions(db),
      exportTurns(db),
      exportDetails(db),
      exportEvents(db),
      exportSummaries(db),
    ];
    for (const rows of tables)
      for (const r of rows) {
        sink.write(exportLine(r));
        counts[COUNT_KEY[r.record]]++;
      }
    sink.write(exportLine({ record: "end", counts }));
    return counts;
  });
}

/** The export on an open descriptor (stdout): returns what it wrote. */
export function exportToFd(path: string, fd: number): { counts: ExportCounts; bytes: number } {
  const sink = new FdSink(fd);
  const counts = writeExport(path, sink);
  sink.flush();
  return { counts, bytes: sink.bytes };
}

/**
 * The export into the file `out` (0600). Written beside the target and renamed at the end: a
 * failed export never leaves a truncated file under the name a later import would read.
 */
export function exportToFile(path: string, out: string): { counts: ExportCounts; bytes: number } {
  const tmp = `${out}.tmp-${process.pid}`;
  let fd: number;
  try {
    fd = openSync(tmp, "wx", 0o600);
  } catch (err) {
    throw new ThroughlineError("E_WRITE", `cannot write ${out}: ${(err as Error).message}`);
  }
  let counts: ExportCounts;
  const sink = new FdSink(fd);
  try {
    counts = writeExport(path, sink);
    sink.flush();
    closeSync(fd);
    renameSync(tmp, out);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    unlinkSync(tmp);
    throw err;
  }
  return { counts, bytes: sink.bytes };
}

/**
 * The lines of a file, read 1 MiB at a time. Bytes are split on `\n` before decoding: no
 * UTF-8 sequence contains that byte, so a character cut by a chunk edge is never damaged.
 */
function* fileLines(path: string): Generator<{ text: string; no: number }> {
  const fd = openSync(path, "r");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const buf = Buffer.alloc(1 << 20);
  let carry: Buffer[] = [];
  let no = 0;
  const decode = (parts: Buffer[]) => {
    try {
      return decoder.decode(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    } catch {
      throw new ThroughlineError("E_EXPORT_FORMAT", `line ${no}: not UTF-8`);
    }
  };
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      const chunk = buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        no++;
        carry.push(Buffer.from(chunk.subarray(start, nl)));
        yield { text: decode(carry), no };
        carry = [];
        start = nl + 1;
      }
      if (start < n) carry.push(Buffer.from(chunk.subarray(start)));
    }
    if (carry.length > 0) {
      no++;
      yield { text: decode(carry), no };
    }
  } finally {
    closeSync(fd);
  }
}

export interface FromExportReport {
  schema: "throughline.import.from-export.v1";
  file: string;
  exported_at: string;
  sessions: ImportTally;
  turns: ImportTally;
  details: ImportTally;
  events: ImportTally;
  summaries: ImportTally;
}

function checkFile(file: string): void {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(file);
  } catch {
    throw new ThroughlineError("E_NOT_FOUND", `no such file: ${file}`);
  }
  if (!st.isFile()) throw new ThroughlineError("E_NOT_FILE", `not a regular file: ${file}`);
}

/** Restore an export into the database at `dbPath`: idempotent, rows already there are kept. */
export function importExportFile(dbPath: string, file: string): FromExportReport {
  checkFile(file);
  return withWriter(dbPath, (db) => {
    return writeTransaction(db, (): FromExportReport => {
      const w = exportImporter(db);
      const tally = () => ({ added: 0, kept: 0 });
      const report: FromExportReport = {
        schema: "throughline.import.from-export.v1",
        file,
        exported_at: "",
        sessions: tally(),
        turns: tally(),
        details: tally(),
        events: tally(),
        summaries: tally(),
      };
      const seen = emptyCounts();
      let header = false;
      let ended = false;
      for (const { text, no } of fileLines(file)) {
        if (text.trim() === "") continue;
        if (ended) throw new ThroughlineError("E_EXPORT_FORMAT", `line ${no}: a record after the end record`);
        const notExport = () =>
          new ThroughlineError(
            "E_EXPORT_FORMAT",
            `${file} is not a ${EXPORT_SCHEMA} file (line ${no} is not its header)`,
          );
        let r: ReturnType<typeof parseRecord>;
        try {
          r = parseRecord(text, no);
        } catch (err) {
          throw header ? err : notExport();
        }
        if (!header) {
          if (r.record !== "header") throw notExport();
          header = true;
          report.exported_at = r.exported_at;
          continue;
        }
        if (r.record === "header")
          throw new ThroughlineError("E_EXPORT_FORMAT", `line ${no}: a second header`);
        if (r.record === "end") {
          for (const k of Object.keys(seen) as (keyof ExportCounts)[])
            if (r.counts[k] !== seen[k])
              throw new ThroughlineError(
                "E_EXPORT_FORMAT",
                `line ${no}: the end record counts ${r.counts[k]} ${k}, the file holds ${seen[k]}`,
              );
          ended = true;
          continue;
        }
        const key = COUNT_KEY[r.record];
        seen[key]++;
        let added: boolean;
        switch (r.record) {
          case "session":
            added = w.session(r);
            break;
          case "turn":
            added = w.turn(r);
            break;
          case "detail":
            added = w.detail(r, no);
            break;
          case "event":
            added = w.event(r);
            break;
          case "summary":
            added = w.summary(r, no);
            break;
        }
        report[key][added ? "added" : "kept"]++;
      }
      if (!header) throw new ThroughlineError("E_EXPORT_FORMAT", `${file} is empty`);
      if (!ended)
        throw new ThroughlineError(
          "E_EXPORT_FORMAT",
          `${file} ends before its end record (truncated?); nothing was imported`,
        );
      w.finish();
      return report;
    });
  });
}
