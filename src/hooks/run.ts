/**
 * Hook contract (docs/contract.md#hooks): read one JSON payload from stdin, never exit 2 (that would block
 * the user), and on any internal error print one line to stderr, record it in `hook_errors`
 * and exit 1 (Claude Code shows a non-blocking notice). This file is on the hot path of every
 * prompt: it imports only core, db and bun built-ins, and writes with Bun.write/console.
 */
import type { Database } from "bun:sqlite";
import { isNever, type NeverList, neverPath, parseNever } from "../core/never.ts";
import { databasePath, type Env } from "../core/paths.ts";
import { errorLine, oneLine, ThroughlineError } from "../errors.ts";
import type { FollowUp, HookContext, HookPayload } from "./context.ts";
import { FOLLOW_UP_PAYLOAD_ENV, HOOK_WORKER_ENV, INSIDE_SUMMARIZER_ENV } from "./flags.ts";
import { parsePayload, readPayloadText } from "./stdin.ts";

export type { FollowUp, HookContext, HookPayload };

/** A handler returns what to print on stdout (reaches the model for SessionStart/UserPromptSubmit). */
export type HookHandler = (ctx: HookContext) => Promise<string | undefined> | string | undefined;

const HANDLERS: Record<string, () => Promise<HookHandler>> = {
  "session-start": () => import("./session-start.ts").then((m) => m.default),
  "user-prompt-submit": () => import("./user-prompt-submit.ts").then((m) => m.default),
  stop: () => import("./stop.ts").then((m) => m.default),
  "pre-compact": () => import("./pre-compact.ts").then((m) => m.default),
  "session-end": () => import("./session-end.ts").then((m) => m.default),
  "subagent-stop": () => import("./subagent-stop.ts").then((m) => m.default),
  "post-tool-use": () => import("./post-tool-use.ts").then((m) => m.default),
  // Answered before any database work (runHook); listed so the event is known.
  "pre-tool-use": () => Promise.resolve(() => undefined),
};

export const HOOK_EVENTS = Object.keys(HANDLERS);

export interface HookOutcome {
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
  /** What the handler asked to run after it (HookContext.followUp). */
  followUp?: FollowUp;
  /** What the handler asked to run in this process once the database is closed (HookContext.afterClose). */
  afterClose?: () => Promise<void>;
}

/** Pure of process I/O, so tests can drive every path in-process. */
export async function runHook(
  event: string,
  stdinText: string,
  env: Env,
  now: () => number = Date.now,
): Promise<HookOutcome> {
  if (env[INSIDE_SUMMARIZER_ENV] === "1") return { exitCode: 0, stdout: "", stderr: "" };
  let db: Database | undefined;
  let sessionId: string | null = null;
  try {
    const load = HANDLERS[event];
    if (!load)
      throw new ThroughlineError(
        "E_HOOK",
        `unknown hook event "${event}" (expected one of: ${HOOK_EVENTS.join(", ")})`,
      );
    const payload = parsePayload(event, stdinText);
    sessionId = payload.session_id as string;
    // A permission answer needs no memory: no database is opened for it.
    if (event === "pre-tool-use") {
      const { preToolUse } = await import("./pre-tool-use.ts");
      return { exitCode: 0, stdout: preToolUse(payload) ?? "", stderr: "" };
    }
    const cwdText = typeof payload.cwd === "string" && payload.cwd ? payload.cwd : null;
    // One project identity for every hook and command (docs/project-identity.md). It reads the
    // file system, and the database costs an open and a close-time checkpoint: both are made on
    // first use, so a handler that needs neither (a PostToolUse with no activity) pays for neither.
    let project: string | null | undefined;
    const projectOfCwd = (): string | null => {
      if (project === undefined)
        project = cwdText
          ? (require("../db/project.ts") as typeof import("../db/project.ts")).projectOf(cwdText, env)
          : null;
      return project;
    };
    // A listed session or project is not captured at all: nothing is opened or written.
    const never = await neverList(env);
    if (never && isNever(never, { sessionId, project: projectOfCwd(), cwd: cwdText }))
      return { exitCode: 0, stdout: "", stderr: "" };
    const path = databasePath(env);
    if (event === "user-prompt-submit") {
      const { nothingToHandOver } = await import("./user-prompt-submit.ts");
      if (nothingToHandOver(path, sessionId, payload)) return { exitCode: 0, stdout: "", stderr: "" };
    }
    const handler = await load();
    let sessionProject: string | null | undefined;
    let followUp: FollowUp | undefined;
    let afterClose: (() => Promise<void>) | undefined;
    const out = await handler({
      get db() {
        db ??= openWriter(path);
        return db;
      },
      payload,
      sessionId,
      get project() {
        // The payload's cwd is where the session is now; its project is where it started, and
        // once the session row holds one, no hook moves it (docs/project-identity.md).
        if (sessionProject === undefined) {
          db ??= openWriter(path);
          const stored = (
            require("../db/queries/sessions.ts") as typeof import("../db/queries/sessions.ts")
          ).sessionProject(db, sessionId as string);
          sessionProject = stored ?? projectOfCwd();
        }
        return sessionProject;
      },
      transcriptPath:
        typeof payload.transcript_path === "string" && payload.transcript_path
          ? payload.transcript_path
          : null,
      env,
      now,
      event,
      followUp: (f) => {
        followUp = f;
      },
      afterClose: (fn) => {
        afterClose = fn;
      },
    });
    return {
      exitCode: 0,
      stdout: out ? hostOutput(event, out, payload) : "",
      stderr: "",
      ...(followUp ? { followUp } : {}),
      ...(afterClose ? { afterClose } : {}),
    };
  } catch (err) {
    // The event name comes from argv: escaped along with the message, so the line stays one line.
    const line = oneLine(`throughline hook ${event}: ${errorLine(err).replace(/^hook [a-z-]+: /, "")}`);
    try {
      db ??= openWriter(databasePath(env));
      // Loaded only on this path: recording an error needs the redactor, an ordinary prompt does not.
      const { recordHookError } = await import("../db/queries/hook-errors.ts");
      recordHookError(db, event, sessionId, line, now());
    } catch {
      // The database itself is the problem (unwritable, future schema): stderr is all we have.
    }
    return { exitCode: 1, stdout: "", stderr: `${line}\n` };
  } finally {
    // The commit is in the WAL; the checkpoint is left to a later writer (src/db/open.ts).
    if (db) closeWriter(db);
  }
}

/**
 * In Codex, what reaches the model is the event's additionalContext (docs/hosts.md). Loaded only
 * when a hook prints something: most print nothing.
 */
function hostOutput(event: string, out: string, payload: HookPayload): string {
  const host = require("../core/host.ts") as typeof import("../core/host.ts");
  const path = typeof payload.transcript_path === "string" ? payload.transcript_path : null;
  return host.hostOfPath(path) === "codex" ? host.codexHookOutput(event, out) : out;
}

function closeWriter(db: Database): void {
  (require("../db/open.ts") as typeof import("../db/open.ts")).closeKeepingLog(db);
}

/** bun:sqlite and the schema load only when a hook really opens the database (a prompt often does not). */
function openWriter(path: string): Database {
  return (require("../db/open.ts") as typeof import("../db/open.ts")).openForWrite(path);
}

/**
 * The never list (docs/memory-control.md): a small file, usually absent, read on every hook so
 * `pause` takes effect at the very next event. Null when it is absent or empty.
 */
async function neverList(env: Env): Promise<NeverList | null> {
  const file = Bun.file(neverPath(env));
  if (file.size === 0) return null;
  try {
    return parseNever(await file.text());
  } catch {
    return null;
  }
}

/** `stdinText` when the caller already read stdin (src/cli.ts, deciding whether to detach). */
export async function runHookProcess(event: string, stdinText?: string): Promise<void> {
  const env = process.env;
  let out: HookOutcome;
  try {
    const given = env[HOOK_WORKER_ENV] === "1" ? env[FOLLOW_UP_PAYLOAD_ENV] : undefined;
    const text = env[INSIDE_SUMMARIZER_ENV] === "1" ? "" : (given ?? stdinText ?? (await readPayloadText()));
    out = await runHook(event, text, env);
  } catch (err) {
    // Last line of defence: a hook never prints a stack trace and never exits 2.
    out = { exitCode: 1, stdout: "", stderr: `${oneLine(`throughline hook ${event}: ${errorLine(err)}`)}\n` };
  }
  if (out.stdout) await Bun.write(Bun.stdout, out.stdout.endsWith("\n") ? out.stdout : `${out.stdout}\n`);
  if (out.stderr) await Bun.write(Bun.stderr, out.stderr);
  if (out.followUp) startFollowUp(out.followUp, env);
  process.exitCode = out.exitCode;
  // Best effort, and only ever asked for by a worker: nothing waits for this process any more.
  if (out.afterClose) await out.afterClose().catch(() => {});
}

/**
 * Starts a follow-up in a new session (setsid) that nothing waits for: the client's wait ends when
 * this process exits, and its kills reach neither this process group nor that one (the shell's
 * background job stays in the shell's session). Best effort: a
 * follow-up that never runs leaves its work to the next hook (docs/hooks.md, "The push printed ahead").
 */
function startFollowUp(f: FollowUp, env: Env): void {
  if (process.platform === "win32") return;
  try {
    const { selfArgv } = require("../core/invocation.ts") as typeof import("../core/invocation.ts");
    // Through a shell that starts it in the background and exits: this process waits only for the
    // small shell's exec, and the program's own start-up does not compete with this one's exit.
    Bun.spawn(["/bin/sh", "-c", '"$@" &', "sh", ...selfArgv(), "hook", f.event], {
      env: { ...env, ...f.env, [HOOK_WORKER_ENV]: "1", [FOLLOW_UP_PAYLOAD_ENV]: JSON.stringify(f.payload) },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
    }).unref();
  } catch {
    // the next hook does the work
  }
}
