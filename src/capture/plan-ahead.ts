/**
 * Planning the next transcripts of a bulk ingest on a second thread while this one writes
 * (docs/benchmarks.md, "Import throughput"). Reading, parsing, assembling and redacting a file
 * needs no database, only the cursor the database held for it, which this thread reads when it
 * hands the file over; writing and indexing stay here, in file order, under the write lock, and
 * `ingestTranscript` takes a plan only when the file and cursor are still as it was made against
 * (otherwise it plans again, as it always did). The replay stays synchronous: plans come back
 * through `receiveMessageOnPort`, with a shared counter to sleep on while none has arrived.
 * Anything the worker cannot do (it did not start, a plan failed, it went quiet) is planned here
 * instead, so a worker never changes what is written, only when it is computed.
 */
import type { CursorRow } from "../db/queries/capture.ts";
import type { IngestOptions, PlannedRun } from "./ingest-plan.ts";

/** The files to plan, by their place in the writer's order. */
export interface PlanJobs {
  count: number;
  /** What file `i` is ingested with; called once per file, in order, as it is handed over or written. */
  optsOf: (i: number) => IngestOptions;
  bytesOf: (i: number) => number;
  /** The file's cursor as the database holds it now. */
  cursorOf: (path: string) => CursorRow | null;
}

interface Request {
  i: number;
  opts: IngestOptions;
  cursor: CursorRow | null;
}

type Reply = { i: number; run: PlannedRun } | { i: number; error: string };

/** How far ahead of the writer the planner may go: plans wait in memory until written. */
const AHEAD_FILES = 16;
const AHEAD_BYTES = 64 << 20;
/** A worker silent this long is taken for gone; the rest is planned here. */
const SILENT_MS = 120_000;

/** Which script the worker thread runs: the source module, or the binary or bundle this process runs. */
function workerScript(): string | URL {
  // From the checkout (and in tests) the module is a file of its own; the compiled binary and
  // the plugin's bundle hold everything in one script, whose entry serves plans in a worker thread
  // (src/cli.ts).
  return import.meta.path.endsWith(".ts") ? new URL("./plan-worker.ts", import.meta.url) : Bun.main;
}

type WorkerThreads = typeof import("node:worker_threads");

interface Channel {
  worker: import("node:worker_threads").Worker;
  port: import("node:worker_threads").MessagePort;
  flag: Int32Array;
  receive: WorkerThreads["receiveMessageOnPort"];
}

export class PlanAhead {
  private readonly replies = new Map<number, Reply>();
  private readonly jobs: PlanJobs;
  private readonly ch: Channel;
  /** The first file is planned here while the worker thread starts: it is handed the rest. */
  private sent = 1;
  private seen = 0;
  private dead = false;
  /** Plans this thread took from the worker. */
  used = 0;

  private constructor(jobs: PlanJobs, ch: Channel) {
    this.jobs = jobs;
    this.ch = ch;
    this.fill(1);
  }

  /** A planner for `jobs`, or null when no worker thread can be started here. */
  static start(jobs: PlanJobs): PlanAhead | null {
    try {
      const wt = require("node:worker_threads") as WorkerThreads;
      const { port1, port2 } = new wt.MessageChannel();
      const sab = new SharedArrayBuffer(4);
      const worker = new wt.Worker(workerScript(), {
        workerData: { throughlinePlanPort: port2, sab },
        transferList: [port2],
      });
      // An error there is seen here as silence (this thread blocks, its events wait): a plan
      // not coming is planned here.
      worker.on("error", () => {});
      worker.unref();
      return new PlanAhead(jobs, {
        worker,
        port: port1,
        flag: new Int32Array(sab),
        receive: wt.receiveMessageOnPort,
      });
    } catch {
      return null;
    }
  }

  /** Hand over the files after `from` the window allows, each with the cursor of now. */
  private fill(from: number): void {
    let bytes = 0;
    for (let j = from; j < this.sent; j++) bytes += this.jobs.bytesOf(j);
    while (
      !this.dead &&
      this.sent < this.jobs.count &&
      this.sent - from < AHEAD_FILES &&
      (bytes < AHEAD_BYTES || this.sent === from)
    ) {
      const opts = this.jobs.optsOf(this.sent);
      const req: Request = { i: this.sent, opts, cursor: this.jobs.cursorOf(opts.path) };
      this.ch.port.postMessage(req);
      bytes += this.jobs.bytesOf(this.sent);
      this.sent++;
    }
  }

  /**
   * The plan of job `i` (taken in order), or null: plan it here. While it is not there yet,
   * `idle` may do other work of this thread (it returns whether it did any).
   */
  take(i: number, idle: () => boolean = () => false): PlannedRun | null {
    if (i === 0) return null;
    this.fill(i);
    if (this.dead || i >= this.sent) return null;
    const waitedSince = Date.now();
    while (!this.replies.has(i)) {
      const m = this.ch.receive(this.ch.port);
      if (m) {
        const r = m.message as Reply;
        this.replies.set(r.i, r);
        continue;
      }
      if (Date.now() - waitedSince > SILENT_MS) {
        this.close();
        return null;
      }
      if (idle()) continue;
      Atomics.wait(this.ch.flag, 0, this.seen, 100);
      this.seen = Atomics.load(this.ch.flag, 0);
    }
    const r = this.replies.get(i)!;
    this.replies.delete(i);
    this.fill(i + 1);
    if (!("run" in r)) return null;
    this.used++;
    return r.run;
  }

  close(): void {
    if (this.dead) return;
    this.dead = true;
    this.ch.port.close();
    void this.ch.worker.terminate();
  }
}

/** The worker thread's side: plan each file handed over, reply, and wake the writer. */
export function servePlans(data: {
  throughlinePlanPort: import("node:worker_threads").MessagePort;
  sab: SharedArrayBuffer;
}): void {
  const { planAhead } = require("./ingest-plan.ts") as typeof import("./ingest-plan.ts");
  const port = data.throughlinePlanPort;
  const flag = new Int32Array(data.sab);
  port.on("message", (req: Request) => {
    let reply: Reply;
    try {
      reply = { i: req.i, run: planAhead(req.opts, req.cursor) };
    } catch (err) {
      reply = { i: req.i, error: String(err) };
    }
    try {
      port.postMessage(reply);
    } catch (err) {
      port.postMessage({ i: req.i, error: String(err) });
    }
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
}
