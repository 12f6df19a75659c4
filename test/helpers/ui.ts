/**
 * A web view over replayed fixtures in a temp THROUGHLINE_HOME (never the real home), and the
 * system Chromium for the browser tests (test/ui/).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FIXTURES, SAMPLE } from "../../harness/db.ts";
import { shiftTimestamps } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { startUi, type UiServer } from "../../src/commands/_ui-server.ts";
import { closeKeepingLog, openForWrite } from "../../src/db/open.ts";

export const HOSTILE = join(FIXTURES, "hostile");
export const HOSTILE_ID = "6f6f6f6f-0000-4000-8000-00000000bad1";
export const SAMPLE_ID = "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13";
/** A conversation with a failing build, a Markdown table, an edit and a todo list (test/fixtures/conversation/). */
export const CONVERSATION = join(FIXTURES, "conversation");
export const CONVERSATION_ID = "c0c0c0c0-0000-4000-8000-0000000c0de1";
const LIVE_FIXTURE = join(
  FIXTURES,
  "monitor",
  "projects",
  "-work-alpha",
  "a1a1a1a1-0000-4000-8000-000000000001.jsonl",
);

/** The system's Chromium, or null: the browser tests skip (with a warning) only then. */
export function chromiumPath(): string | null {
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    const p = Bun.which(name);
    if (p) return p;
  }
  return null;
}

export interface UiWorld extends AsyncDisposable {
  home: string;
  db: string;
  server: UiServer;
  /** The origin, `http://127.0.0.1:<port>`. */
  origin: string;
}

/**
 * Replay the sample, the transcript fixtures, the hostile one, the conversation and a live
 * session (its transcript last active a minute ago) into a temp home, then serve it.
 */
export async function uiWorld(): Promise<UiWorld> {
  const home = mkdtempSync(join(tmpdir(), "tl-ui-"));
  const db = join(home, "throughline.db");
  const config = join(home, "claude");
  const live = join(config, "projects", "-work-alpha", "a1a1a1a1-0000-4000-8000-000000000001.jsonl");
  mkdirSync(dirname(live), { recursive: true });
  writeFileSync(live, shiftTimestamps(readFileSync(LIVE_FIXTURE, "utf8"), Date.now() - 60_000));
  const w = openForWrite(db);
  replay(w, [SAMPLE, join(FIXTURES, "transcripts"), HOSTILE, CONVERSATION, live]);
  w.close(); // a CLI writer's close: the log goes into the file
  const server = await startUi({ dbPath: db, port: 0, configDir: config, invocation: "throughline" });
  return {
    home,
    db,
    server,
    origin: `http://127.0.0.1:${server.port}`,
    async [Symbol.asyncDispose]() {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** SHA-256 of the database file; with the size of its -wal (0 or absent is what a reader may leave). */
export function dbState(path: string): { hash: string; wal: number | null } {
  const hash = createHash("sha256").update(readFileSync(path)).digest("hex");
  const wal = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : null;
  return { hash, wal };
}

export { closeKeepingLog };
