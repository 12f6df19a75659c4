/**
 * Whether this process ends with its command: the CLI and the status line, started by src/cli.ts
 * (not a test calling the CLI in process, nor the ui server). Its read-only connections are then
 * left to the exit, which releases their locks and mapping sooner than `close` does
 * (docs/architecture.md, "The read path"). No imports: the status line checks it without SQLite.
 */
let oneShot = false;

export function markOneShot(on = true): void {
  oneShot = on;
}

export function isOneShot(): boolean {
  return oneShot;
}
