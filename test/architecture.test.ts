import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { REPO } from "../harness/db.ts";

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

/**
 * The tests that check a bench suite's shape, and the bench files each may import: the only edges
 * from test/ into bench/ (everything else both use lives in harness/).
 */
const BENCH_SHAPE_TESTS: Record<string, string[]> = {
  "test/corpus/continuation.test.ts": ["bench/continuation.ts"],
  "test/corpus/heavy.test.ts": ["bench/heavy.ts"],
  "test/e2e/client-latency.test.ts": ["bench/client.ts", "bench/lib.ts"],
};

/** The longest a file in src/ may be: one job per file (issue 46). */
const MAX_FILE_LINES = 500;

/** The longest a function may be; the ones longer today are listed in LONG_FUNCTIONS. */
const MAX_FUNCTION_LINES = 80;

/**
 * The functions over MAX_FUNCTION_LINES that exist today, each with why it stays whole for now
 * (file: name, as longFunctions() names it). A new long function fails the test; one that got
 * shorter fails it too until its entry goes.
 */
const LONG_FUNCTIONS: Record<string, string> = {
  "src/hooks/run.ts: runHook":
    "the hook contract in one place: parse, dispatch, the one error path, exit code",
  "src/hooks/handoff.ts: settle": "the claim's decision table (baton, pending, chain) read top to bottom",
  "src/capture/export-file.ts: importExportFile": "one pass over the file inside one transaction (below)",
  "src/capture/export-file.ts: importExportFile.<fn>":
    "the record loop: header, body, end checks in file order",
  "src/capture/replay.ts: replay": "the bulk ingest's chunk loop with its FTS deferral and progress",
  "src/db/queries/export.ts: exportImporter": "one prepared statement per record kind, closed over together",
  "src/core/shell.ts: parseShell": "a single-pass tokenizer: one state machine",
  "src/core/argv.ts: parseCommandArgs":
    "citty's parse, mirrored flag by flag to keep node:util off the hot path",
  "src/commands/_ui-server.ts: routes": "the web view's route table: one small handler per page",
  "src/commands/doctor.ts: databaseChecks": "the database checks in the order doctor prints them",
  "src/commands/forget.ts: default.run":
    "forget's selectors (--session, --before, --project, --match), the preview and its --yes",
};

/**
 * Functions in `file` longer than `max` lines, from the first line of the declaration to its
 * closing brace: declarations, methods, arrow functions and function expressions, nested ones
 * on their own. Named by where they sit (variable, property, method, class; `default` for an
 * export default; `<fn>` for an anonymous callback).
 */
function longFunctions(file: string, text: string, max: number): { name: string; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const nameOf = (n: ts.Node): string | null => {
    if (ts.isExportAssignment(n)) return "default";
    if (ts.isConstructorDeclaration(n)) return "constructor";
    const named =
      ts.isFunctionDeclaration(n) ||
      ts.isClassDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isGetAccessorDeclaration(n) ||
      ts.isSetAccessorDeclaration(n) ||
      ts.isPropertyAssignment(n) ||
      ts.isPropertyDeclaration(n) ||
      ts.isVariableDeclaration(n);
    return named && n.name ? n.name.getText(sf) : null;
  };
  const out: { name: string; lines: number }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
      const lines = line(n.end) - line(n.getStart(sf)) + 1;
      if (lines > max) {
        const parts: string[] = [];
        for (let p: ts.Node | undefined = n; p; p = p.parent) {
          const name = nameOf(p);
          if (name) parts.unshift(name);
          else if (p === n && !(n.parent && nameOf(n.parent))) parts.unshift("<fn>");
        }
        out.push({ name: parts.join("."), lines });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("architecture (docs/architecture.md)", () => {
  const files = sources();

  test("no import cycle among src/ modules, lazy ones (import(), require()) included", () => {
    // A lazy import cannot make an evaluation cycle, but it hides one in the design: a low module
    // reaching back up (docs/architecture.md, "Lazy loading").
    const graph = new Map(files.map((f) => [f, localImports(f, true)]));
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

  test(`no file in src/ over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((f) => ({ f: rel(f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
      .filter((x) => x.lines > MAX_FILE_LINES)
      .map((x) => `${x.f}: ${x.lines}`);
    expect(long).toEqual([]);
  });

  test("the cycle scan sees lazy imports: import() and require()", () => {
    // src/hooks/stop.ts loads its follow-ups' modules with import(), src/db/open.ts its migrations
    // with require(): both are edges of the graph the cycle test walks.
    const stop = join(SRC, "hooks", "stop.ts");
    const open = join(SRC, "db", "open.ts");
    expect(localImports(stop, true)).toContain(join(SRC, "core", "invocation.ts"));
    expect(localImports(stop)).not.toContain(join(SRC, "core", "invocation.ts"));
    expect(localImports(open, true)).toContain(join(SRC, "db", "schema.ts"));
    expect(localImports(open)).not.toContain(join(SRC, "db", "schema.ts"));
  });

  test("harness/ is shared by test/ and bench/: bench/ imports no test/, test/ imports bench/ only to check a suite", () => {
    // The direction (docs/architecture.md, "Test and bench"): src ← harness ← bench, src ← harness ← test;
    // a test may import the one bench suite whose shape it checks (BENCH_SHAPE_TESTS), nothing else of bench/.
    const under = (dir: string) => (f: string) => f.startsWith(`${join(REPO, dir)}/`);
    const crossings = ["src", "harness", "bench", "test"].flatMap((dir) =>
      sources(join(REPO, dir)).flatMap((f) =>
        localImports(f, true)
          .filter((d) => {
            if (dir === "src") return !under("src")(d);
            if (dir === "harness") return under("test")(d) || under("bench")(d);
            if (dir === "bench") return under("test")(d);
            return under("bench")(d) && !(BENCH_SHAPE_TESTS[rel(f)] ?? []).includes(rel(d));
          })
          .map((d) => `${rel(f)} → ${rel(d)}`),
      ),
    );
    expect(crossings).toEqual([]);
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

  test("no module imports citty at run time (its types only)", () => {
    // citty's module imports node:util, ~2 ms of a cold command (src/commands/_define.ts).
    const wrong = files
      .filter((f) => /^\s*import\s+(?!type\b)[^;]*from\s+["']citty["']/m.test(readFileSync(f, "utf8")))
      .map(rel);
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
  test(`no function over ${MAX_FUNCTION_LINES} lines but the ones listed today`, () => {
    const found = files.flatMap((f) =>
      longFunctions(f, readFileSync(f, "utf8"), MAX_FUNCTION_LINES).map((l) => `${rel(f)}: ${l.name}`),
    );
    expect(found.filter((k) => !(k in LONG_FUNCTIONS))).toEqual([]); // new: split it
    expect(Object.keys(LONG_FUNCTIONS).filter((k) => !found.includes(k))).toEqual([]); // gone: drop its entry
  });

  test("the function-length scan finds each kind of function", () => {
    const body = Array.from({ length: 85 }, (_, i) => `  x += ${i};`).join("\n");
    const text = [
      `export function decl(): void {\n${body}\n}`,
      `const arrow = () => {\n${body}\n};`,
      `class C {\n  method(): void {\n${body}\n  }\n}`,
      `export default { run() {\n${body}\n} };`,
      `use((db) => {\n${body}\n});`,
      `function short(): void {\n  x += 1;\n}`,
    ].join("\n");
    expect(longFunctions("probe.ts", text, MAX_FUNCTION_LINES).map((l) => l.name)).toEqual([
      "decl",
      "arrow",
      "C.method",
      "default.run",
      "<fn>",
    ]);
  });
});
