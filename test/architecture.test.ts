import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO } from "./helpers/db.ts";

/** docs/architecture.md's rules, checked where a test can check them. */
const SRC = join(REPO, "src");
const transpiler = new Bun.Transpiler({ loader: "ts" });

function sources(dir = SRC, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/**
 * Local modules a file imports (types are erased); `lazy` adds `import()` and `require()`, which
 * load on use and so cannot make an evaluation cycle.
 */
function localImports(file: string, lazy = false): string[] {
  return transpiler
    .scanImports(readFileSync(file, "utf8").replace(/^#!.*/, ""))
    .filter(
      (i) => i.path.startsWith(".") && i.path.endsWith(".ts") && (lazy || i.kind === "import-statement"),
    )
    .map((i) => resolve(dirname(file), i.path));
}

const rel = (f: string) => relative(REPO, f);

describe("architecture (docs/architecture.md)", () => {
  const files = sources();

  test("no import cycle among src/ modules", () => {
    const graph = new Map(files.map((f) => [f, localImports(f)]));
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (f: string) => {
      state.set(f, "open");
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === "open") cycles.push([...stack.slice(stack.indexOf(d)), d].map(rel).join(" → "));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(f, "done");
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  test("a command never imports another command (only the _ helpers)", () => {
    const commands = join(SRC, "commands");
    const base = (f: string) => f.split("/").pop()!;
    /**
     * What a file under src/commands/ may import from there: a `_` helper beside it or at the top
     * (src/commands/_*.ts); and a command folder's index.ts (src/commands/<name>/index.ts, the
     * command with subcommands) the subcommand files beside it. A subcommand never imports
     * another, and nothing outside a folder imports into it but the lazy map.
     */
    const allowed = (f: string, d: string) =>
      (base(d).startsWith("_") && (dirname(d) === commands || dirname(d) === dirname(f))) ||
      (base(f) === "index.ts" && dirname(f) !== commands && dirname(d) === dirname(f));
    const wrong = files
      .filter((f) => f.startsWith(`${commands}/`) && f !== join(commands, "index.ts")) // the map of lazy imports
      .flatMap((f) =>
        localImports(f, true)
          .filter((d) => d.startsWith(`${commands}/`) && !allowed(f, d))
          .map((d) => `${rel(f)} → ${rel(d)}`),
      );
    expect(wrong).toEqual([]);
  });

  test("no SQL outside src/db/", () => {
    const SQL =
      /\b(?:SELECT\s[\s\S]{0,200}?\sFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX|TRIGGER))\b/;
    const wrong = files
      .filter((f) => !f.startsWith(join(SRC, "db")) && SQL.test(readFileSync(f, "utf8")))
      .map(rel);
    expect(wrong).toEqual([]);
  });

  test("one transaction helper: every write transaction goes through src/db/tx.ts", () => {
    const wrong = files
      .filter((f) => f !== join(SRC, "db", "tx.ts"))
      .filter((f) => /BEGIN\s+IMMEDIATE|\.immediate\(\)|\.transaction\(/.test(readFileSync(f, "utf8")))
      .map(rel);
    expect(wrong).toEqual([]);
  });

  test("one schema-version read", () => {
    const wrong = files
      .filter((f) => f !== join(SRC, "db", "version.ts"))
      .filter((f) => /(["'])PRAGMA user_version\1/.test(readFileSync(f, "utf8")))
      .map(rel);
    expect(wrong).toEqual([]);
  });
});
