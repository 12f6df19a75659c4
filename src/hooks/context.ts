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
}
