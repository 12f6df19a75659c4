/**
 * Which user entries are the person's own words (docs/contract.md#words), and how to render them.
 */

/** Text that Claude Code inserts into the user role; never the person's words. */
const MACHINE_PREFIXES = [
  "[Request interrupted by user",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<local-command-caveat>",
  "Caveat: The messages below",
  "<task-notification>",
  "<bash-stdout>",
  "<bash-stderr>",
  "<system-reminder>",
  "This session is being continued from a previous conversation",
] as const;

const IDE_BLOCK = /<(ide_[a-z_]+)>[\s\S]*?<\/\1>/g;
const COMMAND_NAME = /<command-name>\s*([\s\S]*?)\s*<\/command-name>/;
const COMMAND_MESSAGE = /<command-message>\s*([\s\S]*?)\s*<\/command-message>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const PRIVATE_SPAN = /<private>[\s\S]*?<\/private>/g;
const BASH_INPUT = /^<bash-input>([\s\S]*?)<\/bash-input>\s*$/;

export function isMachineText(text: string): boolean {
  const t = text.trimStart();
  return MACHINE_PREFIXES.some((p) => t.startsWith(p));
}

/** Split IDE context blocks (kept as L3) from the prompt text (kept as L2). */
export function stripIdeBlocks(text: string): { text: string; ide: string[] } {
  const ide: string[] = [];
  const rest = text.replace(IDE_BLOCK, (m) => {
    ide.push(m);
    return "";
  });
  return { text: rest.trim(), ide };
}

/** `<command-name>/foo</command-name>…<command-args>x</command-args>` → `/foo x`; null when not a command. */
export function renderSlashCommand(text: string): string | null {
  const t = text.trimStart();
  if (!t.startsWith("<command-name>") && !t.startsWith("<command-message>")) return null;
  const name = COMMAND_NAME.exec(t)?.[1] ?? COMMAND_MESSAGE.exec(t)?.[1]?.split(/\s/)[0];
  if (!name) return null;
  const args = (COMMAND_ARGS.exec(t)?.[1] ?? "").trim();
  const slash = name.startsWith("/") ? name : `/${name}`;
  return args ? `${slash} ${args}` : slash;
}

/** `<private>…</private>` spans are never stored (docs/contract.md#capture). */
export function dropPrivate(text: string): string {
  return text.includes("<private>") ? text.replace(PRIVATE_SPAN, "[private]") : text;
}

export type PromptClass =
  | { kind: "human"; text: string; ide: string[]; images: number }
  | { kind: "machine"; text: string }
  | { kind: "empty" };

/**
 * Classify the text of a user entry that carries no tool_result and is not meta,
 * compaction summary or sidechain (the caller checks those flags).
 */
export function classifyPromptText(text: string, images: number): PromptClass {
  if (isMachineText(text)) return { kind: "machine", text };
  const command = renderSlashCommand(text);
  if (command !== null) return { kind: "human", text: command, ide: [], images };
  // Bash mode (`!ls` typed in the client): the person's words are the command; its output
  // follows as a machine entry and is kept as L3.
  const bash = BASH_INPUT.exec(text.trim());
  if (bash) return { kind: "human", text: `!${bash[1]!.trim()}`, ide: [], images };
  const { text: rest, ide } = stripIdeBlocks(text);
  if (rest.length > 0 && isMachineText(rest)) return { kind: "machine", text };
  if (rest.length === 0 && images === 0)
    return ide.length > 0 ? { kind: "machine", text } : { kind: "empty" };
  return { kind: "human", text: rest, ide, images };
}
