import { defineCommand } from "citty";

/**
 * `throughline export <what>`: memory written out in another tool's format. Each format is its
 * own subcommand file, loaded only when it runs (docs/monitor.md for `session-index`).
 */
export default defineCommand({
  meta: {
    name: "export",
    description:
      "Write memory out in another format (session-index: the files the original /recall skill reads; jsonl: the whole memory, for backup and `import --from-export`)",
  },
  subCommands: {
    "session-index": () => import("./_export-session-index.ts").then((m) => m.default),
    jsonl: () => import("./_export-db.ts").then((m) => m.default),
  },
});
