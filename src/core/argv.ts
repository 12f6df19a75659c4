/**
 * Command arguments parsed the way citty parses them, without `node:util`: citty 0.2 hands
 * argv to `node:util`'s `parseArgs`, and loading `node:util` costs a cold process ~2.4 ms,
 * about an eighth of a pull the model runs (docs/benchmarks.md). citty still defines the
 * commands and renders their help; `test/core/argv.test.ts` checks this parser against citty's
 * own on every command's arguments. Pure.
 */

export interface ArgDefinition {
  type?: string;
  alias?: string | readonly string[];
  default?: unknown;
  required?: boolean;
  options?: readonly (string | number)[];
}

export type ArgDefinitions = Record<string, ArgDefinition>;

export type ParsedArgs = Record<string, unknown> & { _: string[] };

/** Named like citty's error, so the CLI shell treats both alike (usage, then the message). */
export class ArgsError extends Error {
  readonly code: string;
  /** The argument the message is about, by its definition's name; the CLI shell words the error from it. */
  readonly arg: string | undefined;
  constructor(message: string, code = "EARG", arg?: string) {
    super(message);
    this.name = "CLIError";
    this.code = code;
    this.arg = arg;
  }
}

const toArray = (v: string | readonly string[] | undefined): string[] =>
  v === undefined ? [] : typeof v === "string" ? [v] : [...v];

/** `dry-run` → `dryRun` (the argument names throughline uses: lower case words and hyphens). */
export function camelName(name: string): string {
  // Most names have no hyphen: skip the regex (its first use compiles it, in every cold process).
  return name.includes("-") ? name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : name;
}

/** `dryRun` → `dry-run`. */
export function kebabName(name: string): string {
  const lower = name.toLowerCase();
  return lower === name ? name : name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  default?: unknown;
}

/**
 * `node:util` `parseArgs` with `strict: false` and positionals allowed: a string option takes
 * the next argument whatever it looks like, `--name=value` and `-xVALUE` carry their value,
 * short groups expand, an unknown option is `true`, and everything after `--` is positional.
 */
function tokenize(args: string[], options: Record<string, OptionSpec>) {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const longOf = (short: string) => {
    for (const [name, o] of Object.entries(options)) if (o.short === short) return name;
    return short;
  };
  const store = (name: string, value: unknown) => {
    if (name !== "__proto__") values[name] = value ?? true;
  };
  const rest = [...args];
  while (rest.length > 0) {
    const arg = rest.shift()!;
    if (arg === "--") {
      positionals.push(...rest);
      break;
    }
    if (arg.length === 2 && arg[0] === "-" && arg[1] !== "-") {
      const name = longOf(arg[1]!);
      store(name, options[name]?.type === "string" && rest.length > 0 ? rest.shift() : undefined);
    } else if (arg.length > 2 && arg[0] === "-" && arg[1] !== "-") {
      const first = longOf(arg[1]!);
      if (options[first]?.type === "string") store(first, arg.slice(2));
      else {
        const expanded: string[] = [];
        for (let i = 1; i < arg.length; i++) {
          const name = longOf(arg[i]!);
          if (options[name]?.type !== "string" || i === arg.length - 1) expanded.push(`-${arg[i]}`);
          else {
            expanded.push(`-${arg.slice(i)}`);
            break;
          }
        }
        rest.unshift(...expanded);
      }
    } else if (arg.length > 2 && arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq >= 0) store(arg.slice(2, eq), arg.slice(eq + 1));
      else {
        const name = arg.slice(2);
        store(name, options[name]?.type === "string" && rest.length > 0 ? rest.shift() : undefined);
      }
    } else positionals.push(arg);
  }
  for (const [name, o] of Object.entries(options))
    if (o.default !== undefined && values[name] === undefined) values[name] = o.default;
  return { values, positionals };
}

/** citty's parseArgs: options and aliases from the definitions, then positionals and checks. */
export function parseCommandArgs(rawArgs: string[], defs: ArgDefinitions): ParsedArgs {
  const booleans = new Set<string>();
  const strings = new Set<string>();
  const aliases: Record<string, string[]> = {};
  const defaults: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    if (def.type === "string" || def.type === "enum") strings.add(name);
    else if (def.type === "boolean") booleans.add(name);
    if (def.default !== undefined) defaults[name] = def.default;
    const list = toArray(def.alias);
    for (const form of [camelName(name), kebabName(name)])
      if (form !== name && !list.includes(form)) list.push(form);
    if (list.length > 0) aliases[name] = list;
  }
  const toMain = new Map<string, string>();
  const related = new Map<string, string[]>();
  for (const [key, targets] of Object.entries(aliases))
    for (const target of targets) {
      toMain.set(key, target);
      toMain.set(target, key);
      related.set(target, [...(related.get(target) ?? []), key]);
      related.set(key, [...(related.get(key) ?? []), target]);
    }
  // A name without aliases is its own type: the interpreter of a cold process pays for every call.
  const typeOf = (name: string) => {
    if (booleans.has(name)) return "boolean";
    const rel = related.get(name);
    return rel?.some((a) => booleans.has(a)) ? "boolean" : "string";
  };
  const isString = (name: string) =>
    strings.has(name) || (related.get(name)?.some((a) => strings.has(a)) ?? false);
  const options: Record<string, OptionSpec> = {};
  for (const name of [
    ...booleans,
    ...strings,
    ...Object.keys(aliases),
    ...Object.values(aliases).flat(),
    ...Object.keys(defaults),
  ])
    options[name] ??= { type: typeOf(name), default: defaults[name] };
  for (const [alias, main] of toMain)
    if (alias.length === 1 && options[main] && !options[main].short) options[main].short = alias;

  const kept: string[] = [];
  const negated: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      kept.push(...rawArgs.slice(i));
      break;
    }
    if (arg.startsWith("--no-")) negated.push(arg.slice(5));
    else kept.push(arg);
  }
  const { values, positionals } = tokenize(kept, options);
  const out: ParsedArgs = { _: positionals };
  for (const [key, value] of Object.entries(values))
    out[key] =
      typeOf(key) === "boolean" && typeof value === "string"
        ? value !== "false"
        : isString(key) && typeof value === "boolean"
          ? ""
          : value;
  for (const name of negated) {
    out[name] = false;
    const main = toMain.get(name);
    if (main) out[main] = false;
    for (const a of related.get(name) ?? []) out[a] = false;
  }
  for (const [alias, main] of toMain) {
    if (out[alias] !== undefined && out[main] === undefined) out[main] = out[alias];
    if (out[main] !== undefined && out[alias] === undefined) out[alias] = out[main];
    if (out[alias] !== out[main] && defaults[main] === out[main]) out[main] = out[alias];
  }

  const queue = [...positionals];
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") {
      const next = queue.shift();
      if (next !== undefined) out[name] = next;
      else if (def.default === undefined && def.required !== false)
        throw new ArgsError(
          `Missing required positional argument: ${name.toUpperCase()}`,
          "E_MISSING_POSITIONAL",
          name,
        );
      else out[name] = def.default;
    } else if (def.type === "enum") {
      const value = lookup(out, name);
      const allowed = def.options ?? [];
      if (value !== undefined && allowed.length > 0 && !allowed.includes(value as string))
        throw new ArgsError(
          `Invalid value for argument: --${name} (${value}). Expected one of: ${allowed.join(", ")}.`,
          "E_INVALID_VALUE",
          name,
        );
    } else if (def.required && lookup(out, name) === undefined)
      throw new ArgsError(`Missing required argument: --${name}`, "E_MISSING_FLAG", name);
  }
  return out;
}

/** citty reads an argument by its name, its camelCase or its kebab-case form. */
function lookup(out: ParsedArgs, name: string): unknown {
  return out[name] ?? out[camelName(name)] ?? out[kebabName(name)];
}

/** Where the sub-command name sits, as citty finds it: past flags, and past the value of a string flag. */
export function subCommandIndex(rawArgs: string[], defs: ArgDefinitions): number {
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") return -1;
    if (!arg.startsWith("-")) return i;
    const name = arg.replace(/^-{1,2}/, "");
    if (
      !arg.includes("=") &&
      Object.entries(defs).some(
        ([key, d]) =>
          (d.type === "string" || d.type === "enum") && (key === name || toArray(d.alias).includes(name)),
      )
    )
      i++;
  }
  return -1;
}

/**
 * The first flag in `rawArgs` that `defs` does not define, as typed (`--kindd`, `-x`), or null.
 * Read the way `parseCommandArgs` reads argv (a string flag takes the next argument, `--no-`
 * negates a boolean, short groups expand, nothing after `--` is a flag), which accepts an
 * unknown flag silently: `search blocky --kindd l2` would search "blocky l2".
 */
export function unknownFlag(rawArgs: readonly string[], defs: ArgDefinitions): string | null {
  const long = new Map<string, "string" | "boolean">();
  const short = new Map<string, "string" | "boolean">();
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    const type = def.type === "boolean" ? "boolean" : "string";
    for (const form of [name, camelName(name), kebabName(name), ...toArray(def.alias)])
      (form.length === 1 ? short : long).set(form, type);
  }
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") return null;
    if (arg.length < 2 || arg[0] !== "-") continue;
    if (arg[1] === "-") {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      const type =
        long.get(name) ??
        (name.startsWith("no-") && long.get(name.slice(3)) === "boolean" ? "boolean" : undefined);
      if (type === undefined) return `--${name}`;
      if (type === "string" && eq < 0) i++;
      continue;
    }
    for (let k = 1; k < arg.length; k++) {
      const type = short.get(arg[k]!);
      if (type === undefined) return `-${arg[k]}`;
      if (type === "string") {
        if (k === arg.length - 1) i++;
        break;
      }
    }
  }
  return null;
}

/** The long flags `defs` defines, as a user types them: the names to suggest. */
export function flagNames(defs: ArgDefinitions): string[] {
  return Object.entries(defs)
    .filter(([, d]) => d.type !== "positional")
    .map(([name]) => `--${kebabName(name)}`);
}
