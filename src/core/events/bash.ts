/** Events of a Bash call: commits, checkouts, test runs, and failures (docs/activity.md). Pure. */

import { type JsonObject, str } from "../jsonl.ts";
import type { ToolCall, ToolResult } from "../model.ts";
import { simpleCommands } from "../shell.ts";
import { clip } from "../text.ts";
import { draft, type EventDraft, errorEvent, exitCodeOf, failed, summaryLine } from "./common.ts";
import { checkoutOf, commitArgs, commitOutput, gitSubcommand } from "./git.ts";
import { testOutcome, testRunner } from "./tests.ts";

export function bashEvents(call: ToolCall, r: ToolResult): EventDraft[] {
  const cmd = str(call.input.command) ?? "";
  const out: EventDraft[] = [];
  const bad = failed(r);
  const commands = simpleCommands(cmd);
  let committed = false;
  let runner: string | null = null;
  for (const words of commands) {
    const git = gitSubcommand(words);
    if (git) {
      const [sub, args] = git;
      if (sub === "commit" && !committed && !bad) {
        committed = true;
        const a = commitArgs(args);
        const o = commitOutput(r.text);
        const message = a.message ?? o?.subject ?? null;
        const subject = (message ?? "").split("\n")[0]!.trim();
        const detail: JsonObject = { command: clip(cmd, 500), message: message ? clip(message, 2000) : null };
        if (o) {
          detail.hash = o.hash;
          detail.branch = o.branch;
        }
        if (a.amend) detail.amend = true;
        if (a.messageFile) detail.message_file = a.messageFile;
        const what =
          subject || (a.messageFile ? `message from ${a.messageFile}` : a.amend ? "(amended)" : "");
        const where = o ? ` ${o.hash}${o.branch ? ` on ${o.branch}` : ""}` : "";
        out.push(draft(call, "git_commit", `${a.amend ? "Amended" : "Committed"}${where}: ${what}`, detail));
      } else if ((sub === "checkout" || sub === "switch") && !bad) {
        const c = checkoutOf(sub, args);
        if (c)
          out.push(
            draft(
              call,
              "git_checkout",
              `${c.create ? "Created and switched to" : "Switched to"} ${c.target}`,
              { target: c.target, create: c.create, command: clip(cmd, 500) },
            ),
          );
      }
      continue;
    }
    runner ??= testRunner(words);
  }
  if (runner) {
    const t = testOutcome(r);
    const counts =
      t.passed !== null || t.failed !== null
        ? ` (${[t.passed !== null ? `${t.passed} passed` : "", t.failed !== null ? `${t.failed} failed` : ""].filter(Boolean).join(", ")})`
        : "";
    const verdict =
      t.outcome === "pass" ? "Tests passed" : t.outcome === "fail" ? "Tests failed" : "Tests ran";
    out.push(
      draft(call, "test_run", `${verdict}: ${runner}${counts} — ${summaryLine(cmd, 60)}`, {
        command: clip(cmd, 500),
        runner,
        outcome: t.outcome,
        passed: t.passed,
        failed: t.failed,
        ...(exitCodeOf(r) !== null ? { exit_code: exitCodeOf(r) } : {}),
      }),
    );
  }
  if (bad) out.push(errorEvent(call, r));
  return out;
}
