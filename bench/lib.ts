/** Shared bench plumbing: spawn timing, medians, ratios against a floor measured in the same run. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const WORK = join(ROOT, ".bench");
mkdirSync(WORK, { recursive: true });

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]!;
}

/** Wall time of one process run, stdin fed from a buffer. */
export function timeOnce(
  cmd: string[],
  opts: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): number {
  const t0 = performance.now();
  const r = Bun.spawnSync(cmd, {
    stdin: opts.stdin === undefined ? "ignore" : Buffer.from(opts.stdin),
    env: { ...process.env, ...opts.env },
    cwd: opts.cwd ?? ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const ms = performance.now() - t0;
  if (r.exitCode !== 0)
    throw new Error(`${cmd.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().slice(0, 300)}`);
  return ms;
}

/** Median of `runs` timed runs after one warm-up; `before` runs untimed before each run. */
let pairedFloor: string | null = null;

/**
 * Pair every timed run with a floor run just before it: the ratio is then the median of
 * per-pair ratios, which a shared machine's drift (the floor moved 6–12 ms within one bench
 * run here) does not skew the way one floor median taken at the start does.
 */
export function pairWithFloor(floorBin: string): void {
  pairedFloor = floorBin;
}

export function measure(
  runs: number,
  cmd: () => string[],
  opts: { stdin?: () => string; env?: Record<string, string>; before?: () => void } = {},
): { median_ms: number; p95_ms: number; runs: number; paired_ratio?: number } {
  const xs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i <= runs; i++) {
    opts.before?.();
    const floorMs = pairedFloor ? timeOnce([pairedFloor], { stdin: "{}" }) : 0;
    const ms = timeOnce(cmd(), {
      ...(opts.stdin ? { stdin: opts.stdin() } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    });
    if (i > 0) {
      xs.push(ms);
      if (pairedFloor) ratios.push(ms / floorMs);
    }
  }
  return {
    median_ms: round(median(xs)),
    p95_ms: round(p95(xs)),
    runs,
    ...(pairedFloor ? { paired_ratio: round(median(ratios)) } : {}),
  };
}

export function round(x: number, d = 2): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

/** `source` compiled as `dir/name`, the way the floor is: no dotenv, no bunfig at start. */
async function compileFloor(dir: string, name: string, source: string): Promise<string> {
  const src = join(dir, `${name}.ts`);
  await Bun.write(src, source);
  const out = join(dir, name);
  const r = Bun.spawnSync(
    [
      "bun",
      "build",
      src,
      "--compile",
      "--outfile",
      out,
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (r.exitCode !== 0) throw new Error(`${name} build failed: ${r.stderr}`);
  return out;
}

/** The floor: a compiled Bun binary that reads stdin and exits (built in `dir`, .bench/ by default). */
export function buildFloor(dir = WORK): Promise<string> {
  return compileFloor(dir, "floor", "await Bun.stdin.text();\n");
}

/** Where, in a home's `CLAUDE_CONFIG_DIR`, the printing floor finds what it prints (bench/client.ts). */
export const PRINTING_FLOOR_FILE = "bench-push.txt";

/**
 * The floor, except that as UserPromptSubmit it prints that file's text when there is one: a hook
 * that costs the floor and prints a push's bytes, and nothing else (bench/client.ts).
 */
export function buildPrintingFloor(dir = WORK): Promise<string> {
  return compileFloor(
    dir,
    "floor-print",
    `await Bun.stdin.text();
if (process.argv.includes("user-prompt-submit")) {
  const f = Bun.file(\`\${process.env.CLAUDE_CONFIG_DIR}/${PRINTING_FLOOR_FILE}\`);
  if (f.size > 0) await Bun.write(Bun.stdout, await f.text());
}
`,
  );
}

/**
 * `bun run build`, to dist/throughline; with `out`, package.json's build command with that
 * `--outfile` instead (a test's temp dir: the same flags, said once, in package.json).
 */
export async function buildBinary(out?: string): Promise<string> {
  if (out === undefined) {
    const r = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`build failed: ${r.stderr}`);
    return join(ROOT, "dist", "throughline");
  }
  const pkg = (await Bun.file(join(ROOT, "package.json")).json()) as { scripts: { build: string } };
  const argv = pkg.scripts.build.split(/\s+/);
  const at = argv.indexOf("--outfile");
  if (at < 0 || argv[0] !== "bun") throw new Error(`unexpected build script: ${pkg.scripts.build}`);
  argv.splice(at + 1, 1, out);
  const r = Bun.spawnSync([process.execPath, ...argv.slice(1)], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`build failed: ${r.stderr}`);
  return out;
}
