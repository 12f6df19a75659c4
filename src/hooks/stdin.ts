import { isObject, type JsonObject } from "../core/jsonl.ts";
import { ThroughlineError } from "../errors.ts";

/**
 * Read the hook payload without waiting for end of input. Claude Code does not always close
 * a hook's stdin right after writing the payload (async hooks saw EOF only when `claude -p`
 * exited), so reading to EOF could hold a hook until the client is gone. The payload is one
 * JSON document: stop as soon as what has arrived parses.
 */
export async function readPayloadText(): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of Bun.stdin.stream()) {
    text += decoder.decode(chunk, { stream: true });
    if (text.trimEnd().endsWith("}"))
      try {
        JSON.parse(text);
        return text;
      } catch {
        // not complete yet: keep reading
      }
  }
  return text + decoder.decode();
}

/** The payload, or a ThroughlineError saying in one line what is wrong with it (SPEC §9). */
export function parsePayload(event: string, text: string): JsonObject {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ThroughlineError(
      "E_PAYLOAD",
      text.trim() === ""
        ? `hook ${event}: empty stdin, expected a JSON payload`
        : `hook ${event}: stdin is not JSON`,
    );
  }
  if (!isObject(v)) throw new ThroughlineError("E_PAYLOAD", `hook ${event}: payload is not a JSON object`);
  if (typeof v.session_id !== "string" || v.session_id === "")
    throw new ThroughlineError("E_PAYLOAD", `hook ${event}: payload has no session_id`);
  return v;
}
