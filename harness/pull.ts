/**
 * Helpers for push/pull tests: a transcript writer with exact timestamps (ties to the
 * millisecond matter here), a direct-SQL seeder for large generated chains, and a parser for
 * the commands the push bakes into its text.
 */
import type { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { runShell } from "./db.ts";

type Obj = Record<string, unknown>;

/**
 * Writes Claude Code-shaped JSONL with the timestamps given, nothing implicit. Kept beside
 * harness/transcript.ts's TranscriptBuilder on purpose: the pull goldens pin ties to the
 * millisecond, which a builder that runs its own clock cannot state (docs/architecture.md).
 */
export class Jsonl {
  readonly lines: string[] = [];
  private n = 0;
  private parent: string | null = null;

  readonly sessionId: string;
  readonly cwd: string;

  constructor(sessionId: string, cwd = "/home/dev/fixture") {
    this.sessionId = sessionId;
    this.cwd = cwd;
  }

  private entry(type: string, at: string, extra: Obj): this {
    const uuid = `${this.sessionId}-${++this.n}`;
    this.lines.push(
      JSON.stringify({
        parentUuid: this.parent,
        isSidechain: false,
        userType: "external",
        cwd: this.cwd,
        sessionId: this.sessionId,
        version: "2.1.39",
        gitBranch: "main",
        type,
        uuid,
        timestamp: at,
        ...extra,
      }),
    );
    this.parent = uuid;
    return this;
  }

  /** A human prompt: starts a turn. */
  user(at: string, text: string): this {
    return this.entry("user", at, { message: { role: "user", content: text } });
  }

  /** A user entry the client marks `isMeta`: a slash command's expansion, a caveat. */
  meta(at: string, text: string): this {
    return this.entry("user", at, { isMeta: true, message: { role: "user", content: text } });
  }

  private assistantBlock(at: string, block: Obj, id?: string): this {
    const msg = id ?? `msg_${this.n + 1}`;
    return this.entry("assistant", at, {
      requestId: `req_${msg}`,
      message: { id: msg, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [block] },
    });
  }

  say(at: string, text: string): this {
    return this.assistantBlock(at, { type: "text", text });
  }

  think(at: string, text: string): this {
    return this.assistantBlock(at, { type: "thinking", thinking: text, signature: "sig" });
  }

  tool(at: string, name: string, input: Obj, output: string, isError = false): this {
    const id = `toolu_${this.sessionId.slice(0, 6)}_${this.n + 1}`;
    this.assistantBlock(at, { type: "tool_use", id, name, input });
    return this.entry("user", at, {
      message: {
        role: "user",
        content: [{ tool_use_id: id, type: "tool_result", content: output, is_error: isError }],
      },
      toolUseResult: { stdout: output, stderr: "", interrupted: false, isImage: false },
    });
  }

  text(): string {
    return `${this.lines.join("\n")}\n`;
  }
}

/** ISO time `ms` milliseconds after `base`. */
export function isoAt(base: string, ms: number): string {
  return new Date(Date.parse(base) + ms).toISOString();
}

export interface SeedTurn {
  startedAt: number;
  endedAt?: number;
  user: string;
  assistant: string;
  finalText?: string | null;
  origin?: string;
  tools?: string[];
  summary?: string;
}

/**
 * Insert a chain directly with SQL: for generated chains far larger than transcripts are
 * practical to write (100,000 turns). Real captures go through `ingestTranscript`.
 */
export function seedChain(
  db: Database,
  live: string,
  turns: readonly SeedTurn[],
  project = "/home/dev/seed",
): void {
  const numbers = new Map<string, number>();
  const insTurn = db.query(
    `INSERT INTO turns (session_id, origin_session_id, turn_number, started_at, ended_at, user_chars, assistant_chars)
     VALUES ($s, $o, $n, $start, $end, $uc, $ac) RETURNING id`,
  );
  const insBody = db.query(
    `INSERT INTO bodies (turn_id, origin_session_id, role, text, final_text)
     VALUES ($t, $o, $role, $text, $final)`,
  );
  const insDetail = db.query(
    `INSERT INTO details (turn_id, origin_session_id, ord, kind, tool_name, tool_use_id, input, output, created_at, ikey)
     VALUES ($t, $o, $ord, $kind, $tool, $tuid, $input, $output, $at, $ikey)`,
  );
  const insSkeleton = db.query(
    "INSERT INTO skeletons (turn_id, summary, backend, created_at) VALUES ($t, $summary, 'extractive', $at)",
  );
  const insSession = db.query(
    `INSERT OR IGNORE INTO sessions (id, project, created_at, updated_at, merged_into)
     VALUES ($id, $project, $at, $at, $merged)`,
  );
  db.transaction(() => {
    for (const t of turns) {
      const origin = t.origin ?? live;
      insSession.run({ id: origin, project, at: t.startedAt, merged: origin === live ? null : live });
      const n = (numbers.get(origin) ?? 0) + 1;
      numbers.set(origin, n);
      const end = t.endedAt ?? t.startedAt;
      const { id } = insTurn.get({
        s: live,
        o: origin,
        n,
        start: t.startedAt,
        end,
        uc: t.user.length,
        ac: t.assistant.length,
      }) as { id: number };
      insBody.run({ t: id, o: origin, role: "user", text: t.user, final: null });
      insBody.run({
        t: id,
        o: origin,
        role: "assistant",
        text: t.assistant,
        final: t.finalText === undefined ? t.assistant || null : t.finalText,
      });
      (t.tools ?? []).forEach((tool, ord) => {
        insDetail.run({
          t: id,
          o: origin,
          ord,
          kind: "tool_input",
          tool,
          tuid: `tu-${origin}-${n}-${ord}`,
          input: '{"command":"true"}',
          output: null,
          at: t.startedAt,
          ikey: `${origin}:${n}:${ord}`,
        });
      });
      if (t.summary !== undefined) insSkeleton.run({ t: id, summary: t.summary, at: end });
    }
    insSession.run({ id: live, project, at: turns[0]?.startedAt ?? 0, merged: null });
  })();
}

/** Split a baked command the way a POSIX shell would (single quotes only: all we emit). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      cur += command.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === "\\" && i + 1 < command.length) {
      cur += command[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** The `<invocation> recall --l2|--l1 …` commands exactly as written in the push text. */
export function bakedCommands(text: string): { l2: string | null; l1: string | null } {
  const find = (mode: string) => new RegExp(`\`([^\`\n]* recall --${mode} [^\`]*)\``).exec(text)?.[1] ?? null;
  return { l2: find("l2"), l1: find("l1") };
}

/**
 * Run a command exactly as the product printed it, through a shell with a user's PATH
 * (runShell), against `db`. Nothing is rewritten: a command that only works in the test's own
 * environment fails here.
 */
export function runBaked(command: string, db: string, extra: string[] = []) {
  return runShell(command, { env: { THROUGHLINE_DB: db }, extra });
}

export function fileDigest(path: string): string | null {
  return existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : null;
}

/** The one deterministic PRNG of the tests (harness/cuts.ts), by the name property tests use. */
export { rng as prng } from "./cuts.ts";
