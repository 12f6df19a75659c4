/** Reading git command lines and output for commit and checkout events. Pure. */

import { heredocBody, programName } from "../shell.ts";

/** Git options that come before the subcommand and take a value as the next word. */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"]);

/** `git [global options] <sub> args…` → `[sub, args]`; null when the words are not a git command. */
export function gitSubcommand(words: readonly string[]): [string, string[]] | null {
  if (programName(words[0] ?? "") !== "git") return null;
  let i = 1;
  while (i < words.length && words[i]!.startsWith("-")) {
    i += GIT_VALUE_OPTIONS.has(words[i]!) ? 2 : 1;
  }
  const sub = words[i];
  return sub === undefined ? null : [sub, words.slice(i + 1)];
}

function cleanMessage(m: string): string {
  const fromHeredoc = m.includes("<<") ? heredocBody(m) : null;
  let msg = fromHeredoc ?? m;
  msg = msg.replace(/^@'\n?|\n?'@$/g, "").replace(/^@"\n?|\n?"@$/g, "");
  return msg.trim();
}

interface CommitArgs {
  message: string | null;
  messageFile: string | null;
  amend: boolean;
}

export function commitArgs(args: readonly string[]): CommitArgs {
  const messages: string[] = [];
  let messageFile: string | null = null;
  let amend = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--amend") amend = true;
    else if (a === "-m" || a === "--message") messages.push(args[++i] ?? "");
    else if (a.startsWith("--message=")) messages.push(a.slice(10));
    else if (a === "-F" || a === "--file") messageFile = args[++i] ?? null;
    else if (a.startsWith("--file=")) messageFile = a.slice(7);
    else if (/^-[a-zA-Z]+$/.test(a) && !a.startsWith("--")) {
      // Bundled short flags: `-am "msg"`; `-m` must be the last letter to take the next word.
      if (a.endsWith("m")) messages.push(args[++i] ?? "");
      else if (a.endsWith("F")) messageFile = args[++i] ?? null;
      else if (/^-[a-zA-Z]*m./.test(a)) messages.push(a.slice(a.indexOf("m") + 1));
    }
  }
  const message = messages.map(cleanMessage).filter(Boolean).join("\n\n");
  return { message: message || null, messageFile, amend };
}

/** `[main 1a2b3c4] subject` (also `[main (root-commit) 1a2b3c4]`) in git's commit output. */
export function commitOutput(text: string): { branch: string; hash: string; subject: string } | null {
  const m = /\[([^\]\s]+)(?: \([^)]*\))? ([0-9a-f]{7,40})\] ([^\r\n]*)/.exec(text);
  return m ? { branch: m[1]!, hash: m[2]!, subject: m[3]!.trim() } : null;
}

function isBranchTarget(target: string): boolean {
  if (target === "." || target === "-" || target === "") return target === "-";
  return !/\.[A-Za-z0-9]{1,6}$/.test(target) || /^v?\d+\.\d+/.test(target);
}

export function checkoutOf(sub: string, args: readonly string[]): { target: string; create: boolean } | null {
  if (args.includes("--")) return null; // `git checkout -- file`: restoring files
  let create = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-b" || a === "-B" || a === "-c" || a === "-C" || a === "--orphan" || a === "--create") {
      create = true;
      const name = args[++i];
      if (name) return { target: name, create };
    } else if (a.startsWith("--create=")) return { target: a.slice(9), create: true };
    else if (!a.startsWith("-")) positional.push(a); // other flags (--track, --detach, -f) take no value
  }
  if (positional.length !== 1) return null;
  const target = positional[0]!;
  if (sub === "checkout" && !isBranchTarget(target)) return null;
  return { target, create };
}
