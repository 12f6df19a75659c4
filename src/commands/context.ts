import { formatIso } from "../core/clock.ts";
import { renderContext } from "../core/context.ts";
import { selfInvocation } from "../core/invocation.ts";
import { databasePath } from "../core/paths.ts";
import { withReader } from "../db/open.ts";
import { loadContextInput } from "../db/queries/chain.ts";
import { resolveChainArg } from "../db/queries/session-arg.ts";
import { ThroughlineError } from "../errors.ts";
import { dbArgs, jsonArgs, printJson } from "./_args.ts";
import { defineCommand } from "./_define.ts";
import { envSession, SESSION_ENV } from "./_pull-args.ts";

/**
 * `context --session <id>` (alias `handoff-context`): the resume context exactly as the push
 * would render it now, read-only. Nothing is consumed or recorded.
 */
function contextCommand(name: string, alias: string) {
  return defineCommand({
    meta: {
      name,
      examples: [`throughline ${name} --session 5e1f0c2a`, `throughline ${name} --session 5e1f0c2a --json`],
      description: `Preview the resume context a session's next push would carry (read-only; alias: ${alias})`,
    },
    args: {
      session: {
        type: "string",
        description: `Session id or a unique prefix (any session of the chain; default $${SESSION_ENV})`,
        valueHint: "id",
      },
      ...dbArgs,
      ...jsonArgs,
    },
    run({ args }) {
      // An explicit --session wins over the session the model's Bash runs in.
      const session = args.session || envSession();
      if (!session)
        throw new ThroughlineError("E_ARGS", `${name} needs --session <id> (or ${SESSION_ENV} set)`);
      withReader(databasePath(process.env, args.db), (db) => {
        const live = resolveChainArg(db, session);
        const out = renderContext(loadContextInput(db, live), selfInvocation());
        if (!args.json) return console.log(out.text);
        printJson({
          schema: "throughline.context.v1",
          session_id: live,
          text: out.text,
          stats: out.stats,
          turns: out.turns.map((t) => ({ turn_key: t.turnKey, started_at: formatIso(t.startedAt) })),
          pull: out.pull,
        });
      });
    },
  });
}

export default contextCommand("context", "handoff-context");
export const handoffContext = contextCommand("handoff-context", "context");
