/**
 * Handoff decisions, pure: the hook gathers rows, this decides what to do. Which session a
 * /clear continues is described in docs/hooks.md ("Which session a /clear continues").
 */

/** A baton is consumed only by a session born within this long after it was written. */
export const BATON_TTL_MS = 60 * 60 * 1000;

export type HandoffPath = "baton" | "auto" | "none";

/** How a handoff's predecessor was chosen (recorded, shown by `doctor --session`). */
export type ChosenBy = "link" | "baton" | "fallback" | "none";

export interface BatonRow {
  project: string;
  session_id: string;
  created_at: number;
}

export interface HandoffInput {
  sessionId: string;
  /** When the consuming session was born (its SessionStart). */
  bornAt: number;
  baton: BatonRow | null;
  /** Predecessor frozen at SessionStart(clear), if any. */
  frozen: string | null;
}

export type BatonFate = "consume" | "keep" | "expire" | "none";

export interface HandoffDecision {
  path: HandoffPath;
  predecessor: string | null;
  baton: BatonFate;
  /** Why the baton was not used, when there was one. */
  note: string | null;
}

/** `/tl`, `/tl <words>` or `/tl\n…`: the person asks to hand this session to the next one. */
export function isBatonPrompt(prompt: string): boolean {
  return prompt === "/tl" || prompt.startsWith("/tl ") || prompt.startsWith("/tl\n");
}

export function decideHandoff(input: HandoffInput): HandoffDecision {
  const { baton } = input;
  let fate: BatonFate = "none";
  let note: string | null = null;
  if (baton) {
    if (baton.session_id === input.sessionId) {
      fate = "keep";
      note = "baton is this session's own";
    } else if (baton.created_at > input.bornAt) {
      fate = "keep";
      note = "baton written after this session was born: left for a later session";
    } else if (input.bornAt - baton.created_at > BATON_TTL_MS) {
      fate = "expire";
      note = "baton older than 1 hour: expired";
    } else {
      return { path: "baton", predecessor: baton.session_id, baton: "consume", note: null };
    }
  }
  if (input.frozen && input.frozen !== input.sessionId)
    return { path: "auto", predecessor: input.frozen, baton: fate, note };
  return { path: "none", predecessor: null, baton: fate, note };
}

export type MergeSkip =
  | "self_merge"
  | "missing_predecessor"
  | "predecessor_already_merged"
  | "predecessor_not_older"
  | "chain_cycle";

export interface MergeCheckInput {
  sessionId: string;
  sessionCreatedAt: number;
  predecessor: { id: string; created_at: number; merged_into: string | null } | null;
  predecessorId: string;
}

/** Why a merge must not happen, or null when it may. */
export function mergeSkipReason(input: MergeCheckInput): MergeSkip | null {
  if (input.predecessorId === input.sessionId) return "self_merge";
  const p = input.predecessor;
  if (!p) return "missing_predecessor";
  if (p.merged_into !== null) return "predecessor_already_merged";
  if (p.created_at >= input.sessionCreatedAt) return "predecessor_not_older";
  return null;
}

// ── which session a /clear continues ─────────────────────────────────────────────────────

/**
 * A SessionEnd(clear) is matched to the SessionStart(clear) of the same client process only
 * this close in time. Observed gap: 60–200 ms; hooks on a loaded machine can lag by seconds.
 */
export const LINK_WINDOW_MS = 10_000;

/** Sessions cleared before their first prompt are passed through at most this many times. */
export const MAX_PASS_ON = 16;

/** One SessionEnd(reason "clear"), with the birth time of the session it ended. */
export interface ClearLink {
  session_id: string;
  project: string | null;
  /** `pid:<n>` of the `claude` process that ran the hook, when known. */
  client: string | null;
  prompt_id: string | null;
  created_at: number;
  /** When the cleared session was born; null when the database never saw its SessionStart. */
  session_created_at: number | null;
  /** Set when the cleared session's chain already moved on (its successor took it). */
  merged_into: string | null;
}

export interface LinkQuery {
  sessionId: string;
  /** When the new session was born (its SessionStart). */
  bornAt: number;
  client: string | null;
  /** SessionStart's `prompt_id` (Claude Code 2.1.197 repeats SessionEnd's; 2.1.332 sends none). */
  promptId: string | null;
  project: string | null;
  /** Sessions already chosen as predecessor by another pending session (another window). */
  claimed?: ReadonlySet<string>;
}

export interface LinkChoice {
  predecessor: string;
  chosenBy: "link" | "fallback";
  evidence: string;
}

/**
 * The session this one continues, from the SessionEnd(clear) rows near its birth: the same
 * `prompt_id`, else the same client process, else (last) a clear just seen in the project that
 * no other known client made and no other session took. Null: nothing links; the caller may
 * still fall back to the newest live session of the project.
 */
export function chooseClearLink(q: LinkQuery, links: readonly ClearLink[]): LinkChoice | null {
  const eligible = links.filter(
    (l) => l.session_id !== q.sessionId && (l.session_created_at === null || l.session_created_at < q.bornAt),
  );
  const newest = (ls: ClearLink[]) =>
    ls.reduce<ClearLink | null>((a, l) => (a && a.created_at >= l.created_at ? a : l), null);
  if (q.promptId) {
    const byPrompt = newest(eligible.filter((l) => l.prompt_id === q.promptId));
    if (byPrompt)
      return { predecessor: byPrompt.session_id, chosenBy: "link", evidence: `same prompt_id ${q.promptId}` };
  }
  const near = eligible.filter((l) => Math.abs(l.created_at - q.bornAt) <= LINK_WINDOW_MS);
  if (q.client) {
    const byClient = newest(near.filter((l) => l.client === q.client));
    if (byClient)
      return {
        predecessor: byClient.session_id,
        chosenBy: "link",
        evidence: `same client process (${q.client})`,
      };
  }
  if (q.project) {
    const recent = newest(
      near.filter(
        (l) =>
          l.project === q.project &&
          // A clear made by another known client process belongs to another window.
          !(q.client && l.client && l.client !== q.client) &&
          !q.claimed?.has(l.session_id) &&
          l.merged_into === null,
      ),
    );
    if (recent)
      return {
        predecessor: recent.session_id,
        chosenBy: "fallback",
        evidence: `SessionEnd(clear) of ${recent.session_id} seen ${Math.abs(q.bornAt - recent.created_at)} ms from this session's start`,
      };
  }
  return null;
}

// ── the client process ───────────────────────────────────────────────────────────────────

/** Hops walked up from a hook process looking for `claude`: hook → sh → claude is typical. */
export const MAX_PROC_HOPS = 6;

/** `pid:<n>` from CLAUDE_PID (Claude Code 2.1.332 sets it in every hook's environment). */
export function clientFromEnv(env: Record<string, string | undefined>): string | null {
  const pid = env.CLAUDE_PID;
  return pid && /^\d+$/.test(pid) ? `pid:${pid}` : null;
}

export interface ProcEntry {
  pid: number;
  ppid: number;
  comm: string;
  /** NUL-separated argv, as in /proc/<pid>/cmdline. */
  cmdline: string;
}

/** `pid (comm) state ppid …`: comm may hold spaces and parentheses, so cut at the last `)`. */
export function parseProcStat(text: string): { pid: number; comm: string; ppid: number } | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const ppid = Number(text.slice(close + 2).split(" ")[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return null;
  return { pid, comm: text.slice(open + 1, close), ppid };
}

function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\")) + 1);
}

/** The Claude Code CLI: its process title is `claude`, or node/bun runs its `cli.js`. */
export function isClaudeProcess(e: Pick<ProcEntry, "comm" | "cmdline">): boolean {
  if (e.comm === "claude") return true;
  const argv = e.cmdline.split("\0").filter(Boolean);
  if (argv[0] && baseName(argv[0]) === "claude") return true;
  return argv.slice(1, 3).some((a) => baseName(a) === "claude" || /claude-code[\\/]cli\.m?js$/.test(a));
}

/**
 * Walk up from `start` to the first `claude` process; `read` returns a process's entry or null
 * (no /proc on macOS and Windows: then there is no client, and nothing is guessed).
 */
export async function findClientProcess(
  start: number,
  read: (pid: number) => ProcEntry | null | Promise<ProcEntry | null>,
): Promise<string | null> {
  let pid = start;
  for (let hop = 0; hop < MAX_PROC_HOPS && pid > 1; hop++) {
    const e = await read(pid);
    if (!e) return null;
    if (isClaudeProcess(e)) return `pid:${e.pid}`;
    pid = e.ppid;
  }
  return null;
}
