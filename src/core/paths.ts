/** Where things live, from the environment (pure: the environment is passed in). */
export type Env = Record<string, string | undefined>;

function home(env: Env): string {
  return env.HOME ?? env.USERPROFILE ?? "/";
}

export function throughlineHome(env: Env): string {
  return env.THROUGHLINE_HOME || `${home(env)}/.throughline`;
}

/** `--db` beats `THROUGHLINE_DB` beats `$THROUGHLINE_HOME/throughline.db`. */
export function databasePath(env: Env, flag?: string): string {
  return flag || env.THROUGHLINE_DB || `${throughlineHome(env)}/throughline.db`;
}

export function claudeConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || `${home(env)}/.claude`;
}

/** SPEC §1: absolute, no trailing slash. */
export function normalizeProject(cwd: string): string {
  let p = cwd.replace(/\\/g, "/");
  while (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  return p;
}
