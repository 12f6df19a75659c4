import { describe, expect, test } from "bun:test";
import { isReadOnlyPull, plainWords } from "../../src/core/permission.ts";

const INV = "/usr/bin/bun '/home/me/.claude/plugins/cache/throughline/throughline.js'";

describe("isReadOnlyPull: the plugin's PreToolUse allows exactly the printed read-only shapes", () => {
  const allowed = [
    `${INV} recall --l2 --session 5e1f0c2a --before 2026-03-02T00:54:00.000Z --last 17`,
    `${INV} recall --l1 --session 5e1f0c2a --before 2026-03-02T00:54:00.000Z --skip 17`,
    `${INV} detail 2026-03-01T23:34:00.000Z --session 5e1f0c2a`,
    `${INV} search 'token refresh' --limit 20`,
    `${INV} recall errors today`,
    `${INV} context --session 'it'\\''s mine'`,
    `${INV} status --json`,
  ];
  for (const c of allowed)
    test(`allows: ${c.slice(INV.length)}`, () => expect(isReadOnlyPull(c, INV)).toBe(true));

  const refused = [
    `${INV} recall x && rm -rf ~`,
    `${INV} recall x; rm y`,
    `${INV} recall x | tee /etc/passwd`,
    `${INV} recall x > out.txt`,
    `${INV} recall $(rm y)`,
    `${INV} recall \`rm y\``,
    `${INV} search "double quoted"`,
    `${INV} recall x\nrm y`,
    `${INV} note --decision 'x'`,
    `${INV} uninstall`,
    `${INV} forget --session abc --yes`,
    `${INV} hook stop`,
    `${INV}`,
    "/usr/bin/bun /somewhere/else.js recall --l2",
    "throughline recall --l2",
    `${INV} recall 'unterminated`,
  ];
  for (const c of refused)
    test(`no opinion: ${c.slice(0, 80)}`, () => expect(isReadOnlyPull(c, INV)).toBe(false));

  test("plainWords splits plain and single-quoted words only", () => {
    expect(plainWords("a 'b c' d'e'f")).toEqual(["a", "b c", "def"]);
    expect(plainWords('a "b"')).toBeNull();
    expect(plainWords("a ~/x")).toBeNull();
  });
});
