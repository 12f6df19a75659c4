import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { REPO } from "../../harness/db.ts";
import { HOOK_EVENTS } from "../../src/hooks/run.ts";

// Hooks run on every prompt as a cold start: their import graph must stay free of the CLI
// framework, colour code, renderers and commands (each costs milliseconds per prompt), and
// what an event loads before its handler runs is kept to a budget (docs/benchmarks.md).
const FORBIDDEN = [
  /node_modules\/citty/,
  /node_modules\/picocolors/,
  /src\/render\//,
  /src\/commands\//,
  /src\/main\.ts/,
  // The web view (`throughline ui`): its server, pages, guard, paging and queries.
  /src\/core\/ui-guard\.ts/,
  /src\/core\/paging\.ts/,
  /src\/db\/queries\/ui\.ts/,
  /node_modules\/puppeteer/,
  // Its Markdown (src/render/ui/markdown.ts) and the conversation built for it (issue 45.11).
  /node_modules\/markdown-it/,
  /src\/core\/conversation\.ts/,
  /src\/core\/tool-call-view\.ts/,
];

/**
 * Modules an event evaluates eagerly: src/hooks/run.ts, the handler and their static imports
 * (lazy `import()`s load only when the event needs them). Raise a budget only with a reason.
 */
// The ingest path and the event extractor each gained small pure modules when one text helper
// (core/text.ts) replaced four and assembly split at its subagent seam (core/subagent.ts,
// core/transcript-blocks.ts): +3 for the events that ingest, +1 for post-tool-use.
// core/events.ts (840 lines) split along its sections into seven modules under core/events/
// (shared helpers, files, git, tests, bash, tasks, PostToolUse payloads): +7 for every event
// that extracts activity (the ingesting ones and post-tool-use), the same code in more files.
// +1 for every event: the follow-ups' flags (src/hooks/flags.ts) below run.ts and the handlers,
// ending the hooks ↔ run.ts cycle (issue 46); +1 where the ingest or the unread check loads: the
// cursor and read-mark state (src/capture/read-state.ts) below both, ending unread ↔ session.
const BUDGET: Record<string, number> = {
  // SessionStart writes its intent into the pending mark; the claim (src/hooks/claim.ts) and the
  // database load only where the marks are not kept yet: 17 → 10. +2: the marks split by record
  // kind (src/db/marks/: the directory's store, the intents, the compaction record), the same code.
  "session-start": 13,
  // +1 each: the pending-handoff marks (src/db/marks/), which spare an ordinary
  // prompt the database and SessionEnd nothing (it reaches them through the handoff queries).
  "user-prompt-submit": 14,
  // +1: ingest opens its transactions through the one helper (src/db/tx.ts), as every writer does.
  // +1 each that ingests: the compact forms a turn's rows are stored in (src/db/row-forms.ts).
  // +2 each that ingests, +1 for PreCompact: the read marks (src/db/marks/), which a
  // session's ingest leaves after its commit (src/capture/unread.ts) and PreCompact and SessionEnd
  // read before SQLite.
  // +1 each that ingests: the marks split by record kind (src/db/marks/store.ts beside read.ts).
  // +3 each that ingests: capture/ingest.ts split where its jobs part (the file against its cursor,
  // the plan, the subagents' ingest), the same code in more files. +1 each that redacts: the
  // redaction catalogue as data (src/core/redact-rules.ts) apart from its engine. +1: the limits
  // and one turn's block (src/core/turn-block.ts) apart from the push's composer. +1: the host a
  // turn's block names (src/core/host.ts, which imports nothing; docs/hosts.md, "Host markers").
  stop: 49,
  // PreCompact and SessionEnd ask the read mark, then the cursor and one stat (src/capture/unread.ts),
  // and load the ingest only when the transcripts may hold unread bytes: 32 → 11 and 36 → 15.
  "pre-compact": 12,
  "session-end": 15,
  "subagent-stop": 40,
  "post-tool-use": 27,
  "pre-tool-use": 14,
};

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Static (eagerly evaluated) local modules reachable from `entries`; `bun:*`/`node:*` left out. */
function staticGraph(entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imp of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (imp.kind !== "import-statement" || !imp.path.startsWith(".")) continue;
      visit(resolve(dirname(file), imp.path));
    }
  };
  for (const e of entries) visit(e);
  return [...seen].map((f) => f.slice(REPO.length + 1)).sort();
}

/** The static graph of `entries`: local modules and the built-ins they import. */
function fullGraph(entries: string[]): { local: string[]; builtins: string[] } {
  const builtins = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imp of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (imp.kind !== "import-statement") continue;
      if (imp.path.startsWith(".")) visit(resolve(dirname(file), imp.path));
      else builtins.add(imp.path);
    }
  };
  for (const e of entries) visit(e);
  return { local: [...seen].map((f) => f.slice(REPO.length + 1)).sort(), builtins: [...builtins].sort() };
}

describe("hook import graph", () => {
  const hooksDir = join(REPO, "src", "hooks");
  const entries = readdirSync(hooksDir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(hooksDir, f));

  test("every hook event has its handler file and a module budget", () => {
    for (const event of HOOK_EVENTS) expect(existsSync(join(hooksDir, `${event}.ts`))).toBe(true);
    expect(Object.keys(BUDGET).sort()).toEqual([...HOOK_EVENTS].sort());
  });

  test("src/cli.ts has no static import: each route loads only its own code", () => {
    const text = readFileSync(join(REPO, "src", "cli.ts"), "utf8").replace(/^#!.*\n/, "");
    const imports = transpiler.scanImports(text);
    expect(imports.filter((i) => i.kind === "import-statement").map((i) => i.path)).toEqual([]);
  });

  for (const event of HOOK_EVENTS)
    test(`${event}: at most its budget of modules before the handler runs`, () => {
      const graph = staticGraph([join(hooksDir, "run.ts"), join(hooksDir, `${event}.ts`)]);
      if (graph.length > (BUDGET[event] ?? 0)) console.error(event, graph.length, graph.join(" "));
      expect(graph.length).toBeLessThanOrEqual(BUDGET[event] ?? 0);
    });

  test("an ordinary prompt loads no built-in module: not node:fs (~2 ms cold), not even bun:sqlite", () => {
    // The static graph of the prompt path, built-ins included: the pending-handoff marks answer an
    // ordinary prompt (src/db/marks/); SQLite loads only when the database is opened.
    const { builtins } = fullGraph([join(hooksDir, "run.ts"), join(hooksDir, "user-prompt-submit.ts")]);
    expect(builtins).toEqual([]);
  });

  test("SessionStart's CLAUDE_ENV_FILE export (loaded only when offered) imports nothing", () => {
    const { local, builtins } = fullGraph([join(hooksDir, "session-env.ts")]);
    expect({ local, builtins }).toEqual({ local: ["src/hooks/session-env.ts"], builtins: [] });
    const start = readFileSync(join(hooksDir, "session-start.ts"), "utf8");
    const eager = transpiler.scanImports(start).filter((i) => i.kind === "import-statement");
    expect(eager.map((i) => i.path)).not.toContain("./session-env.ts");
  });

  test("the handoff loads neither the redactor (~1 ms cold) nor node:fs or node:path until it needs them", () => {
    const { local, builtins } = fullGraph([join(hooksDir, "handoff.ts")]);
    expect(local).not.toContain("src/core/redact.ts");
    expect(local).not.toContain("src/core/redact-rules.ts");
    expect(builtins.filter((b) => b.startsWith("node:"))).toEqual([]);
  });

  test("the pulls the model runs (context, recall, detail, search) load no node: module", () => {
    const commandsDir = join(REPO, "src", "commands");
    const { builtins } = fullGraph(
      ["context.ts", "recall.ts", "_recall-activity.ts", "detail.ts", "search.ts"].map((f) =>
        join(commandsDir, f),
      ),
    );
    expect(builtins.filter((b) => b.startsWith("node:"))).toEqual([]);
  });

  test("the status line's fast path (src/cli.ts → commands/statusline.ts) stays a hook's size", () => {
    // Claude Code runs it as often as a hook (docs/monitor.md): no other command, no colour, no
    // package (not citty, not picocolors), no built-in module at all, and at most 8 modules. The
    // transcript's tail (src/capture/transcript-tail.ts, node:fs) loads only for a payload without
    // usage, and bun:sqlite with the database's modules only when the kept facts do not answer.
    const { local, builtins } = fullGraph([join(REPO, "src", "commands", "statusline.ts")]);
    expect(local.filter((f) => f.startsWith("src/commands/"))).toEqual(["src/commands/statusline.ts"]);
    expect(local.filter((f) => f.startsWith("src/render/"))).toEqual(["src/render/statusline.ts"]);
    expect(local).not.toContain("src/capture/transcript-tail.ts");
    expect(local).not.toContain("src/db/open.ts");
    expect(builtins).toEqual([]);
    // 8 → 10: the marks split by record kind (src/db/marks/ store, pending, status) and the read
    // they fall back on kept above them (src/db/status-facts.ts), the same code in more files.
    expect(local.length).toBeLessThanOrEqual(10);
  });

  for (const entry of entries)
    test(`${entry.slice(REPO.length + 1)} imports only core, db and bun built-ins`, async () => {
      const out = await Bun.build({ entrypoints: [entry], target: "bun", metafile: true });
      expect(out.success).toBe(true);
      const inputs = Object.keys(out.metafile!.inputs);
      const bad = inputs.filter((i) => FORBIDDEN.some((re) => re.test(i)));
      expect(bad).toEqual([]);
    });

  test("the web view loads only behind `ui`: no hook and no other command reaches it", () => {
    const commandsDir = join(REPO, "src", "commands");
    const web =
      /src\/(commands\/_ui-server|commands\/ui|render\/ui\/|render\/html|core\/ui-guard|core\/paging|db\/queries\/ui)/;
    // Every command file, a command folder's subcommands (commands/export/) included.
    const others = readdirSync(commandsDir, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && f !== "ui.ts" && f !== "_ui-server.ts" && f !== "index.ts")
      .map((f) => join(commandsDir, f));
    // Like staticGraph, past text modules (the demo's .jsonl) that are not code.
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file) || !file.endsWith(".ts")) return;
      seen.add(file);
      for (const imp of transpiler.scanImports(readFileSync(file, "utf8")))
        if (imp.kind === "import-statement" && imp.path.startsWith("."))
          visit(resolve(dirname(file), imp.path));
    };
    for (const e of [...entries, ...others]) visit(e);
    const reached = [...seen].map((f) => f.slice(REPO.length + 1)).filter((f) => web.test(f));
    expect(seen.size).toBeGreaterThan(50);
    expect(reached).toEqual([]);
    const index = readFileSync(join(commandsDir, "index.ts"), "utf8");
    expect(
      transpiler
        .scanImports(index)
        .filter((i) => i.kind === "import-statement")
        .map((i) => i.path),
    ).toEqual([]);
  });
});
