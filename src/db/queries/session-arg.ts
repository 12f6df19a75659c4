/**
 * What a `--session` argument names: every command that takes `--session` reads it through here,
 * so each takes a session id or a unique prefix of one (docs/contract.md). Commands only: hooks
 * get whole ids from Claude Code and never guess.
 */
import type { Database } from "bun:sqlite";
import { selfInvocation } from "../../core/invocation.ts";
import { ThroughlineError } from "../../errors.ts";
import { resolveChain } from "./chain.ts";
import { sessionsByPrefix } from "./sessions.ts";

/**
 * The one session whose id starts with `prefix`, for a `--session` argument that is no id the
 * database holds (docs/contract.md: every command that takes `--session` takes a unique prefix).
 * None, or several, is an error that says which.
 */
export function sessionByPrefix(db: Database, prefix: string): string {
  const ids = prefix === "" ? [] : sessionsByPrefix(db, prefix);
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0)
    throw new ThroughlineError(
      "E_NO_SESSION",
      `no session ${prefix} in this database (no id starts with it)`,
      {
        hint: `\`${selfInvocation()} status\` lists the sessions it holds`,
      },
    );
  const shown = ids.length === 5 ? `${ids.slice(0, 4).join(", ")}, …` : ids.join(", ");
  throw new ThroughlineError(
    "E_AMBIGUOUS_SESSION",
    `--session ${prefix} matches several sessions (${shown}); give more of the id`,
  );
}

/**
 * The session id `given` names: itself when the database holds it, else the one it is a prefix of.
 * `keepUnknown`: an id no session starts with is kept as given (pause: a session not recorded yet).
 */
export function sessionIdFor(db: Database, given: string, keepUnknown = false): string {
  const known = db
    .query<{ n: number }, { id: string }>(
      `SELECT (SELECT count(*) FROM sessions WHERE id = $id)
            + (SELECT count(*) FROM (SELECT 1 FROM turns WHERE session_id = $id LIMIT 1)) AS n`,
    )
    .get({ id: given });
  if (known && known.n > 0) return given;
  return keepUnknown && sessionsByPrefix(db, given).length === 0 ? given : sessionByPrefix(db, given);
}

/**
 * The live end of the chain a `--session` argument names: a session id, or a unique prefix of
 * one. A whole id (every command throughline prints bakes one) costs no more than resolveChain.
 */
export function resolveChainArg(db: Database, given: string): string {
  try {
    return resolveChain(db, given);
  } catch (err) {
    if (!(err instanceof ThroughlineError && err.code === "E_NO_SESSION")) throw err;
    return resolveChain(db, sessionByPrefix(db, given));
  }
}
