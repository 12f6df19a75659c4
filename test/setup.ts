// Preloaded by bunfig.toml: every test runs against temp dirs, never the real home.
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(tmpdir(), "throughline-test-"));
// One root per `bun test` run, gone after its last test: repeated runs would otherwise fill the
// temp directory. (A hook in a preload runs once, after every file.)
afterAll(() => rmSync(root, { recursive: true, force: true }));
process.env.HOME = join(root, "home");
process.env.THROUGHLINE_HOME = join(root, "throughline");
process.env.CLAUDE_CONFIG_DIR = join(root, "claude");
process.env.CODEX_HOME = join(root, "codex");
delete process.env.THROUGHLINE_DB;
// Set in a Claude Code session's Bash: a test's hooks must not write the real session's env
// file, and its reads must not default to the real session (docs/hooks.md).
delete process.env.THROUGHLINE_SESSION;
delete process.env.CLAUDE_ENV_FILE;
// Claude Code's own switch, read by doctor: a test sees the default unless it sets it.
delete process.env.CLAUDE_CODE_DISABLE_AUTO_MEMORY;
process.env.TZ = "UTC";
process.env.NO_COLOR = "1";
process.env.COLUMNS = "120";
process.env.THROUGHLINE_SUMMARIZER = "extractive";
