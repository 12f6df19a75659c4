import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, REPO, tempDb } from "../../harness/db.ts";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { replay } from "../../src/capture/replay.ts";
import { summarizeNext } from "../../src/capture/summarize.ts";
import { hintScansAgree, REDACTION_KINDS, redact, withHintBatch } from "../../src/core/redact.ts";
import { SECRET_SHAPES, SECRETS } from "../helpers/secrets.ts";

/** The database file and its WAL as bytes, where a leaked secret would be found. */
function storedBytes(path: string): string[] {
  return [path, `${path}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1"));
}

/** What must be absent for a kind: the whole secret, and its tail (a partial match keeps the end). */
function needles(secret: string): string[] {
  return [secret, secret.slice(-12)];
}

describe("redaction", () => {
  test("no secret of the fixture reaches the database file or its WAL", () => {
    using t = tempDb();
    replay(t.db, [join(FIXTURES, "transcripts", "secrets.jsonl")]);
    const files = storedBytes(t.path);
    expect(files.length).toBeGreaterThan(0);
    expect(Object.keys(SECRETS).length).toBeGreaterThanOrEqual(15);
    for (const [kind, secret] of Object.entries(SECRETS))
      for (const bytes of files)
        expect({ kind, found: bytes.includes(secret) }).toEqual({ kind, found: false });
    for (const bytes of files) expect(bytes.includes("9999")).toBe(false); // <private> span
    const all = t.db.query("SELECT group_concat(text, ' ') AS t FROM bodies").get() as { t: string };
    expect(all.t).toContain("[REDACTED:aws_access_key]");
    expect(all.t).toContain("[private]");
  });

  test("every kind the code knows has a fixture, and every fixture names a known kind", () => {
    expect(REDACTION_KINDS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(REDACTION_KINDS).size).toBe(REDACTION_KINDS.length);
    const missing = REDACTION_KINDS.filter((k) => !(k in SECRET_SHAPES));
    const unknown = Object.keys(SECRET_SHAPES).filter((k) => !REDACTION_KINDS.includes(k));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });

  test("docs/redaction.md lists every kind", () => {
    const doc = readFileSync(join(REPO, "docs", "redaction.md"), "utf8");
    expect(REDACTION_KINDS.filter((k) => !doc.includes(`| \`${k}\` |`))).toEqual([]);
  });

  test("each fixture is redacted under its own kind, leaving no part of the secret", () => {
    for (const [kind, { text, secret }] of Object.entries(SECRET_SHAPES)) {
      const out = redact(text);
      const leaked = needles(secret).filter((n) => out.includes(n));
      expect({ kind, leaked, marked: out.includes(`[REDACTED:${kind}]`) }).toEqual({
        kind,
        leaked: [],
        marked: true,
      });
    }
  });

  test("every kind stored through capture (prompt, tool call, output, title, summary) leaves no trace in the DB or WAL", () => {
    using t = tempDb();
    const sid = "33333333-0000-4000-8000-000000000001";
    const b = new TranscriptBuilder(sid);
    const shapes = Object.entries(SECRET_SHAPES);
    b.raw({
      type: "custom-title",
      customTitle: `rotate ${SECRET_SHAPES.github_token!.secret}`,
      sessionId: sid,
    });
    b.user(`Here are the credentials:\n${shapes.map(([, s]) => s.text).join("\n")}`);
    for (const [kind, s] of shapes)
      b.tool("Bash", { command: `echo '${s.text}' > /tmp/${kind}.txt` }, `wrote ${s.text}`);
    b.tool(
      "Bash",
      { command: `git commit -m "add ${SECRET_SHAPES.npm_token!.secret}"` },
      "[main 1a2b3c4] add",
    );
    b.say(`Stored them all: ${shapes.map(([, s]) => s.text).join(" ")}`);
    // Enough later turns that the first one falls out of the window and gets an L1 summary.
    for (let i = 0; i < 22; i++) b.user(`Next step ${i}`).say(`Done with step ${i}.`);
    const file = join(t.dir, `${sid}.jsonl`);
    writeFileSync(file, b.text());
    replay(t.db, [file]);
    // `cat` as the summarizer echoes the turn back: the summary holds every secret unless redacted.
    const env = {
      PATH: process.env.PATH ?? "",
      THROUGHLINE_SUMMARIZER: "command",
      THROUGHLINE_SUMMARIZER_CMD: "cat",
    };
    expect(summarizeNext(t.db, sid, env, Date.now())?.ok).toBe(true);

    const row = (sql: string) => t.db.query(sql).get() as { v: string | null };
    expect(row(`SELECT title AS v FROM sessions WHERE id = '${sid}'`).v).toBe(
      "rotate [REDACTED:github_token]",
    );
    const summary = row("SELECT group_concat(summary, ' ') AS v FROM skeletons").v ?? "";
    expect(summary).toContain("[REDACTED:private_key]");
    const events =
      row("SELECT group_concat(summary || ' ' || coalesce(detail, ''), ' ') AS v FROM events").v ?? "";
    expect(events).toContain("[REDACTED:npm_token]");
    t.db.exec("PRAGMA wal_checkpoint(PASSIVE)");
    const files = storedBytes(t.path);
    expect(files.length).toBeGreaterThan(0);
    for (const [kind, s] of shapes)
      for (const bytes of files) {
        const found = needles(s.secret).filter((n) => bytes.includes(n));
        expect({ kind, found }).toEqual({ kind, found: [] });
      }
  });

  test("rules keep the surrounding text", () => {
    expect(redact("export DB_PASSWORD=hunter22 # prod")).toBe(
      "export DB_PASSWORD=[REDACTED:env_secret] # prod",
    );
    expect(redact("mysql://root:pw1234@localhost/db")).toBe(
      "mysql://root:[REDACTED:connection_string]@localhost/db",
    );
    expect(redact("Authorization: Bearer abcdefghijklmnop1234")).toBe(
      "Authorization: Bearer [REDACTED:bearer_token]",
    );
    expect(redact("curl 'https://api.example.com/v1?api_key=abcd1234efgh&page=2'")).toBe(
      "curl 'https://api.example.com/v1?api_key=[REDACTED:env_secret]&page=2'",
    );
  });

  test("a URL password runs to the last @ before the host, for every database scheme", () => {
    for (const [url, host] of [
      ["postgres://app:p@ss@w0rd@db.internal:5432/prod", "db.internal:5432/prod"],
      ["postgresql://app:a@b@localhost/db", "localhost/db"],
      ["mysql://root:se@cret@127.0.0.1:3306/x", "127.0.0.1:3306/x"],
      [
        "mongodb+srv://user:p@ss@cluster0.example.net/db?retryWrites=true",
        "cluster0.example.net/db?retryWrites=true",
      ],
      ["redis://:s3@cr3t@cache:6379/0", "cache:6379/0"],
    ] as const) {
      const out = redact(`connect ${url} now`);
      expect(out).toContain(`:[REDACTED:connection_string]@${host} now`);
      expect(out).not.toContain("@w0rd");
    }
    // An `@` after the host (a path, a query) is not part of the password.
    expect(redact("https://u:tok3n@registry.example.com/@scope/pkg")).toBe(
      "https://u:[REDACTED:connection_string]@registry.example.com/@scope/pkg",
    );
  });

  test("ordinary code, hashes, ids, paths and media markers are left alone", () => {
    for (const text of [
      "const token = await getToken();",
      "password: string;",
      "https://example.com/path?q=1",
      "see http://localhost:3000/api",
      "function secret() {}",
      "git@github.com:owner/repo.git and ssh://git@github.com:22/owner/repo",
      "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
      "session 123e4567-e89b-12d3-a456-426614174000 resumed",
      "/home/dev/project/src/core/redact.ts:42 and ./test/capture/redaction.test.ts",
      "[image: image/png 12 KB] [document: application/pdf 3 KB]",
      "API_TOKEN=$API_TOKEN and SECRET_KEY_BASE=$(openssl rand -hex 64)",
      "SSL_PRIVATE_KEY=/etc/ssl/private/server.key and TOKEN_FILE=./secrets/token.txt",
      "GITHUB_TOKEN=ghp_xxxxxxxxxxxx and API_KEY=your-api-key",
      "a key-value store in the us-east-1 region; TASK_SKIPPED",
    ])
      expect(redact(text)).toBe(text);
  });

  test("the per-hint scan of a cold process and the one-regex scan name the same rules", () => {
    // A process scans its first 64 KiB hint by hint and the rest with one regex (src/core/redact.ts):
    // the two must agree on every fixture, alone and inside ordinary text, and on text without one.
    const texts = Object.values(SECRET_SHAPES).flatMap(({ text }) => [text, `log line ${text} done`]);
    texts.push("plain words, no secret at all, in a sentence long enough to be scanned");
    expect(texts.filter((t) => !hintScansAgree(t))).toEqual([]);
    expect(texts.length).toBeGreaterThan(REDACTION_KINDS.length);
  });

  test("redacting a batch (an ingest's strings, hints found once) gives what each string gives alone", () => {
    const secrets = Object.values(SECRET_SHAPES).map(({ text }) => text);
    const texts = [
      ...secrets.map((t, i) => (i % 2 === 0 ? `log line ${t} done` : t)),
      "plain words, no secret at all, in a sentence long enough to be scanned",
      "a key-value store in the us-east-1 region; TASK_SKIPPED",
    ];
    const alone = texts.map(redact);
    expect(withHintBatch(texts, () => texts.map(redact))).toEqual(alone);
    // A string outside the batch is scanned as usual; one secret among plain strings still goes.
    const few = [texts[0]!, texts.at(-1)!, texts.at(-2)!];
    expect(withHintBatch(few, () => [...few, texts[1]!].map(redact))).toEqual(
      [...few, texts[1]!].map(redact),
    );
    expect(alone.filter((t, i) => t !== texts[i]).length).toBe(secrets.length);
  });

  test("a long base64 image body is not mistaken for a token", () => {
    // A PNG-like body: long runs of base64 where letter-only prefixes (EAAA, SK, key-) occur by chance.
    const body = `iVBORw0KGgoAAAANSUhEUgAA${"EAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+SK0123456789abcdef0123456789abcdef/".repeat(40)}==`;
    expect(redact(body)).toBe(body);
  });
});
