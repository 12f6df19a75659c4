import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { summaryLine, summaryReport } from "../capture/summarize.ts";
import { formatIso } from "../core/clock.ts";
import { selfInvocation, shellQuote } from "../core/invocation.ts";
import { isObject } from "../core/jsonl.ts";
import { claudeConfigDir, databasePath } from "../core/paths.ts";
import {
  BACKGROUND_HEAD,
  backgrounded,
  COMMAND_MARKER,
  hookProgram,
  missingRules,
  OUR_HOOKS,
  registeredHooks,
} from "../core/settings.ts";
import { plural } from "../core/text.ts";
import { waitingClearMarks } from "../db/marks/clear.ts";
import { unmarkedRows, waitingIntents } from "../db/marks/pending.ts";
import { openForRead, withReader, withWriter } from "../db/open.ts";
import { turnCounts } from "../db/queries/counts.ts";
import { cursorsOf, lastIngests } from "../db/queries/cursors.ts";
import { clearLinksOf, getPending, handoffsOf, lastHandoff, lastInjection } from "../db/queries/handoff.ts";
import { clearHookErrors, hookErrorCounts, hookErrorsSince } from "../db/queries/hook-errors.ts";
import { quickCheck, schemaVersion } from "../db/queries/integrity.ts";
import { sessionIdFor } from "../db/queries/session-arg.ts";
import { getSession, mergedInto, resolveLive } from "../db/queries/sessions.ts";
import { writeTransaction } from "../db/tx.ts";
import { SCHEMA_VERSION } from "../db/version.ts";
import { errorLine, ThroughlineError } from "../errors.ts";
import { stdoutColors } from "../render/colors.ts";
import { type Check, renderDoctor, renderDoctorSession } from "../render/doctor.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { codexChecks } from "./_codex-install.ts";
import { defineCommand } from "./_define.ts";
import { memoryChecks } from "./_doctor-memory.ts";
import { syncCheck } from "./_doctor-sync.ts";
import { readSettings } from "./_settings-file.ts";

/** Is the first word of a hook command something that can run? */
function resolvable(command: string): boolean {
  const m = /^"([^"]+)"|^(\S+)/.exec(command);
  const exe = m?.[1] ?? m?.[2] ?? "";
  if (exe.includes("/")) return existsSync(exe);
  return Bun.which(exe) !== null;
}

/**
 * Enabled throughline plugins (`throughline@<marketplace>`), from Claude Code's own records:
 * installed_plugins.json, minus what `enabledPlugins` in the user settings turns off.
 */
function installedPlugins(configDir: string, userSettings: string): string[] {
  let ids: string[] = [];
  try {
    const v = JSON.parse(readFileSync(join(configDir, "plugins", "installed_plugins.json"), "utf8"));
    ids = Object.keys(isObject(v) && isObject(v.plugins) ? v.plugins : {}).filter((k) =>
      k.startsWith("throughline@"),
    );
  } catch {
    return [];
  }
  let enabled: Record<string, unknown> = {};
  try {
    const s = readSettings(userSettings).settings;
    if (isObject(s.enabledPlugins)) enabled = s.enabledPlugins;
  } catch {
    // hookChecks reports a settings file that does not parse
  }
  return ids.filter((id) => enabled[id] !== false);
}

function pluginCheck(plugins: string[], settingsHooks: boolean): Check | null {
  if (plugins.length === 0) return null;
  if (!settingsHooks)
    return {
      name: "plugin",
      ok: true,
      detail: `${plugins.join(", ")} registers the hooks and slash commands`,
    };
  return {
    name: "plugin and settings install",
    ok: false,
    detail: `${plugins.join(", ")} and the hooks in settings.json would capture every turn twice`,
    fix: `keep one: \`${selfInvocation()} uninstall\` (settings), or \`claude plugin uninstall ${plugins[0]}\``,
  };
}

function hookChecks(settingsPaths: string[]): Check[] {
  const checks: Check[] = [];
  const found: { event: string; command: string; async: boolean; file: string }[] = [];
  for (const file of settingsPaths) {
    if (!existsSync(file)) continue;
    try {
      for (const h of registeredHooks(readSettings(file).settings)) found.push({ ...h, file });
    } catch (err) {
      checks.push({ name: "settings", ok: false, detail: errorLine(err), fix: `fix the JSON in ${file}` });
    }
  }
  for (const spec of OUR_HOOKS) {
    const hits = found.filter((f) => f.event === spec.event);
    if (hits.length === 0) {
      checks.push({
        name: `hook ${spec.event}`,
        ok: false,
        detail: "not registered",
        fix: `run \`${selfInvocation()} install\``,
      });
      continue;
    }
    for (const h of hits) {
      const problems: string[] = [];
      if (h.async !== spec.async) problems.push(spec.async ? "should be async" : "must not be async");
      if (!resolvable(hookProgram(h.command))) problems.push("command not found");
      // Works, but the client waits for the whole hand-off (docs/hooks.md): worth a hint, not a failure.
      const older = backgrounded(spec.sub) && !h.command.startsWith(BACKGROUND_HEAD);
      const rewrite = `run \`${selfInvocation()} install\` again to rewrite the entry`;
      checks.push({
        name: `hook ${spec.event}`,
        ok: problems.length === 0,
        detail: `${h.command}${h.async ? " (async)" : ""} in ${h.file}${problems.length ? `: ${problems.join(", ")}` : ""}${older && !problems.length ? " (an earlier release's form: the client waits for the hand-off)" : ""}`,
        ...(problems.length || older ? { fix: rewrite } : {}),
      });
    }
  }
  if (OUR_HOOKS.some((spec) => found.filter((f) => f.event === spec.event).length > 1))
    checks.push({
      name: "duplicate hooks",
      ok: false,
      detail: "throughline hooks are registered in more than one settings file or plugin",
      fix: `run \`${selfInvocation()} uninstall --project\` or \`${selfInvocation()} uninstall\` for the copy you do not want`,
    });
  return checks;
}

/**
 * The read-only pulls run without an approval prompt only when the allow rules for this
 * invocation are in one of the settings files (docs/hooks.md, "Commands the model runs").
 */
function permissionCheck(settingsPaths: string[], invocation: string): Check {
  let missing: string[] | null = null;
  for (const file of settingsPaths) {
    if (!existsSync(file)) continue;
    try {
      const m = missingRules(readSettings(file).settings, invocation);
      if (missing === null || m.length < missing.length) missing = m;
    } catch {
      // hookChecks already reports a settings file that does not parse.
    }
  }
  missing ??= missingRules({}, invocation);
  return missing.length === 0
    ? { name: "allow rules", ok: true, detail: `read-only commands run without a prompt (${invocation} …)` }
    : {
        name: "allow rules",
        ok: false,
        detail: `${missing.length} missing, so the model's pulls wait for approval: ${missing[0]}${missing.length > 1 ? ", …" : ""}`,
        fix: `run \`${invocation} install\``,
      };
}

/** Why the database cannot be read, and the fix that fits: `migrate` only mends an older schema. */
function unreadable(path: string, err: unknown): { detail: string; fix: string } {
  const code = err instanceof ThroughlineError ? err.code : "";
  if (code === "E_NOT_A_DATABASE")
    return {
      detail: `${path} is not a throughline database (file is not a database)`,
      fix: `move it aside (\`mv ${shellQuote(path)} ${shellQuote(`${path}.bad`)}\`; the next hook creates a new one), or point --db or THROUGHLINE_DB at another file`,
    };
  if (code === "E_OLD_SCHEMA") return { detail: errorLine(err), fix: `run \`${selfInvocation()} migrate\`` };
  if (code === "E_FUTURE_SCHEMA")
    return { detail: errorLine(err), fix: "upgrade throughline (this one is older than the database)" };
  return { detail: errorLine(err), fix: `check that you can read ${path} and its directory` };
}

function databaseChecks(path: string, plugin: boolean): { checks: Check[]; extra: Record<string, unknown> } {
  const checks: Check[] = [];
  const extra: Record<string, unknown> = {};
  // A plugin install has no install step of ours: its first hook creates the database.
  if (!existsSync(path) && plugin) {
    checks.push({
      name: "database",
      ok: true,
      detail: `not created yet at ${path}: the first hook creates it`,
    });
    return { checks, extra };
  }
  if (!existsSync(path)) {
    checks.push({
      name: "database",
      ok: false,
      detail: `no database at ${path}`,
      fix: `run \`${selfInvocation()} install\` (hooks create it on first use)`,
    });
    return { checks, extra };
  }
  const mode = statSync(path).mode & 0o777;
  checks.push({
    name: "database permissions",
    ok: (mode & 0o077) === 0,
    detail: `${path} mode ${mode.toString(8)}`,
    ...((mode & 0o077) !== 0 ? { fix: `chmod 600 ${path}` } : {}),
  });
  let db: ReturnType<typeof openForRead>;
  try {
    db = openForRead(path);
  } catch (err) {
    checks.push({ name: "database schema", ok: false, ...unreadable(path, err) });
    return { checks, extra };
  }
  try {
    checks.push({
      name: "database schema",
      ok: true,
      detail: `version ${schemaVersion(db)} (current ${SCHEMA_VERSION})`,
    });
    const qc = quickCheck(db);
    checks.push({
      name: "database integrity",
      ok: qc === "ok",
      detail: qc,
      ...(qc !== "ok"
        ? {
            fix: `back up ${path}, then replay your transcripts with \`${selfInvocation()} replay\` into a new one`,
          }
        : {}),
    });
    const marks = unmarkedRows(db, path);
    // SessionStarts not claimed yet (docs/hooks.md): their first prompt, or any later one, claims them.
    const waiting = waitingIntents(path).length;
    const andWaiting = waiting > 0 ? `; ${plural(waiting, "SessionStart")} waiting for a first prompt` : "";
    checks.push({
      name: "pending handoffs",
      ok: marks === null || marks.ids.length === 0,
      detail:
        (marks === null
          ? "no marks yet: prompts ask the database (the next hook sets them up)"
          : marks.ids.length === 0
            ? marks.rows === 0
              ? "none"
              : `${plural(marks.rows, "pending handoff")}, each with its mark`
            : `${plural(marks.ids.length, "pending handoff")} without a mark, which a prompt would skip: ${marks.ids.join(", ")}`) +
        andWaiting,
      ...(marks !== null && marks.ids.length > 0
        ? { fix: `rm ${shellQuote(marks.sentinel)}   # the next hook marks every pending handoff again` }
        : {}),
    });
    checks.push(hookErrorCheck(db, Date.now()));
    // Informational: a reached ceiling is a choice (THROUGHLINE_L1_DAILY_MAX), not a fault.
    const summaries = summaryReport(db, process.env, Date.now());
    checks.push({ name: "summaries", ok: true, detail: summaryLine(summaries) });
    extra.summaries = summaries;
    extra.last_ingests = lastIngests(db, 5).map((r) => ({ ...r, updated_at: formatIso(r.updated_at) }));
  } finally {
    db.close();
  }
  return { checks, extra };
}

/** Hook errors fail doctor for this long after they were recorded; older ones are only counted. */
export const HOOK_ERROR_WINDOW_MS = 24 * 3_600_000;
const WINDOW_TEXT = "in the last 24 hours";
/** Recent errors doctor lists, newest first; the rest are counted. */
const ERRORS_SHOWN = 5;

/** Hook errors of the last day fail doctor; older ones are counted beside them (issue 45, item 2). */
function hookErrorCheck(db: ReturnType<typeof openForRead>, now: number): Check {
  const since = now - HOOK_ERROR_WINDOW_MS;
  const { recent, older } = hookErrorCounts(db, since);
  const andOlder = older > 0 ? `; ${older} older` : "";
  if (recent === 0) return { name: "recent hook errors", ok: true, detail: `none ${WINDOW_TEXT}${andOlder}` };
  const shown = hookErrorsSince(db, since, ERRORS_SHOWN).map(
    (e) => `${formatIso(e.created_at)} ${e.event}: ${e.message}`,
  );
  if (recent > shown.length) shown.push(`and ${recent - shown.length} more`);
  return {
    name: "recent hook errors",
    ok: false,
    detail: [`${plural(recent, "hook error")} ${WINDOW_TEXT}${andOlder}:`, ...shown].join("\n    "),
    fix: `read the messages above (\`${selfInvocation()} doctor --session <id>\` shows one session); \`${selfInvocation()} doctor --clear-errors\` acknowledges them`,
  };
}

/** What `doctor --clear-errors` removed; null counts: there is no database. */
interface Cleared {
  cleared: number;
  recent: number;
  older: number;
}

/**
 * `doctor --clear-errors`: removes the hook errors recorded so far, the ones doctor reports, and
 * says how many. A write, so it opens the database read-write; without a database it creates none.
 */
function clearErrors(path: string, now: number): Cleared | null {
  if (!existsSync(path)) return null;
  return withWriter(path, (db) =>
    writeTransaction(db, () => {
      const { recent, older, newest } = hookErrorCounts(db, now - HOOK_ERROR_WINDOW_MS);
      return { cleared: clearHookErrors(db, newest), recent, older };
    }),
  );
}

function clearedLine(c: Cleared | null): string {
  if (c === null) return "Cleared no hook errors: there is no database yet.";
  if (c.cleared === 0) return "Cleared no hook errors: none were recorded.";
  return `Cleared ${plural(c.cleared, "hook error")} (${c.recent} from the last 24 hours, ${c.older} older).`;
}

async function sessionReport(path: string, prefix: string): Promise<Record<string, unknown>> {
  // A SessionEnd(clear) the next handoff has not folded into clear_links yet (docs/hooks.md).
  const { marks: waitingClears } = await waitingClearMarks(path);
  return withReader(path, (db) => {
    const id = sessionIdFor(db, prefix);
    const s = getSession(db, id)!;
    const live = resolveLive(db, id);
    const injection = lastInjection(db, live.id);
    return {
      session_id: id,
      project: s.project,
      transcript: s.transcript_path,
      transcript_exists: s.transcript_path ? existsSync(s.transcript_path) : false,
      created_at: formatIso(s.created_at),
      updated_at: formatIso(s.updated_at),
      cursors: cursorsOf(db, id).map((c) => ({ ...c, updated_at: formatIso(c.updated_at) })),
      turns: turnCounts(db, id),
      chain: {
        merged_into: s.merged_into,
        live_end: live.id,
        cycle: live.cycle,
        predecessors: mergedInto(db, id),
      },
      pending_handoff: getPending(db, id),
      last_handoff: lastHandoff(db, id),
      // How each handoff chose its predecessor (link, baton, fallback) and on what evidence,
      // and which client cleared this session: enough to tell why a wrong memory arrived.
      handoffs: handoffsOf(db, id).map((h) => ({
        choice: h.predecessor ? `${h.chosen_by ?? "unrecorded"} → ${h.predecessor}` : (h.chosen_by ?? "none"),
        ...h,
        created_at: formatIso(h.created_at),
      })),
      cleared_by: [
        ...clearLinksOf(db, id),
        ...waitingClears
          .filter((c) => c.mark.session_id === id)
          .map(({ mark: { cwd, ...m } }) => ({ ...m, project: null, cwd, waiting: true })),
      ].map((l) => ({ ...l, created_at: formatIso(l.created_at) })),
      last_injection: injection ? { ...injection, created_at: formatIso(injection.created_at) } : null,
    };
  });
}

export default defineCommand({
  meta: {
    name: "doctor",
    examples: ["throughline doctor", "throughline doctor --session 5e1f0c2a"],
    description: "Check the installation and the database; each problem comes with a one-line fix",
  },
  args: {
    session: {
      type: "string",
      description: "Show one session (id or prefix): transcript, cursor, turns, chain, handoff",
      valueHint: "id-prefix",
    },
    "clear-errors": {
      type: "boolean",
      description: "Acknowledge the hook errors doctor reports (removes them and says how many), then check",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  async run({ args }) {
    const path = databasePath(process.env, args.db);
    if (args.session) {
      const report = await sessionReport(path, args.session);
      if (args.json) return printJson({ schema: "throughline.doctor.session.v1", ...report });
      console.log(renderDoctorSession(report));
      return;
    }
    // Before the checks, so that the report shows the state it leaves.
    const clear = args["clear-errors"] === true;
    const cleared = clear ? clearErrors(path, Date.now()) : null;
    const checks: Check[] = [{ name: "bun", ok: true, detail: `Bun ${Bun.version}` }];
    const userDir = claudeConfigDir(process.env);
    const settingsFiles = [
      join(userDir, "settings.json"),
      join(".claude", "settings.json"),
      join(".claude", "settings.local.json"),
    ];
    const plugins = installedPlugins(userDir, settingsFiles[0]!);
    const db = databaseChecks(path, plugins.length > 0);
    checks.push(...db.checks);
    const settingsHooks = settingsFiles.some((f) => {
      try {
        return existsSync(f) && registeredHooks(readSettings(f).settings).length > 0;
      } catch {
        return false;
      }
    });
    const plugin = pluginCheck(plugins, settingsHooks);
    if (plugin) checks.push(plugin);
    // A plugin brings its own hooks, commands and permission answers (docs/plugin.md).
    if (plugins.length === 0 || settingsHooks)
      checks.push(...hookChecks(settingsFiles), permissionCheck(settingsFiles, selfInvocation()));
    for (const name of plugins.length > 0 ? [] : ["tl", "recall", "sc-detail"]) {
      const files = [join(userDir, "commands", `${name}.md`), join(".claude", "commands", `${name}.md`)];
      const found = files.find((f) => existsSync(f) && readFileSync(f, "utf8").includes(COMMAND_MARKER));
      checks.push({
        name: `slash command /${name}`,
        ok: found !== undefined,
        detail: found ?? "missing",
        ...(found ? {} : { fix: `run \`${selfInvocation()} install\`` }),
      });
    }
    // Codex, when it has a home here (docs/hosts.md): hooks present, trusted, their program found.
    checks.push(...codexChecks(process.env));
    // Beside Claude Code's own memory: information, never a problem (_doctor-memory.ts).
    checks.push(...memoryChecks(process.env, path, settingsFiles));
    checks.push(syncCheck(path));
    // Informational: where to see the memory (docs/ui.md).
    checks.push({
      name: "web view",
      ok: true,
      detail: `\`${selfInvocation()} ui\` shows this memory in a local, read-only page (docs/ui.md)`,
    });
    const problems = checks.filter((c) => !c.ok).length;
    if (args.json)
      printJson({
        schema: "throughline.doctor.v1",
        database: path,
        problems,
        ...(clear ? { cleared_errors: cleared?.cleared ?? 0 } : {}),
        checks,
        ...db.extra,
      });
    else console.log(`${clear ? `${clearedLine(cleared)}\n\n` : ""}${renderDoctor(checks, stdoutColors())}`);
    if (problems > 0) process.exitCode = 1;
  },
});
