/**
 * Cutting coloured text to a terminal width (docs/monitor.md). A line wider than the terminal
 * wraps, and a redraw that moves the cursor up by the number of lines it printed then lands in
 * the middle of the previous frame: every line of a live view is cut here first.
 */

// CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks), as picocolors and
// terminals write them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point.
const ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/y;

/**
 * The visible prefix of `line` at most `width` columns wide (wide characters count two).
 * Every escape sequence of the line is kept, including those after the cut, so each colour
 * that was opened is closed again exactly as the original closed it.
 */
export function cutToWidth(line: string, width: number): string {
  if (Bun.stringWidth(line) <= width) return line;
  let out = "";
  let used = 0;
  let full = false;
  let i = 0;
  while (i < line.length) {
    ESCAPE.lastIndex = i;
    const m = ESCAPE.exec(line);
    if (m) {
      out += m[0];
      i += m[0].length;
      continue;
    }
    const cp = line.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (full) continue;
    const w = Bun.stringWidth(ch);
    if (used + w > Math.max(0, width)) {
      full = true;
      continue;
    }
    out += ch;
    used += w;
  }
  return out;
}

/** Columns a line takes on screen, escape sequences excluded. */
export function visibleWidth(line: string): number {
  return Bun.stringWidth(line);
}
