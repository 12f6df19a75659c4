import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { replay } from "../../src/capture/replay.ts";
import { redact } from "../../src/core/redact.ts";
import { FIXTURES, tempDb } from "../helpers/db.ts";
import { SECRETS } from "../helpers/secrets.ts";

describe("redaction (SPEC §3)", () => {
  test("no secret of the fixture reaches the database file or its WAL", () => {
    using t = tempDb();
    replay(t.db, [join(FIXTURES, "transcripts", "secrets.jsonl")]);
    const files = [t.path, `${t.path}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1"));
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
  });

  test("ordinary code is left alone", () => {
    for (const text of [
      "const token = await getToken();",
      "password: string;",
      "https://example.com/path?q=1",
      "see http://localhost:3000/api",
      "function secret() {}",
    ])
      expect(redact(text)).toBe(text);
  });
});
