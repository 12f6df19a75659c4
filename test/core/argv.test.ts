/**
 * core/argv.ts parses command arguments as citty does, without `node:util` (docs/benchmarks.md):
 * for every command and sub-command of the CLI, generated argument lists give the same result
 * as citty's own `parseArgs`, or the same error.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs } from "citty";
import { commands } from "../../src/commands/index.ts";
import { type ArgDefinitions, camelName, parseCommandArgs } from "../../src/core/argv.ts";

// biome-ignore lint/suspicious/noExplicitAny: commands differ in their args.
type AnyCommand = { args?: ArgDefinitions; subCommands?: Record<string, any> };

async function allCommands(): Promise<[string, AnyCommand][]> {
  const out: [string, AnyCommand][] = [];
  for (const [name, load] of Object.entries(commands)) {
    const cmd = (await load()) as AnyCommand;
    out.push([name, cmd]);
    for (const [sub, def] of Object.entries(cmd.subCommands ?? {})) {
      const c = (typeof def === "function" ? await def() : def) as AnyCommand;
      out.push([`${name} ${sub}`, c]);
    }
  }
  return out;
}

/** A small deterministic generator, so a failure names an argument list that can be re-run. */
function* argLists(defs: ArgDefinitions, count: number): Generator<string[]> {
  const names = Object.entries(defs).filter(([, d]) => d.type !== "positional");
  const vocab: string[] = [
    "alpha",
    "two words",
    "-",
    "-5",
    "--",
    "12",
    "false",
    "true",
    "",
    "2025-01-01T00:00:00Z",
  ];
  vocab.push("--bogus", "--bogus=1", "-x", "-abc", "--no-bogus", "-h");
  for (const [name] of names) {
    const camel = camelName(name);
    vocab.push(`--${name}`, `--${name}=v1`, `--${name}=`, `--no-${name}`, `--${name}=false`);
    if (camel !== name) vocab.push(`--${camel}`, `--${camel}=v2`);
  }
  let seed = 12_345;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  yield [];
  for (let i = 0; i < count; i++) {
    const len = 1 + next(6);
    yield Array.from({ length: len }, () => vocab[next(vocab.length)]!);
  }
}

const outcome = (fn: () => Record<string, unknown>) => {
  try {
    return { ok: { ...fn() } };
  } catch (err) {
    return { error: (err as Error).message };
  }
};

describe("command arguments without node:util", () => {
  test("every command: the same arguments (or the same error) as citty's parseArgs", async () => {
    let compared = 0;
    for (const [name, cmd] of await allCommands()) {
      const defs = cmd.args ?? {};
      for (const argv of argLists(defs, 400)) {
        const ours = outcome(() => parseCommandArgs(argv, defs));
        const theirs = outcome(() => parseArgs(argv, defs as never) as Record<string, unknown>);
        if (JSON.stringify(ours) !== JSON.stringify(theirs))
          throw new Error(
            `${name} ${JSON.stringify(argv)}: ours ${JSON.stringify(ours)}, citty ${JSON.stringify(theirs)}`,
          );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(8_000);
  });

  test("the baked pulls parse as the commands expect", () => {
    const defs: ArgDefinitions = {
      words: { type: "positional", required: false },
      l2: { type: "boolean" },
      session: { type: "string" },
      last: { type: "string" },
      "dry-run": { type: "boolean" },
    };
    expect(parseCommandArgs(["--l2", "--session", "a b", "--last", "-5", "--dry-run"], defs)).toEqual({
      _: [],
      l2: true,
      session: "a b",
      last: "-5",
      "dry-run": true,
      dryRun: true,
      words: undefined,
    });
  });
});
