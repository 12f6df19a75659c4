import { defineCommand } from "../_define.ts";

/**
 * `throughline export <what>`: memory written out in another tool's format. Each format is its
 * own subcommand file in this folder, loaded only when it runs (docs/monitor.md for
 * `session-index`, docs/export.md for `jsonl`).
 */
export default defineCommand({
  meta: {
    name: "export",
    examples: ["throughline export jsonl --out backup.jsonl", "throughline export session-index"],
    description:
      "Write memory out in another format (session-index: the files the original /recall skill reads; jsonl: the whole memory, for backup and `import --from-export`)",
  },
  subCommands: {
    "session-index": () => import("./session-index.ts").then((m) => m.default),
    jsonl: () => import("./jsonl.ts").then((m) => m.default),
  },
});
