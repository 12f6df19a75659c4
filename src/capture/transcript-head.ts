import { closeSync, openSync, readSync } from "node:fs";
import { isObject, type JsonObject, parseLine } from "../core/jsonl.ts";

/** Enough of a transcript to find its first entries without reading a long file whole. */
const HEAD_BYTES = 65536;

/** The JSON objects among the first lines of a transcript file (throws when it cannot be opened). */
export function headEntries(path: string): JsonObject[] {
  const fd = openSync(path, "r");
  try {
    const buf = new Uint8Array(HEAD_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const out: JsonObject[] = [];
    for (const line of new TextDecoder().decode(buf.subarray(0, n)).split("\n")) {
      const e = parseLine(line);
      if (isObject(e)) out.push(e);
    }
    return out;
  } finally {
    closeSync(fd);
  }
}
