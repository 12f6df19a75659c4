/**
 * The CLI at paths of one fixed length on every machine. The push's budget counts the pulls it
 * bakes, and each pull starts with the invocation (core/invocation.ts), whose length is this
 * machine's bun and checkout paths: a golden of the push would fit one turn more or less on a
 * machine with longer paths. Goldens that pin how many turns fit run this CLI instead: a link
 * (or copy) of this bun and an entry that loads the checkout's, both under `/tmp/tl-pin-XXXXXX`.
 */
import { chmodSync, copyFileSync, linkSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../../harness/db.ts";
import { selfInvocation } from "../../src/core/invocation.ts";

export interface PinnedCli {
  /** What this CLI prints as its own invocation. */
  invocation: string;
  run(
    args: string[],
    opts?: { env?: Record<string, string> },
  ): { exitCode: number | null; stdout: string; stderr: string };
  [Symbol.dispose](): void;
}

export function pinnedCli(): PinnedCli {
  // Not os.tmpdir(): its length differs between machines (macOS's TMPDIR).
  const dir = mkdtempSync("/tmp/tl-pin-");
  const bun = join(dir, "bun");
  try {
    linkSync(process.execPath, bun);
  } catch {
    copyFileSync(process.execPath, bun); // another filesystem
    chmodSync(bun, 0o755);
  }
  const entry = join(dir, "cli.ts");
  writeFileSync(entry, `import ${JSON.stringify(join(REPO, "src", "cli.ts"))};\n`);
  return {
    invocation: selfInvocation(entry, bun),
    run(args, opts = {}) {
      const proc = Bun.spawnSync([bun, entry, ...args], {
        env: { ...process.env, ...opts.env },
        stdin: "ignore",
        cwd: REPO,
      });
      return { exitCode: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
    },
    [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }),
  };
}
