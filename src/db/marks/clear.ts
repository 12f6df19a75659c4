import { dirOf, filesIn, SAFE_ID, stringOrNull, writeRecord } from "./store.ts";

/** A SessionEnd(clear) not folded into `clear_links` yet: `clear/<session>.<created_at>`. */
export interface ClearMark {
  session_id: string;
  /** Where the session was when it ended: its project, when the database holds none, is this cwd's. */
  cwd: string | null;
  client: string | null;
  prompt_id: string | null;
  created_at: number;
}

/**
 * SessionEnd(clear)'s whole write when the directory is kept and nothing is left to read: the
 * link, with one native write, for the next handoff to fold (src/hooks/handoff.ts). False when it is
 * not kept or the write failed: the caller writes the row.
 */
export async function writeClearMark(dbPath: string, mark: ClearMark): Promise<boolean> {
  // Under a name no other write uses: a reader that finds it empty skips it.
  return writeRecord(dbPath, mark.session_id, `clear/${mark.session_id}.${mark.created_at}`, mark);
}

function parseClearMark(text: string): ClearMark | null {
  try {
    const v = JSON.parse(text) as Partial<ClearMark>;
    if (typeof v?.session_id !== "string" || !SAFE_ID.test(v.session_id) || !Number.isFinite(v.created_at))
      return null;
    return {
      session_id: v.session_id,
      cwd: stringOrNull(v.cwd),
      client: stringOrNull(v.client),
      prompt_id: stringOrNull(v.prompt_id),
      created_at: v.created_at as number,
    };
  } catch {
    return null;
  }
}

/**
 * The clear marks waiting to be folded, with their file names; `unreadable` counts the ones that do
 * not parse (an empty file is one being written, and is left for the next fold).
 */
export async function waitingClearMarks(dbPath: string): Promise<{
  marks: { name: string; mark: ClearMark }[];
  unreadable: string[];
}> {
  const dir = `${dirOf(dbPath)}/clear`;
  const marks: { name: string; mark: ClearMark }[] = [];
  const unreadable: string[] = [];
  // None when no /clear was marked yet.
  for (const name of filesIn(dbPath, "clear/")) {
    const text = await Bun.file(`${dir}/${name}`)
      .text()
      .catch(() => ""); // folded by another writer since the listing
    if (text === "") continue;
    const mark = parseClearMark(text);
    if (mark) marks.push({ name, mark });
    else unreadable.push(name);
  }
  return { marks, unreadable };
}

/** Once the links folded from them are committed (or for marks that never parse): gone. */
export async function clearMarksFolded(dbPath: string, names: readonly string[]): Promise<void> {
  for (const name of names)
    try {
      await Bun.file(`${dirOf(dbPath)}/clear/${name}`).unlink();
    } catch {
      // another writer folded it too
    }
}
