/**
 * `throughline sync [--remote <git url or path>]` (docs/sync.md): publish this machine's memory
 * to a git remote and take in every other machine's.
 */
import { databasePath } from "../core/paths.ts";
import { plural } from "../core/text.ts";
import { withWriter } from "../db/open.ts";
import { isTerminal } from "../render/tty.ts";
import { runSync, type SyncReport } from "../sync/run.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";

function summary(r: SyncReport): string {
  const sent = r.pushed.rewritten
    ? `republished this machine's memory (${plural(r.pushed.chunks, "chunk")}, ${r.pushed.bytes} bytes)`
    : r.pushed.chunks + r.pushed.tombstones === 0
      ? "nothing new to publish"
      : `published ${plural(r.pushed.turns, "turn")} in ${plural(r.pushed.chunks, "chunk")} (${r.pushed.bytes} bytes)${
          r.pushed.tombstones ? ` and ${plural(r.pushed.tombstones, "tombstone")}` : ""
        }`;
  const got =
    r.pulled.files === 0
      ? `nothing new from ${plural(r.pulled.machines, "other machine")}`
      : `took in ${plural(r.pulled.turns, "turn")} from ${plural(r.pulled.machines, "other machine")}${
          r.pulled.tombstones ? `, applied ${plural(r.pulled.tombstones, "tombstone")}` : ""
        }${r.pulled.batons ? `, ${plural(r.pulled.batons, "baton")}` : ""}`;
  return `Synced with ${r.remote} as machine ${r.machine}: ${sent}; ${got}.`;
}

export default defineCommand({
  meta: {
    name: "sync",
    examples: [
      "throughline sync --remote git@github.com:me/tl-memory.git",
      "throughline sync",
      "throughline sync --json",
    ],
    description:
      "Share memory between your machines through a git remote you own (docs/sync.md): publish this machine's new turns, take in the others'",
  },
  args: {
    remote: {
      type: "string",
      description: "Record this git remote (URL or path of a repository, empty is fine) and sync with it",
      valueHint: "git url or path",
    },
    republish: {
      type: "boolean",
      description: "Write this machine's branch on the remote again from its database",
    },
    ...dbArgs,
    ...jsonArgs,
  },
  run({ args }) {
    const path = databasePath(process.env, args.db);
    const progress = !args.json && isTerminal(2);
    const report = withWriter(path, (db) =>
      runSync(db, path, {
        remote: args.remote,
        republish: args.republish === true,
        now: Date.now(),
        progress: progress
          ? (what, done, total) => {
              if (total >= 20)
                process.stderr.write(`\r${what} ${done + 1}/${total}${done + 1 === total ? "\n" : ""}`);
            }
          : undefined,
      }),
    );
    if (args.json) return printJson(report);
    console.log(summary(report));
  },
});
