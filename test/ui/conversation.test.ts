/**
 * Issue 45, item 11: the viewer shows a conversation, not a database. A chain reads oldest first,
 * each turn's text and tool calls in the order they happened (captured since schema 12), one line
 * per call that opens to its input and output, edits as diffs, todo lists as checklists, Markdown
 * rendered by markdown-it and sanitised, chains titled by their first prompt, paging with a jump
 * to the newest.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../../harness/db.ts";
import { replay } from "../../src/capture/replay.ts";
import { startUi } from "../../src/commands/_ui-server.ts";
import { assemble } from "../../src/core/assemble.ts";
import { conversationOf, type TurnRow } from "../../src/core/conversation.ts";
import { splitLines } from "../../src/core/jsonl.ts";
import { callDiffs, callTitle, lineDiff } from "../../src/core/tool-call-view.ts";
import { openForWrite } from "../../src/db/open.ts";
import { markdown } from "../../src/render/ui/markdown.ts";
import { CONVERSATION, CONVERSATION_ID, SAMPLE_ID, type UiWorld, uiWorld } from "../helpers/ui.ts";

const row = (id: number, kind: string, textAt: number | null, more: Partial<TurnRow> = {}): TurnRow => ({
  id,
  kind,
  toolName: "Bash",
  toolUseId: `t${id}`,
  input: null,
  output: null,
  isError: false,
  textAt,
  ...more,
});

describe("45.11 the pure parts", () => {
  test("45.11 a turn's text and tool calls are put back in the order they happened", () => {
    const reply = "Let me check.\n\nNow the fix.\n\nDone.";
    const items = conversationOf(reply, [
      row(1, "tool_input", 13, { toolUseId: "a", input: '{"command":"ls"}' }),
      row(2, "tool_output", 13, { toolUseId: "a", output: "x.ts" }),
      row(3, "tool_input", 27, { toolName: "Edit", toolUseId: "b" }),
      row(4, "tool_output", 27, { toolName: "Edit", toolUseId: "b", output: "updated" }),
    ]);
    expect(
      items.map((i) => (i.type === "text" ? i.text : i.type === "call" ? `[${i.name}]` : "note")),
    ).toEqual(["Let me check.", "[Bash]", "Now the fix.", "[Edit]", "Done."]);
    const bash = items[1];
    expect(bash?.type === "call" && bash.results.map((r) => r.text)).toEqual(["x.ts"]);
  });

  test("45.11 rows stored before schema 12 (no place) follow the reply's text", () => {
    const items = conversationOf("All of it.", [
      row(1, "tool_input", null, { toolUseId: "a" }),
      row(2, "tool_output", null, { toolUseId: "a" }),
    ]);
    expect(items.map((i) => i.type)).toEqual(["text", "call"]);
  });

  test("45.11 the assembler records where in the reply each row happened", () => {
    const bytes = new Uint8Array(readFileSync(join(CONVERSATION, `${CONVERSATION_ID}.jsonl`)));
    const r = assemble(splitLines(bytes, 0).lines, { firstTurnNumber: 1 });
    const turn = r.turns[0]!;
    const bash = turn.details.find((d) => d.kind === "tool_input" && d.toolName === "Bash")!;
    const read = turn.details.find((d) => d.kind === "tool_input" && d.toolName === "Read")!;
    expect(turn.assistant.slice(0, bash.textAt)).toBe("Let me run the build first.");
    expect(turn.assistant.slice(0, read.textAt)).toEndWith("Let me read the Makefile.");
  });

  test("45.11 one line per tool call: command and exit status, file, pattern, todo progress", () => {
    const failed = [{ text: "Exit code 2\nmake: *** Error 2", isError: true }];
    expect(callTitle("Bash", '{"command":"make -j4"}', failed, null)).toBe("Bash: make -j4 → exit 2");
    expect(callTitle("Bash", '{"command":"bun test"}', [{ text: "1 fail", isError: true }], null)).toBe(
      "Bash: bun test → error",
    );
    expect(callTitle("Edit", '{"file_path":"/p/src/x.ts"}', [], "/p")).toBe("Edit src/x.ts");
    expect(callTitle("Read", '{"file_path":"/p/src/y.ts"}', [], "/p")).toBe("Read src/y.ts");
    expect(callTitle("Grep", '{"pattern":"TODO","path":"/p/src"}', [], "/p")).toBe('Grep: "TODO" in src');
    expect(
      callTitle(
        "TodoWrite",
        '{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"pending"}]}',
        [],
        null,
      ),
    ).toBe("Todo list: 1 of 2 done");
    expect(callTitle("mcp__x__y", "not json", [], null)).toBe("mcp__x__y");
  });

  test("45.11 an edit is a diff: removed and added lines, the rest as context", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc")).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "B" },
      { op: " ", text: "c" },
    ]);
    expect(callDiffs("Write", '{"file_path":"x","content":"one\\ntwo"}')).toEqual([
      [
        { op: "+", text: "one" },
        { op: "+", text: "two" },
      ],
    ]);
    const multi = callDiffs(
      "MultiEdit",
      '{"edits":[{"old_string":"a","new_string":"b"},{"old_string":"c"}]}',
    );
    expect(multi?.length).toBe(2);
    expect(callDiffs("Bash", '{"command":"ls"}')).toBeNull();
  });

  test("45.11 Markdown is rendered (tables too) and nothing of the text is trusted", () => {
    const table = markdown("| a | b |\n|---|---|\n| 1 | 2 |").value;
    expect(table).toContain("<table>");
    expect(table).toContain("<td>1</td>");
    const hostile = markdown(
      '<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) ![i](http://evil/i.png) [ok](https://example.com "t") \u202E',
    ).value;
    expect(hostile).not.toContain("<script");
    expect(hostile).not.toContain("<img");
    expect(hostile).toContain("&lt;script&gt;");
    expect(hostile).not.toContain('href="javascript');
    expect(hostile).toContain("[x](javascript:alert(1))");
    expect(hostile).toContain(
      '<a href="https://example.com" title="t" rel="noopener noreferrer nofollow">ok</a>',
    );
    expect(hostile).toContain("⟦U+202E⟧");
    expect(markdown("[rel](src/x.ts) [d](data:text/html,x)").value).not.toContain("<a ");
  });
});

test("45.11 markdown-it is imported by the web view's Markdown module only", () => {
  const importers = [...new Bun.Glob("src/**/*.ts").scanSync(REPO)].filter((f) =>
    /from "markdown-it"/.test(readFileSync(join(REPO, f), "utf8")),
  );
  expect(importers).toEqual(["src/render/ui/markdown.ts"]);
});

describe("45.11 the served chain", () => {
  let world: UiWorld;
  beforeAll(async () => {
    world = await uiWorld();
  }, 30_000);
  afterAll(async () => {
    await world?.[Symbol.asyncDispose]();
  });
  const get = async (path: string) => {
    const r = await fetch(`${world.origin}${path}`, { headers: { cookie: `tl_ui=${world.server.token}` } });
    return r.text();
  };

  test("45.11 a chain reads oldest first with text and tool calls interleaved", async () => {
    const body = await get(`/chain?s=${CONVERSATION_ID}`);
    const order = [
      "Why does the build fail?",
      "Let me run the build first.",
      "Bash: make -j4 → exit 2",
      "Let me read the Makefile.",
      "Read Makefile",
      "Dropping <code>-Werror</code>",
      "Edit Makefile",
      "Todo list: 1 of 3 done",
      "Bash: make -j4</span>",
      "<table>",
      "Thanks. Now run the tests.",
      "Bash: make test",
      "All 3 tests pass.",
    ].map((s) => body.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The edit opens to its diff, the todo list to a checklist.
    expect(body).toContain("<del>- CFLAGS = -O2 -Wall -Werror</del><ins>+ CFLAGS = -O2 -Wall</ins>");
    expect(body).toContain('<li class="todo-completed"><span class="box">☑</span> Fix CFLAGS</li>');
    // The old badges are gone.
    expect(body).not.toContain("no summary yet");
    expect(body).not.toContain('class="layer"');
  });

  test("45.11 chains are titled by their first prompt, or the client's title", async () => {
    const project = await get("/project?p=%2Fhome%2Fdev%2Fmake-demo");
    expect(project).toContain("Why does the build fail? Summarise the compiler flags in a table.");
    const sample = await get(`/chain?s=${SAMPLE_ID}`);
    expect(sample).toContain('<h1 class="chain-title">todo-api: due dates</h1>');
    expect(sample).toContain("<title>todo-api: due dates · throughline</title>");
  });
});

/** A transcript of `turns` turns: prompt i, then the assistant's `blocks(i)`. */
function transcript(id: string, turns: number, blocks: (i: number) => unknown[]): string {
  const lines: string[] = [];
  for (let i = 1; i <= turns; i++) {
    const ts = new Date(Date.UTC(2026, 11, 1, 10, i)).toISOString();
    const base = { sessionId: id, cwd: "/home/dev/long", timestamp: ts, isSidechain: false };
    lines.push(
      JSON.stringify({
        ...base,
        type: "user",
        uuid: `u${i}`,
        message: { role: "user", content: `prompt ${i}` },
      }),
    );
    for (const [k, b] of blocks(i).entries()) {
      const role = (b as { type: string }).type === "tool_result" ? "user" : "assistant";
      lines.push(
        JSON.stringify({
          ...base,
          type: role,
          uuid: `a${i}-${k}`,
          message: { id: `m${i}-${k}`, role, content: [b] },
        }),
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

test("45.11 a reply whose redaction changed its length keeps each call in its place", () => {
  const home = mkdtempSync(join(tmpdir(), "tl-redact-"));
  try {
    const id = "e0e0e0e0-0000-4000-8000-00000000000e";
    const secret = `ghp_${"a1B2".repeat(10)}`;
    writeFileSync(
      join(home, `${id}.jsonl`),
      transcript(id, 1, () => [
        { type: "text", text: `The token ${secret} leaked.` },
        { type: "tool_use", id: "t1", name: "Bash", input: { command: "git log" } },
        { type: "tool_result", tool_use_id: "t1", content: "ok" },
        { type: "text", text: "Rotated." },
      ]),
    );
    const db = join(home, "t.db");
    const w = openForWrite(db);
    replay(w, [join(home, `${id}.jsonl`)]);
    const r = w
      .query(
        `SELECT b.text, d.text_at FROM details d JOIN bodies b ON b.turn_id = d.turn_id AND b.role = 'assistant'
         WHERE d.kind = 'tool_input'`,
      )
      .get() as { text: string; text_at: number };
    w.close();
    expect(r.text).not.toContain(secret);
    expect(r.text.slice(0, r.text_at)).toBe("The token [REDACTED:github_token] leaked.");
    expect(r.text.slice(r.text_at).trim()).toBe("Rotated.");
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

describe("45.11 a long chain", () => {
  test("45.11 is paged oldest first, with a jump to the newest turn", async () => {
    const home = mkdtempSync(join(tmpdir(), "tl-long-"));
    try {
      const id = "d0d0d0d0-0000-4000-8000-00000000000d";
      writeFileSync(
        join(home, `${id}.jsonl`),
        transcript(id, 45, (i) => [{ type: "text", text: `reply ${i}` }]),
      );
      const db = join(home, "t.db");
      const w = openForWrite(db);
      replay(w, [join(home, `${id}.jsonl`)]);
      w.close();
      const s = await startUi({ dbPath: db, port: 0, configDir: home, invocation: "throughline" });
      try {
        const get = (p: string) =>
          fetch(`http://127.0.0.1:${s.port}${p}`, { headers: { cookie: `tl_ui=${s.token}` } }).then((r) =>
            r.text(),
          );
        const first = await get(`/chain?s=${id}`);
        expect(first).toContain("Turns 1–20 of 45, oldest first");
        expect(first.indexOf("prompt 1<")).toBeLessThan(first.indexOf("prompt 2<"));
        expect(first).not.toContain("prompt 21<");
        expect(first).toContain(`href="/chain?s=${id}&amp;page=3#newest"`);
        expect(first).toContain("later turns →");
        const last = await get(`/chain?s=${id}&page=3`);
        expect(last).toContain("prompt 45<");
        expect(last).toContain('id="newest"');
        expect(last).toContain("← earlier turns");
      } finally {
        await s.stop();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
