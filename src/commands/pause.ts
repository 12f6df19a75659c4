/**
 * `throughline pause` / `resume` (docs/memory-control.md): add or remove a project or a session
 * in the never list, `$THROUGHLINE_HOME/never`. Every hook reads that file before it opens the
 * database and does nothing for a listed session; `import` passes listed transcripts over.
 */
import { resolve } from "node:path";
import { readNever, writeNever } from "../capture/never-file.ts";
import { isEmptyNever, type NeverList, neverPath } from "../core/never.ts";
import { databasePath, type Env, normalizeProject } from "../core/paths.ts";
import { withReader } from "../db/open.ts";
import { resolveProject } from "../db/project.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { ThroughlineError } from "../errors.ts";
import { jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

const targetArgs = {
  project: {
    type: "string",
    description: "A project directory (default: the project of the current directory)",
    valueHint: "dir",
  },
  session: {
    type: "string",
    description: "One session, by its id or a unique prefix of it",
    valueHint: "id",
  },
  ...jsonArgs,
} as const;

type Target = { kind: "project"; value: string } | { kind: "session"; value: string };

function target(args: { project?: string | undefined; session?: string | undefined }, verb: string): Target {
  if (args.project !== undefined && args.session !== undefined)
    throw new ThroughlineError("E_ARGS", `${verb} takes --project <dir> or --session <id>, not both`);
  if (args.session !== undefined) {
    if (args.session.trim() === "" || /\s/.test(args.session))
      throw new ThroughlineError("E_ARGS", `--session: not a session id: ${JSON.stringify(args.session)}`);
    return { kind: "session", value: args.session };
  }
  return { kind: "project", value: resolveProject(null, args.project, process.cwd()) };
}

/**
 * pause: a unique prefix of a recorded session is that session. An id no recorded session starts
 * with is kept as given: a session not recorded yet (or no database yet) can be paused by its id.
 */
function recordedSession(given: string): string {
  try {
    return withReader(databasePath(process.env), (db) => sessionIdFor(db, given, true));
  } catch (err) {
    if (err instanceof ThroughlineError && err.code === "E_NO_DATABASE") return given;
    throw err;
  }
}

/** resume: a unique prefix of a paused session is that session. */
function pausedSession(given: string, paused: readonly string[]): string {
  if (paused.includes(given)) return given;
  const matches = paused.filter((s) => s.startsWith(given));
  if (matches.length > 1)
    throw new ThroughlineError(
      "E_AMBIGUOUS_SESSION",
      `--session ${given} matches several paused sessions (${matches.join(", ")}); give more of the id`,
    );
  return matches[0] ?? given;
}

function report(env: Env, list: NeverList, t: Target | null, changed: boolean) {
  return {
    schema: "throughline.never.v1",
    file: neverPath(env),
    projects: list.projects,
    sessions: list.sessions,
    ...(t ? { target: { [t.kind]: t.value }, changed } : {}),
  };
}

export default defineCommand({
  meta: {
    name: "pause",
    examples: ["throughline pause", "throughline pause --session 5e1f0c2a", "throughline pause --list"],
    description:
      "Stop capturing a project (default: this one) or a session, for good until `resume`: hooks and `import` skip it (stored memory is kept; `forget` removes it)",
  },
  args: {
    ...targetArgs,
    list: { type: "boolean", description: "Only show what is paused" },
  },
  run({ args }) {
    const env = process.env;
    const list = readNever(env);
    if (args.list) {
      if (args.json) return printJson(report(env, list, null, false));
      if (isEmptyNever(list)) return console.log("Nothing is paused.");
      for (const p of list.projects) console.log(`project ${p}`);
      for (const s of list.sessions) console.log(`session ${s}`);
      return;
    }
    const t = target(args, "pause");
    if (t.kind === "session") t.value = recordedSession(t.value);
    const entries = t.kind === "project" ? list.projects : list.sessions;
    const changed = !entries.includes(t.value);
    if (changed) {
      entries.push(t.value);
      writeNever(env, list);
    }
    if (args.json) return printJson(report(env, list, t, changed));
    const what = `${t.kind} ${t.value}`;
    console.log(
      changed
        ? `Paused ${what}: it is not captured until \`throughline resume${t.kind === "session" ? ` --session ${t.value}` : ` --project ${t.value}`}\`. Memory already stored is kept (\`throughline forget --${t.kind} ${t.value}\` removes it).`
        : `${what} was already paused.`,
    );
  },
});

export const resume = defineCommand({
  meta: {
    name: "resume",
    examples: ["throughline resume", "throughline resume --session 5e1f0c2a"],
    description: "Capture a paused project (default: this one) or session again",
  },
  args: targetArgs,
  run({ args }) {
    const env = process.env;
    const list = readNever(env);
    const t = target(args, "resume");
    if (t.kind === "session") t.value = pausedSession(t.value, list.sessions);
    const entries = t.kind === "project" ? list.projects : list.sessions;
    // `pause` stores the project's identity; a hand-written entry may name the directory itself.
    const raw = t.kind === "project" ? normalizeProject(resolve(args.project ?? process.cwd())) : t.value;
    const keep = entries.filter((e) => e !== t.value && e !== raw);
    const changed = keep.length !== entries.length;
    if (t.kind === "project") list.projects = keep;
    else list.sessions = keep;
    if (changed) writeNever(env, list);
    if (args.json) return printJson(report(env, list, t, changed));
    console.log(
      changed
        ? `Resumed ${t.kind} ${t.value}: it is captured again.`
        : `${t.kind} ${t.value} was not paused.`,
    );
  },
});
