/**
 * The activity of a page of turns on a time axis, as SVG (docs/ui.md, "A chain"): one tick per
 * turn start, one mark per event (edits, commits, tests, errors…), each with a `<title>`.
 * Attributes only (no style attribute: the page's CSP forbids inline styles).
 */
import { type Html, html, raw } from "../html.ts";

export interface AxisEvent {
  ts: number;
  type: string;
  summary: string;
}

export interface AxisTurn {
  startedAt: number;
  label: string;
  anchor: string;
}

const WIDTH = 960;
const HEIGHT = 96;
const PAD = 24;

/** The class of an event's mark: one per kind of activity (colours live in style.css). */
export function markClass(type: string): string {
  if (type === "file_edit" || type === "file_create") return "ev-edit";
  if (type === "git_commit" || type === "git_checkout") return "ev-commit";
  if (type === "test_run") return "ev-test";
  if (type === "error") return "ev-error";
  return "ev-other";
}

const ROWS: Record<string, number> = {
  "ev-edit": 30,
  "ev-commit": 44,
  "ev-test": 58,
  "ev-error": 72,
  "ev-other": 86,
};

function clockLabel(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** The axis for turns and events between `from` and `to` (epoch ms). */
export function timelineSvg(turns: readonly AxisTurn[], events: readonly AxisEvent[]): Html {
  const times = [...turns.map((t) => t.startedAt), ...events.map((e) => e.ts)];
  if (times.length === 0) return raw("");
  const from = Math.min(...times);
  const to = Math.max(...times, from + 1);
  const x = (ms: number) => (PAD + ((ms - from) / (to - from)) * (WIDTH - 2 * PAD)).toFixed(1);
  const ticks = turns.map(
    (t) =>
      html`<a href="#${t.anchor}"><line class="tick" x1="${x(t.startedAt)}" y1="14" x2="${x(t.startedAt)}" y2="92"><title>${t.label}</title></line></a>`,
  );
  const marks = events.map((e) => {
    const cls = markClass(e.type);
    return html`<circle class="${cls}" cx="${x(e.ts)}" cy="${ROWS[cls] ?? 86}" r="4"><title>${clockLabel(e.ts)} ${e.type}: ${e.summary}</title></circle>`;
  });
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" height="${HEIGHT}" role="img" aria-label="activity on a time axis">
<line class="axis" x1="${PAD}" y1="14" x2="${WIDTH - PAD}" y2="14"></line>
<text class="axis-label" x="${PAD}" y="10">${clockLabel(from)}</text>
<text class="axis-label" x="${WIDTH - PAD}" y="10" text-anchor="end">${clockLabel(to)}</text>
${ticks}${marks}
</svg>
<p class="legend"><span class="key ev-edit">●</span> edits <span class="key ev-commit">●</span> commits <span class="key ev-test">●</span> tests <span class="key ev-error">●</span> errors <span class="key ev-other">●</span> other</p>`;
}
