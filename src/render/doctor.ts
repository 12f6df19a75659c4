/** Text of `doctor` and `doctor --session`: view model in, string out. */
import { plural } from "../core/text.ts";
import { type Colors, PLAIN_COLORS } from "./colors.ts";

/** One line of the report; a failed check carries a one-line fix. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

export function renderDoctor(checks: readonly Check[], c: Colors = PLAIN_COLORS): string {
  const lines: string[] = [];
  for (const ch of checks) {
    lines.push(`${ch.ok ? c.green("ok  ") : c.red("FAIL")} ${ch.name}: ${ch.detail}`);
    if (ch.fix) lines.push(`     fix: ${ch.fix}`);
  }
  const problems = checks.filter((ch) => !ch.ok).length;
  lines.push(problems === 0 ? "\nNo problems found." : `\n${plural(problems, "problem")} found.`);
  return lines.join("\n");
}

/** One `key  value` line per field of the session report; objects (and null) as one-line JSON. */
export function renderDoctorSession(report: Record<string, unknown>): string {
  return Object.entries(report)
    .map(([k, v]) => `${k.padEnd(18)} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join("\n");
}
