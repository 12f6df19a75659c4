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
