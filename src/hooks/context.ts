/**
 * What a hook handler is given (docs/hooks.md): its own module, so handlers import the type
 * without importing the runner that imports them.
 */
import type { Database } from "bun:sqlite";
import type { JsonObject } from "../core/jsonl.ts";
import type { Env } from "../core/paths.ts";

export interface HookPayload extends JsonObject {}

export interface HookContext {
  db: Database;
  payload: HookPayload;
  sessionId: string;
  /** The session row's project, else the identity of the payload's `cwd` (read on first use). */
  project: string | null;
  transcriptPath: string | null;
  env: Env;
  now: () => number;
  event: string;
  /**
   * Asks for a hook run after this one, in its own process that outlives the client's wait
   * (docs/hooks.md, "The push printed ahead"): the process shell starts it detached once this
   * hook is done; in-process callers (tests) find it in the outcome and run it, or not, themselves.
   */
  followUp?: (f: FollowUp) => void;
  /**
   * Asks for work in this same process once the database is closed and the output written: only
   * in a process nothing waits for (a worker). In-process callers find it in the outcome.
   */
  afterClose?: (fn: () => Promise<void>) => void;
}

/** A hook event to run again, with its payload and environment additions. */
export interface FollowUp {
  event: string;
  payload: HookPayload;
  env: Record<string, string>;
}
