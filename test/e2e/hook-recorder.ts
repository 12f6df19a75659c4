/**
 * Test-only Claude Code hook: saves its stdin payload as one JSON file in the directory given
 * as the first argument, prints nothing and exits 0. Registered next to throughline's own hooks
 * by `installHooks(..., { record: true })`, so a scenario can see exactly which events fired
 * with which payload, without wrapping (and slowing) the hook under test.
 */
import { join } from "node:path";

const dir = process.argv[2];
if (dir) {
  const text = await Bun.stdin.text();
  let payload: unknown = text;
  try {
    payload = JSON.parse(text);
  } catch {
    // Keep the raw text: a malformed payload is itself worth seeing.
  }
  const event =
    payload && typeof payload === "object" && "hook_event_name" in payload
      ? String((payload as { hook_event_name: unknown }).hook_event_name)
      : "unknown";
  const at = Date.now();
  const name = `${at}-${process.pid}-${event}.json`;
  await Bun.write(join(dir, name), JSON.stringify({ event, at, payload }));
}
