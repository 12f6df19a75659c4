/**
 * `recall [words…]` without `--l1`/`--l2` (docs/activity.md): the flags resolved to a scope, the
 * view read by src/read/activity.ts, printed. Read-only. `recall.ts` owns the command line and
 * calls this for the words mode.
 */
import { instantFlag } from "../core/clock.ts";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath, normalizeProject } from "../core/paths.ts";
import type { Database } from "../db/open.ts";
import { withReader } from "../db/open.ts";
import { findProject, resolveProject, type Scope } from "../db/project.ts";
import { resolveChain } from "../db/queries/chain.ts";
import { latestChain } from "../db/queries/events.ts";
import { chainParts } from "../db/queries/forks.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { getSession } from "../db/queries/sessions.ts";
import { ThroughlineError } from "../errors.ts";
import { activityView } from "../read/activity.ts";
import { activityJson, renderActivity } from "../render/activity.ts";
import { printJson } from "./_args.ts";
import { envChain } from "./_pull-args.ts";

export interface ActivityRecallArgs {
  words: string[];
  session?: string;
  project?: string;
  /** Every session of the project (the latest chain by default). */
  allSessions?: boolean;
  /** Every project: `--all` means that in every command. */
  all?: boolean;
  now?: string;
  json?: boolean;
  db?: string;
}

function parseNow(text: string | undefined): number {
  return text === undefined || text === "" ? Date.now() : instantFlag("--now", text);
}

/**
 * Default: the most recently active chain of the current project; `--all-sessions`: every session
 * of it; `--all`: every project.
 */
export function resolveActivityScope(
  db: Database,
  args: Pick<ActivityRecallArgs, "session" | "project" | "all" | "allSessions">,
  cwd: string,
): { scope: Scope; label: string; project: string | null } {
  if (args.session) args = { ...args, session: sessionIdFor(db, args.session) };
  if (args.all) {
    if (args.session !== undefined || args.project !== undefined || args.allSessions)
      throw new ThroughlineError(
        "E_ARGS",
        "recall takes one scope: --session <id>, --project <dir>, --all-sessions or --all (every project)",
      );
    return { scope: { kind: "all" }, label: "every project", project: null };
  }
  const project = (): string => {
    if (args.project) return resolveProject(db, args.project, cwd);
    if (args.session) {
      const p =
        getSession(db, resolveChain(db, args.session))?.project ?? getSession(db, args.session)?.project;
      if (p) return p;
    }
    const here = normalizeProject(cwd);
    return findProject(db, here) ?? here;
  };
  if (args.allSessions) {
    const p = project();
    return { scope: { kind: "project", project: p }, label: `every session of ${p}`, project: p };
  }
  if (args.session) {
    const live = resolveChain(db, args.session);
    return {
      scope: { kind: "chain", live, parts: chainParts(db, live) },
      label: `session ${live}`,
      project: getSession(db, live)?.project ?? null,
    };
  }
  // No scope given: the session the model's Bash runs in, else the project's latest chain.
  const fromEnv = args.project ? null : envChain(db);
  if (fromEnv)
    return {
      scope: { kind: "chain", live: fromEnv.live },
      label: `session ${fromEnv.live}`,
      project: getSession(db, fromEnv.live)?.project ?? null,
    };
  const p = project();
  const live = latestChain(db, p);
  if (live === null) return { scope: { kind: "project", project: p }, label: `project ${p}`, project: p };
  return {
    scope: { kind: "chain", live, parts: chainParts(db, live) },
    label: `session ${live} (latest in ${p})`,
    project: p,
  };
}

export async function runActivityRecall(args: ActivityRecallArgs): Promise<void> {
  const now = parseNow(args.now);
  withReader(databasePath(process.env, args.db), (db) => {
    const { scope, label, project } = resolveActivityScope(db, args, process.cwd());
    const view = activityView(db, args.words, { now, scope, label, project });
    if (args.json) printJson(activityJson(view));
    else console.log(renderActivity(view, selfInvocation()));
  });
}
