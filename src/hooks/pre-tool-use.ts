import { selfInvocation } from "../core/invocation.ts";
import { isObject } from "../core/jsonl.ts";
import { isReadOnlyPull } from "../core/permission.ts";
import type { HookPayload } from "./context.ts";

/**
 * PreToolUse (plugin installs only): allow this program's read-only pulls without an approval
 * prompt; say nothing about any other call, so Claude Code decides as it always does.
 */
export function preToolUse(payload: HookPayload): string | undefined {
  const input = payload.tool_input;
  if (payload.tool_name !== "Bash" || !isObject(input) || typeof input.command !== "string") return undefined;
  if (!isReadOnlyPull(input.command, selfInvocation())) return undefined;
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "throughline: a read-only memory pull",
    },
  });
}
