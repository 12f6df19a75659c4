/**
 * Hook latency as the real Claude Code client records it, for `bun run bench`.
 *
 * Claude Code 2.1.197 writes a duration into the transcript only in these places:
 * - `attachment` entries `hook_success` (a hook that printed something), `hook_non_blocking_error`
 *   (exit 1) and their kin: `{hookEvent, hookName, command, durationMs, exitCode}`;
 * - `system` / `stop_hook_summary` entries (interactive sessions): `hookInfos[]` with
 *   `{command, durationMs}`, where `durationMs` is present for synchronous Stop hooks only.
 * A hook that succeeds silently, and any async hook, leaves no duration: the numbers here are
 * the hooks whose output reached the model (the push) or that failed.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  CLI_ENTRY,
  createHome,
  e2eSkipReason,
  installHooks,
  readTranscript,
  TmuxClaude,
  type TranscriptEntry,
} from "./driver.ts";
import { lastPrompt } from "./stand-in.ts";

export interface HookLatency {
  sessionId: string;
  /** `SessionStart`, `UserPromptSubmit`, `Stop`, … */
  event: string;
  /** Claude Code's label, e.g. `SessionStart:clear`. */
  hookName: string;
  command: string;
  durationMs: number;
  /** The attachment type (`hook_success`, `hook_non_blocking_error`, …) or `stop_hook_summary`. */
  outcome: string;
  exitCode: number | null;
  /** The command is one of throughline's (not the test recorder or another tool's hook). */
  throughline: boolean;
  timestamp: string;
}

export interface HookLatencySummary {
  event: string;
  outcome: string;
  count: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

export interface HookLatencyReport {
  entries: HookLatency[];
  /** Throughline's hooks only, grouped by event and outcome. */
  summary: HookLatencySummary[];
  /** Set when the scenario could not run here (no CLI, no tmux, THROUGHLINE_SKIP_E2E=1). */
  skipped?: string;
}

function isThroughline(command: string): boolean {
  return command.includes(CLI_ENTRY) || /\bthroughline\b[^/]*\bhook\b/.test(command);
}

function obj(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Every hook duration recorded in one transcript's entries. */
export function parseHookLatencies(entries: TranscriptEntry[]): HookLatency[] {
  const out: HookLatency[] = [];
  for (const e of entries) {
    const sessionId = String(e.sessionId ?? "");
    const timestamp = String(e.timestamp ?? "");
    const att = obj(e.attachment);
    if (
      e.type === "attachment" &&
      att &&
      typeof att.durationMs === "number" &&
      typeof att.hookEvent === "string"
    ) {
      const command = String(att.command ?? "");
      out.push({
        sessionId,
        event: att.hookEvent,
        hookName: String(att.hookName ?? att.hookEvent),
        command,
        durationMs: att.durationMs,
        outcome: String(att.type ?? "attachment"),
        exitCode: typeof att.exitCode === "number" ? att.exitCode : null,
        throughline: isThroughline(command),
        timestamp,
      });
    }
    if (e.type === "system" && e.subtype === "stop_hook_summary" && Array.isArray(e.hookInfos)) {
      for (const info of e.hookInfos) {
        const i = obj(info);
        if (!i || typeof i.durationMs !== "number") continue;
        const command = String(i.command ?? "");
        out.push({
          sessionId,
          event: "Stop",
          hookName: "Stop",
          command,
          durationMs: i.durationMs,
          outcome: "stop_hook_summary",
          exitCode: null,
          throughline: isThroughline(command),
          timestamp,
        });
      }
    }
  }
  return out;
}

/** Every `*.jsonl` transcript under `<claude config dir>/projects`. */
export function listTranscripts(configDir: string): string[] {
  const base = join(configDir, "projects");
  const out: string[] = [];
  let dirs: string[] = [];
  try {
    dirs = readdirSync(base);
  } catch {
    return out;
  }
  for (const d of dirs)
    for (const f of readdirSync(join(base, d))) if (f.endsWith(".jsonl")) out.push(join(base, d, f));
  return out.sort();
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarizeHookLatencies(entries: HookLatency[]): HookLatencySummary[] {
  const groups = new Map<string, number[]>();
  for (const e of entries) {
    if (!e.throughline) continue;
    const key = `${e.event}\u0000${e.outcome}`;
    const list = groups.get(key) ?? [];
    list.push(e.durationMs);
    groups.set(key, list);
  }
  return [...groups.entries()]
    .map(([key, ms]) => {
      const [event = "", outcome = ""] = key.split("\u0000");
      const sorted = [...ms].sort((a, b) => a - b);
      return {
        event,
        outcome,
        count: sorted.length,
        medianMs: percentile(sorted, 50),
        p95Ms: percentile(sorted, 95),
        maxMs: sorted.at(-1) ?? 0,
      };
    })
    .sort((a, b) => a.event.localeCompare(b.event) || a.outcome.localeCompare(b.outcome));
}

export interface HookLatencyOptions {
  /** Parse these transcripts instead of running a scenario. */
  transcripts?: string[];
  /** Rounds of (prompt, prompt, /clear) in the scenario; default 3. */
  rounds?: number;
}

/**
 * Hook latencies as the client records them. Without `transcripts`, runs its own interactive
 * scenario first (isolated home, stand-in model, throughline hooks installed the way the suite
 * installs them, no recorder): `rounds` × (two prompts, `/clear`), then one last prompt, so
 * every push the product makes after `/clear` is in the numbers.
 */
export async function hookLatencies(opts: HookLatencyOptions = {}): Promise<HookLatencyReport> {
  if (opts.transcripts) {
    const entries = opts.transcripts.flatMap((p) => parseHookLatencies(readTranscript(p)));
    return { entries, summary: summarizeHookLatencies(entries) };
  }
  const skipped = e2eSkipReason();
  if (skipped) return { entries: [], summary: [], skipped };

  await using h = await createHome({ script: (_r, body) => `Noted: ${lastPrompt(body)}` });
  installHooks(h, "auto", { record: false });
  const tmux = await TmuxClaude.start(h);
  try {
    await tmux.waitReady(60_000);
    const rounds = opts.rounds ?? 3;
    for (let r = 1; r <= rounds; r++) {
      for (const n of [1, 2]) {
        const prompt = `latency round ${r} prompt ${n}`;
        await tmux.submit(prompt);
        await tmux.waitForScreen((s) => s.includes(`Noted: ${prompt}`), `the reply to "${prompt}"`);
      }
      await tmux.clear(`Noted: latency round ${r} prompt 2`);
    }
    const last = "latency final prompt";
    await tmux.submit(last);
    await tmux.waitForScreen((s) => s.includes(`Noted: ${last}`), "the last reply");
  } finally {
    await tmux.close();
  }
  const entries = listTranscripts(h.configDir).flatMap((p) => parseHookLatencies(readTranscript(p)));
  return { entries, summary: summarizeHookLatencies(entries) };
}
