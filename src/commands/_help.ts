/**
 * The help of a command as the user reaches it (`throughline <path…> --help`, `throughline help
 * <path…>`), built from its citty definition: the view model render/help.ts prints. Examples come
 * from `meta.examples` (declared below on citty's CommandMeta).
 */
import type { ArgDef, CommandDef } from "citty";
import type { HelpEntry, HelpModel } from "../render/help.ts";

declare module "citty" {
  interface CommandMeta {
    /** Command lines shown under EXAMPLES in the command's help, each within 100 columns. */
    examples?: readonly string[];
  }
}

// biome-ignore lint/suspicious/noExplicitAny: commands differ in their args.
export type AnyCommand = CommandDef<any>;

/** citty's Resolvable: a value, a promise of it, or a function returning either. */
export const resolveValue = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

function optionLabel(name: string, def: ArgDef): string {
  const alias = (def as { alias?: string | string[] }).alias;
  const aliases = (typeof alias === "string" ? [alias] : (alias ?? [])).filter((a) => a.length === 1);
  const flag = [...aliases.map((a) => `-${a}`), `--${name}`].join(", ");
  if (def.type === "boolean") return flag;
  const hint = def.valueHint ?? (def.type === "enum" ? (def.options ?? []).join("|") : "value");
  return `${flag} <${hint}>`;
}

function optionText(def: ArgDef): string {
  const notes: string[] = [];
  if (def.required) notes.push("required");
  if (def.default !== undefined && def.default !== false && def.default !== "")
    notes.push(`default: ${def.default}`);
  const text = def.description ?? "";
  return notes.length > 0 ? `${text} (${notes.join("; ")})` : text;
}

function argumentEntries(args: Record<string, ArgDef>): {
  positionals: HelpEntry[];
  options: HelpEntry[];
  usage: string[];
} {
  const positionals: HelpEntry[] = [];
  const options: HelpEntry[] = [];
  const usage: string[] = [];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") {
      const required = def.required !== false && def.default === undefined;
      usage.push(required ? `<${name.toUpperCase()}>` : `[${name.toUpperCase()}]`);
      positionals.push({ label: name.toUpperCase(), description: def.description ?? "" });
    } else options.push({ label: optionLabel(name, def), description: optionText(def) });
  }
  if (options.length > 0) usage.unshift("[OPTIONS]");
  return { positionals, options, usage };
}

/** The help of `cmd`, reached by the words `path` (empty for the root). */
export async function helpModel(cmd: AnyCommand, path: readonly string[]): Promise<HelpModel> {
  const meta = (await resolveValue(cmd.meta)) ?? {};
  const args = ((await resolveValue(cmd.args)) ?? {}) as Record<string, ArgDef>;
  const subs = ((await resolveValue(cmd.subCommands)) ?? {}) as Record<string, AnyCommand>;
  const invocation = ["throughline", ...path].join(" ");
  const { positionals, options, usage } = argumentEntries(args);
  const commands: HelpEntry[] = [];
  for (const [name, sub] of Object.entries(subs)) {
    const subMeta = (await resolveValue((await resolveValue(sub)).meta)) ?? {};
    if (!subMeta.hidden) commands.push({ label: name, description: subMeta.description ?? "" });
  }
  if (commands.length > 0) usage.unshift("<command>");
  const version = path.length === 0 && meta.version ? ` (version ${meta.version})` : "";
  return {
    description: `${meta.description ?? ""}${version}`,
    usage: [invocation, ...usage].join(" "),
    positionals,
    options,
    commands,
    examples: [...(meta.examples ?? [])],
    footer:
      commands.length > 0
        ? `Run \`throughline help ${[...path, "<command>"].join(" ")}\` for a command's options and examples.`
        : "",
  };
}
