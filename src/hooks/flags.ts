/**
 * The environment flags a hook process runs under: a worker (the detached Stop worker, a
 * follow-up) and the task it was started for. They live below every handler and below
 * src/hooks/run.ts, which starts the follow-ups, so a handler asking for one imports no
 * module that imports it back (docs/architecture.md, "Processes").
 */

/** Set in a worker's environment (the detached Stop worker, a follow-up): it does the work itself. */
export const HOOK_WORKER_ENV = "THROUGHLINE_HOOK_WORKER";
/** A follow-up's payload, given in its environment: nothing waits to write it a pipe. */
export const FOLLOW_UP_PAYLOAD_ENV = "THROUGHLINE_HOOK_PAYLOAD";
/** "1" in the follow-up that rehearses a handoff; "0" turns the push printed ahead off. */
export const PUSH_AHEAD_ENV = "THROUGHLINE_PUSH_AHEAD";

/** Set in the environment of the summarizer's own `claude -p`, so our hooks do nothing there. */
export const INSIDE_SUMMARIZER_ENV = "THROUGHLINE_INSIDE_SUMMARIZER";
