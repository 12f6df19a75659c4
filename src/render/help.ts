/**
 * A command's `--help` (and `throughline help <command>`): what it does, its usage, arguments,
 * flags, subcommands and examples, every line within HELP_WIDTH columns (descriptions wrap
 * under their column). citty's own renderer printed each description on one line, up to 300
 * columns. View model in, string out.
 */
import type { Colors } from "./colors.ts";

/** The widest line help prints: fits a terminal beside a split pane. */
export const HELP_WIDTH = 100;

export interface HelpEntry {
  /** `--session <id>`, `WORDS`, `session-index`: the left column. */
  label: string;
  description: string;
}

export interface HelpModel {
  description: string;
  /** `throughline search [OPTIONS] <WORDS>`. */
  usage: string;
  positionals: HelpEntry[];
  options: HelpEntry[];
  commands: HelpEntry[];
  examples: string[];
  /** The last line: where to look next. */
  footer: string;
}

/** Words of `text` in lines of at most `width` columns (a longer word keeps a line to itself). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** The widest left column; a longer label puts its description on the next line. */
const MAX_LABEL = 28;

function table(entries: HelpEntry[], width: number, paint: (s: string) => string): string[] {
  const labelWidth = Math.min(MAX_LABEL, Math.max(...entries.map((e) => e.label.length)));
  const indent = 2 + labelWidth + 3;
  const out: string[] = [];
  for (const e of entries) {
    const text = wrapWords(e.description, width - indent);
    const pad = " ".repeat(indent);
    if (e.label.length > labelWidth) {
      out.push(`  ${paint(e.label)}`);
      for (const line of text) out.push(`${pad}${line}`);
      continue;
    }
    const first = `  ${paint(e.label)}${" ".repeat(labelWidth - e.label.length + 3)}`;
    out.push(`${first}${text[0] ?? ""}`.trimEnd());
    for (const line of text.slice(1)) out.push(`${pad}${line}`);
  }
  return out;
}

export function renderHelp(m: HelpModel, c: Colors, width = HELP_WIDTH): string {
  const out: string[] = [...wrapWords(m.description, width), ""];
  const usage = wrapWords(m.usage, width - 7);
  out.push(`${c.bold("USAGE")}  ${usage[0]}`, ...usage.slice(1).map((l) => `       ${l}`));
  const section = (title: string, entries: HelpEntry[], paint: (s: string) => string) => {
    if (entries.length > 0) out.push("", c.bold(title), ...table(entries, width, paint));
  };
  section("ARGUMENTS", m.positionals, c.cyan);
  section("OPTIONS", m.options, c.cyan);
  section("COMMANDS", m.commands, c.cyan);
  if (m.examples.length > 0) out.push("", c.bold("EXAMPLES"), ...m.examples.map((e) => `  ${e}`));
  if (m.footer !== "") out.push("", ...wrapWords(m.footer, width));
  return out.join("\n");
}
