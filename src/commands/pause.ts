/**
 * `throughline pause` / `resume` (docs/memory-control.md): add or remove a project or a session
 * in the never list, `$THROUGHLINE_HOME/never`. Every hook reads that file before it opens the
 * database and does nothing for a listed session; `import` passes listed transcripts over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { defineCommand } from "citty";
import { isObject, parseLine } from "../core/jsonl.ts";
import { formatNever, isEmptyNever, isNever, type NeverList, neverPath, parseNever } from "../core/never.ts";
import { type Env, normalizeProject, throughlineHome } from "../core/paths.ts";
import { projectOf } from "../db/project.ts";
import { ThroughlineError } from "../errors.ts";
import { jsonArgs, printJson } from "./_args.ts";

export function readNever(env: Env): NeverList {
  try {
    return parseNever(readFileSync(neverPath(env), "utf8"));
  } catch {
    return { projects: [], sessions: [] };
  }
}

function writeNever(env: Env, list: NeverList): void {
  const dir = throughlineHome(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = neverPath(env);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, formatNever(list), { mode: 0o600 });
  renameSync(tmp, path);
}

/** The session id and working directory a transcript file belongs to (its first entry with a cwd). */
function transcriptOwner(file: string): { sessionId: string; cwd: string | null } {
  const parts = file.split("/");
  const sub = parts.lastIndexOf("subagents");
  const sessionId =
    sub > 0
      ? parts[sub - 1]!
      : basename(file)
          .replace(/\.jsonl$/, "")
          .replace(/\.sub-agent-.*$/, "");
  let cwd: string | null = null;
  try {
    const fd = openSync(file, "r");
    try {
      const buf = new Uint8Array(65536);
      const n = readSync(fd, buf, 0, buf.length, 0);
      for (const line of new TextDecoder().decode(buf.subarray(0, n)).split("\n")) {
        const e = parseLine(line);
        if (isObject(e) && typeof e.cwd === "string" && e.cwd) {
          cwd = e.cwd;
          break;
        }
      }
    } finally {
      closeSync(fd);
    }
  } catch {
    // unreadable: the ingest reports it
  }
  return { sessionId, cwd };
}

/**
 * For `import`: a filter that passes over transcripts of listed sessions and projects, or null
 * when nothing is listed (the common case costs nothing).
 */
export function neverTranscriptFilter(env: Env): ((file: string) => boolean) | null {
  const list = readNever(env);
  if (isEmptyNever(list)) return null;
  return (file) => {
    const who = transcriptOwner(file);
    return !isNever(list, {
      sessionId: who.sessionId,
      cwd: who.cwd,
      project: who.cwd ? projectOf(who.cwd, env) : null,
    });
  };
}

const targetArgs = {
  project: {
    type: "string",
    description: "A project directory (default: the project of the current directory)",
    valueHint: "dir",
  },
  session: { type: "string", description: "One session, by id", valueHint: "id" },
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
  const dir = normalizeProject(resolve(args.project ?? process.cwd()));
  return { kind: "project", value: projectOf(dir) };
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
    description: "Capture a paused project (default: this one) or session again",
  },
  args: targetArgs,
  run({ args }) {
    const env = process.env;
    const list = readNever(env);
    const t = target(args, "resume");
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
