/**
 * The model's Bash knows its session (docs/hooks.md, "The model's Bash knows its session"):
 * Claude Code hands SessionStart hooks `CLAUDE_ENV_FILE`, a file it sources before each Bash
 * command of the session; one `export THROUGHLINE_SESSION=<id>` line there lets `recall`,
 * `detail`, `search` and `context` default to this session's chain. Loaded by SessionStart only
 * when the client offers the file, and it imports nothing: the hook stays a few native calls.
 */

/** The line SessionStart appends; the id single-quoted for a POSIX shell. */
export function sessionExportLine(sessionId: string): string {
  return `export THROUGHLINE_SESSION='${sessionId.replace(/'/g, `'\\''`)}'`;
}

/**
 * Append the line to `file` unless it holds it already. Never throws: a file that cannot be
 * read or written costs the session its default, never its hook.
 */
export async function exportSession(file: string, sessionId: string): Promise<void> {
  try {
    const line = sessionExportLine(sessionId);
    const f = Bun.file(file);
    const text = f.size > 0 ? await f.text() : "";
    if (text.split("\n").some((l) => l.trim() === line)) return;
    // The file is this hook's own (Claude Code gives each SessionStart hook its own): no other writer.
    await Bun.write(file, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`);
  } catch {
    // unwritable, a directory, gone: the reads keep their other defaults
  }
}
