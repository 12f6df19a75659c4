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

/**
 * Present once the user was told about the history not in memory yet (by `install` or the first
 * SessionStart, src/hooks/history-notice.ts): later SessionStarts check only that it exists.
 */
export function historyNoticePath(env: Env): string {
  return `${throughlineHome(env)}/history-notice`;
}

export function claudeConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || `${home(env)}/.claude`;
}

/**
 * A directory as throughline writes it: `/` separators, no trailing slash, a Windows drive
 * letter in upper case (`c:\x\` and `C:/x` are one directory). See docs/project-identity.md.
 */
export function normalizeProject(cwd: string): string {
  let p = cwd.replace(/\\/g, "/");
  if (/^[a-zA-Z]:/.test(p)) p = p[0]!.toUpperCase() + p.slice(1);
  while (p.length > 1 && p.endsWith("/") && !/^[A-Z]:\/$/.test(p)) p = p.slice(0, -1);
  if (/^[A-Z]:$/.test(p)) p += "/";
  return p;
}

/**
 * The folder Claude Code keeps a session's transcript in, under `projects/`: the directory the
 * session started in, every character but an ASCII letter or digit replaced by `-`
 * (`/home/me/my.app` → `-home-me-my-app`). Lossy: used only to recognise a known directory.
 */
export function transcriptFolderOf(dir: string): string {
  return dir.replace(/[^A-Za-z0-9]/g, "-");
}

/** A root: `/` or a drive (`C:/`). */
function isRoot(p: string): boolean {
  return p === "/" || /^[A-Z]:\/$/.test(p) || p === "";
}

/** Ancestors of a normalized path, deepest first: `/a/b/c`, `/a/b`, `/a`, `/` (or `C:/`). */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  let p = path;
  for (let i = 0; i < 256; i++) {
    out.push(p);
    if (isRoot(p)) break;
    const cut = p.lastIndexOf("/");
    if (cut < 0) break;
    const up = cut === 0 ? "/" : /^[A-Z]:$/.test(p.slice(0, cut)) ? `${p.slice(0, cut)}/` : p.slice(0, cut);
    if (up === p) break;
    p = up;
  }
  return out;
}

/** `rel` resolved against the normalized directory `base`, `.` and `..` folded. */
export function joinPath(base: string, rel: string): string {
  const r = normalizeProject(rel);
  const abs = r.startsWith("/") || /^[A-Z]:\//.test(r) ? r : `${base === "/" ? "" : base}/${r}`;
  const drive = /^[A-Z]:/.test(abs) ? abs.slice(0, 2) : "";
  const parts: string[] = [];
  for (const seg of abs.slice(drive.length).split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return `${drive}/${parts.join("/")}`;
}

/** What project identity reads of the file system (passed in: this module does no I/O). */
export interface ProjectFs {
  /** The real path of a directory, or the path itself when it cannot be resolved. */
  realpath(path: string): string;
  /** What `<dir>/.git` is: a directory, a file (its text), or nothing. */
  gitEntry(dir: string): { kind: "dir" } | { kind: "file"; text: string } | null;
  readText(path: string): string | null;
}

/**
 * The project a directory belongs to: the main worktree root of the git repository holding
 * it (a subdirectory, or a linked worktree via its `.git` file → gitdir → commondir), else the
 * directory itself. A repository at or above the home directory does not count (a dotfiles
 * repository in ~ would make every directory one project). See docs/project-identity.md.
 */
export function projectIdentity(cwd: string, fs: ProjectFs, home?: string): string {
  const dir = normalizeProject(fs.realpath(normalizeProject(cwd)));
  const homeDir = home ? normalizeProject(home) : null;
  for (const d of ancestors(dir)) {
    if (homeDir && (d === homeDir || homeDir.startsWith(d === "/" ? "/" : `${d}/`))) break;
    const git = fs.gitEntry(d);
    if (!git) continue;
    if (git.kind === "dir") return d;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(git.text);
    if (!m) return d;
    const gitdir = joinPath(d, m[1]!);
    const common = fs.readText(`${gitdir}/commondir`);
    // No commondir: a submodule or a plain gitfile; the directory holding `.git` is the root.
    if (common === null) return d;
    const commonDir = joinPath(gitdir, common.trim());
    return commonDir.endsWith("/.git") ? commonDir.slice(0, -"/.git".length) || "/" : d;
  }
  return dir;
}
