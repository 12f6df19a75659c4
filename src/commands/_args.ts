import type { ArgDef } from "citty";

export const dbArgs = {
  db: {
    type: "string",
    description: "Database file (default: $THROUGHLINE_DB or $THROUGHLINE_HOME/throughline.db)",
    valueHint: "path",
  },
} as const satisfies Record<string, ArgDef>;

export const jsonArgs = {
  json: { type: "boolean", description: "Print machine-readable JSON" },
} as const satisfies Record<string, ArgDef>;

/** Print JSON the same way everywhere: one document, two-space indent, trailing newline. */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
