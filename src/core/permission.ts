/**
 * Which Bash commands may run without an approval prompt in a plugin install, where no allow
 * rule can be written (docs/hooks.md, "Commands the model runs"): exactly one simple command,
 * this program's invocation, then a read-only subcommand, then plain or single-quoted words —
 * the shapes the product prints. Anything else (a chain, a pipe, a redirection, a substitution,
 * another subcommand) gets no opinion, so Claude Code asks as usual. Pure.
 */
import { SHELL_PLAIN } from "./invocation.ts";
import { READ_ONLY_COMMANDS } from "./settings.ts";

/** The characters `shellQuote` leaves unquoted: what the product prints outside quotes. */
const PLAIN = new RegExp(`[${SHELL_PLAIN}]`);

/** Words of a command line made only of plain characters and single-quoted strings, else null. */
export function plainWords(line: string): string[] | null {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === "\\" && line[i + 1] === "'") {
      // The `'\''` of a quoted quote (core/invocation.ts shellQuote).
      cur += "'";
      i++;
      inWord = true;
    } else if (PLAIN.test(c)) {
      cur += c;
      inWord = true;
    } else return null;
  }
  if (inWord) words.push(cur);
  return words;
}

export function isReadOnlyPull(command: string, invocation: string): boolean {
  const words = plainWords(command.trim());
  const prefix = plainWords(invocation);
  if (!words || !prefix || words.length <= prefix.length) return false;
  if (prefix.some((w, i) => words[i] !== w)) return false;
  return (READ_ONLY_COMMANDS as readonly string[]).includes(words[prefix.length]!);
}
