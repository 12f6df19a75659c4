import { isObject, type JsonObject, MAX_JSON_DEPTH, nestedDeeperThan, STRING_BODY } from "../core/jsonl.ts";
import { ThroughlineError } from "../errors.ts";

/**
 * Largest payload read. Payloads are small, except PostToolUse: `tool_response` of an Edit or
 * Write holds the whole file (twice for Edit: `originalFile` and the patch). 16 MiB covers a
 * multi-megabyte file and keeps a runaway writer from holding a hook for seconds; a refused
 * PostToolUse loses nothing for good, the Stop hook reads the same call from the transcript.
 * Documented in docs/hooks.md.
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/**
 * How long a payload may take to arrive. Claude Code writes it at once, so a complete payload
 * arrives in milliseconds; this only bounds input that never completes while stdin stays open.
 */
export const PAYLOAD_TIMEOUT_MS = 3000;

/**
 * Why the last read stopped short, keyed on the text it returned. src/cli.ts reads stdin before
 * deciding whether to detach and hands the text to the hook runner, so the reason has to travel
 * with the text rather than as an exception out of the read (each hook process reads once).
 */
let shortRead: { text: string; message: string } | null = null;

/**
 * Tracks a JSON object arriving in chunks (structural characters are ASCII, so UTF-8 needs no
 * decoding here): complete when the outermost brace closes. Linear in the bytes, where parsing
 * the growing text at every chunk was quadratic (a 50 MB payload took 7–10 s).
 */
class ObjectEnd {
  private started = false;
  private notObject = false;
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** True once the chunks so far hold a whole top-level object. */
  feed(chunk: Uint8Array): boolean {
    if (this.notObject) return false;
    // One character per byte, every ASCII byte as itself: string bodies (most of a payload:
    // file contents, tool output) are then skipped by one native regex match instead of a
    // loop over their bytes, which cost a cold hook ~2 ms for a 28 KB Edit (docs/benchmarks.md).
    const s = LATIN1.decode(chunk);
    let i = 0;
    if (this.escaped && s.length > 0) {
      this.escaped = false;
      i = 1;
    }
    for (; i < s.length; i++) {
      if (this.inString) {
        STRING_BODY.lastIndex = i;
        STRING_BODY.exec(s);
        i = STRING_BODY.lastIndex;
        if (i >= s.length) break;
        if (s.charCodeAt(i) === 0x22) this.inString = false;
        else {
          // A backslash ends the chunk: the character it escapes starts the next one.
          this.escaped = true;
          break;
        }
        continue;
      }
      const b = s.charCodeAt(i);
      if (!this.started) {
        if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
        if (b !== 0x7b) {
          // Not an object: read on to the end so the error can say what it is.
          this.notObject = true;
          return false;
        }
        this.started = true;
        this.depth = 1;
      } else if (b === 0x22) this.inString = true;
      else if (b === 0x7b || b === 0x5b) this.depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (--this.depth === 0) return true;
      }
    }
    return false;
  }
}

const LATIN1 = new TextDecoder("latin1");

/**
 * Read the hook payload without waiting for end of input. Claude Code does not always close
 * a hook's stdin right after writing the payload (async hooks saw EOF only when `claude -p`
 * exited), so reading to EOF could hold a hook until the client is gone. The payload is one
 * JSON object: stop as soon as it is complete, at end of input, past MAX_PAYLOAD_BYTES, or
 * after PAYLOAD_TIMEOUT_MS; parsePayload then says what was wrong. Never throws.
 */
export async function readPayloadText(
  input: ReadableStream<Uint8Array> = Bun.stdin.stream(),
  timeoutMs: number = PAYLOAD_TIMEOUT_MS,
): Promise<string> {
  const reader = input.getReader();
  const chunks: Uint8Array[] = [];
  const end = new ObjectEnd();
  let total = 0;
  let problem: string | null = null;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === "timeout") {
        problem = `no complete JSON payload on stdin after ${timeoutMs} ms`;
        break;
      }
      if (next.done) {
        finished = true;
        break;
      }
      total += next.value.length;
      if (total > MAX_PAYLOAD_BYTES) {
        problem = `payload larger than ${MAX_PAYLOAD_BYTES / 1024 / 1024} MiB (see docs/hooks.md)`;
        break;
      }
      chunks.push(next.value);
      if (end.feed(next.value)) break;
    }
  } catch {
    // A read error on stdin (closed descriptor): whatever arrived is the payload.
    finished = true;
  } finally {
    clearTimeout(timer);
    // A pending read on a stdin that stays open would keep the process alive.
    if (!finished) reader.cancel().catch(() => {});
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  shortRead = problem === null ? null : { text, message: problem };
  return text;
}

/** The payload, or a ThroughlineError saying in one line what is wrong with it (docs/hooks.md). */
export function parsePayload(event: string, text: string): JsonObject {
  if (shortRead !== null && shortRead.text === text)
    throw new ThroughlineError("E_PAYLOAD", `hook ${event}: ${shortRead.message}`);
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
  // The handlers walk the payload recursively (event extraction, stringify): bound the depth.
  if (nestedDeeperThan(text))
    throw new ThroughlineError(
      "E_PAYLOAD",
      `hook ${event}: payload is nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  if (typeof v.session_id !== "string" || v.session_id === "")
    throw new ThroughlineError("E_PAYLOAD", `hook ${event}: payload has no session_id`);
  return v;
}
