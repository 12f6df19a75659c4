/**
 * The monitor's view from its flags (docs/monitor.md), over the transcripts
 * src/capture/transcript-watch.ts reads: shared by `monitor` and `ui`.
 */
import { resolve } from "node:path";
import { currentProject, type TranscriptWatcher } from "../capture/transcript-watch.ts";
import { instantFlag } from "../core/clock.ts";
import { normalizeProject } from "../core/paths.ts";
import { ThroughlineError } from "../errors.ts";
import type { MonitorView } from "../render/monitor.ts";

export const IDLE_MINUTES = 15;

export function parseNow(text: string | undefined): number {
  return text ? instantFlag("--now", text) : Date.now();
}

export function parsePositive(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new ThroughlineError("E_ARGS", `--${flag} must be a positive number; got "${text}"`);
  return n;
}

export interface MonitorArgs {
  all?: boolean;
  session?: string;
  project?: string;
  idle?: string;
  now?: string;
}

export function buildView(w: TranscriptWatcher, args: MonitorArgs, now: number, cwd: string): MonitorView {
  const idleMinutes = parsePositive("idle", args.idle, IDLE_MINUTES);
  const project =
    args.all || args.session
      ? null
      : args.project
        ? normalizeProject(resolve(args.project))
        : currentProject(w.configDir, cwd, process.env.HOME);
  const { rows, idleHidden } = w.frame({ project, session: args.session ?? null, idleMinutes }, now);
  return {
    now,
    scopeLabel: args.session ? `session ${args.session}…` : (project ?? "every project"),
    rows,
    idleHidden,
    idleMinutes,
    oneProject: project !== null,
  };
}
