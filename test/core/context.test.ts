import { describe, expect, test } from "bun:test";
import { prng } from "../../harness/pull.ts";
import {
  type ContextInput,
  composeContext,
  measuredLength,
  nextOlderTurn,
  renderContext,
  truncationRoom,
  truncationSuffix,
} from "../../src/core/context.ts";
import { shellQuote } from "../../src/core/invocation.ts";
import { isControlCommand } from "../../src/core/push-header.ts";
import { cutChars, flatLine } from "../../src/core/text.ts";
import {
  type ChainTurn,
  CONTEXT_BUDGET,
  detailLabels,
  earlierNotes,
  MIN_TRUNCATED_ROOM,
  POSITION_CUT,
  renderTurnBlock,
  WINDOW_TURNS,
} from "../../src/core/turn-block.ts";

/** How most cases spell the invocation; the budget property test uses a long, quoted one. */
const CMD = "throughline";
const LONG_CMD = "/usr/lib/node_modules/bun/bin/bun.exe '/home/dev/My Projects/throughline/src/cli.ts'";

const ASCII = "the quick brown fox jumps over a lazy dog; fixed src/core/context.ts line 42 ";
const JAPANESE = "日本語のテキストです。境界を越えても壊れないこと。ひらがなカタカナ漢字";
const EMOJI = ["🎉", "✅", "🚀", "👩‍💻", "🇯🇵", "🧪"];

function randomText(rnd: () => number, length: number): string {
  let s = "";
  while (s.length < length) {
    const r = rnd();
    if (r < 0.5) s += ASCII.slice(0, 1 + Math.floor(rnd() * ASCII.length));
    else if (r < 0.75) s += JAPANESE.slice(0, 1 + Math.floor(rnd() * JAPANESE.length));
    else if (r < 0.9) s += EMOJI[Math.floor(rnd() * EMOJI.length)]!;
    else s += rnd() < 0.5 ? "\n" : "\n\n";
  }
  return cutChars(s, length);
}

/** The second half of a text, never starting inside a surrogate pair. */
function tailOf(text: string): string {
  return text.slice(cutChars(text, Math.floor(text.length / 2)).length);
}

/** Log-uniform between 10 and 50,000 characters: mostly short turns, some huge ones. */
const turnSize = (rnd: () => number) => Math.floor(10 * 5000 ** rnd());

function randomId(rnd: () => number): string {
  const len = rnd() < 0.1 ? 1 + Math.floor(rnd() * 3000) : 1 + Math.floor(rnd() * 80);
  const chars = [...(rnd() < 0.2 ? "abc def'\"$日本🎉-" : "abcdef0123456789-")];
  let id = "";
  while (id.length < len) id += chars[Math.floor(rnd() * chars.length)];
  return id;
}

function randomInput(rnd: () => number): ContextInput {
  const total = rnd() < 0.1 ? Math.floor(rnd() * 3) : Math.floor(rnd() * 60);
  const id = randomId(rnd);
  const origins = [id, randomId(rnd), randomId(rnd)];
  let t = Date.UTC(2026, 2, 1, 23, 0, 0) + Math.floor(rnd() * 1e9);
  const chain: ChainTurn[] = [];
  for (let i = 0; i < total; i++) {
    // Same-millisecond and same-second starts happen: merged chains, fast resumes.
    const r = rnd();
    t += r < 0.1 ? 0 : r < 0.2 ? Math.floor(rnd() * 1000) : Math.floor(rnd() * 3_600_000);
    const assistant = rnd() < 0.1 ? "" : randomText(rnd, turnSize(rnd));
    const final = assistant === "" ? null : rnd() < 0.5 ? assistant : tailOf(assistant) || null;
    chain.push({
      originSessionId: origins[Math.floor(rnd() * origins.length)]!,
      turnNumber: i + 1,
      startedAt: t,
      endedAt: t + Math.floor(rnd() * 600_000),
      user: randomText(rnd, turnSize(rnd)),
      assistant,
      finalText: final,
      details:
        rnd() < 0.5
          ? []
          : [
              { kind: "tool_input", toolName: "Bash", count: 1 + Math.floor(rnd() * 5) },
              { kind: "tool_output", toolName: "Bash", count: 2 },
              { kind: "thinking", toolName: null, count: 1 },
            ],
    });
  }
  const w = Math.min(WINDOW_TURNS, total);
  const window = chain.slice(total - w);
  return {
    sessionId: id,
    totalTurns: total,
    window,
    olderNewestStartedAt: total > w ? chain[total - w - 1]!.startedAt : null,
    olderSummarized: Math.floor(rnd() * (total - w + 1)),
    firstStartedAt: chain[0]?.startedAt ?? null,
    fallbackReply: null,
  };
}

/** What the generated inputs exercised, so the property test cannot pass vacuously. */
const seen = { empty: 0, all: 0, partial: 0, none: 0, truncated: 0, tie: 0, clamped: 0 };

/** Every property of docs/contract.md#the-push on one input. */
function checkProperties(input: ContextInput): void {
  const out = renderContext(input, LONG_CMD);
  const { text, stats } = out;
  const w = input.window;
  const p = stats.injected_turns;
  expect(text.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
  expect(stats.total_chars).toBe(text.length);
  expect(text.isWellFormed()).toBe(true);
  expect(stats.remaining_turns).toBe(w.length - p);
  expect(stats.older_turns).toBe(input.totalTurns - w.length);
  expect(out.turns.map((t) => t.startedAt)).toEqual(w.slice(w.length - p).map((t) => t.startedAt));

  // Boundary: start of the oldest pushed turn, strictly after every turn left out.
  if (w.length === 0) expect(stats.boundary).toBeNull();
  else {
    const boundary = Date.parse(stats.boundary!);
    if (p > 0) expect(boundary).toBe(w[w.length - p]!.startedAt);
    else expect(boundary).toBe(w[w.length - 1]!.startedAt + 1);
    for (const t of w.slice(0, w.length - p)) expect(t.startedAt).toBeLessThan(boundary);
    if (input.olderNewestStartedAt !== null) expect(input.olderNewestStartedAt).toBeLessThan(boundary);
  }

  if (w.length === 0) seen.empty++;
  else if (stats.truncated_newest) seen.truncated++;
  else if (p === w.length) seen.all++;
  else if (p === 0) seen.none++;
  else seen.partial++;
  if (text.length === CONTEXT_BUDGET && text.endsWith(" …") && !stats.truncated_newest) seen.clamped++;

  if (stats.truncated_newest) {
    // The one allowed split: the newest turn alone does not fit.
    expect(p).toBe(1);
    expect(composeContext(input, 1, LONG_CMD).length).toBeGreaterThan(CONTEXT_BUDGET);
    const suffix = truncationSuffix(w[w.length - 1]!, LONG_CMD);
    expect(text.endsWith(suffix)).toBe(true);
  } else {
    // Whole turns only.
    for (const t of w.slice(w.length - p)) expect(text.includes(renderTurnBlock(t, "push"))).toBe(true);
    // Maximal: the next-older window turn would not fit, unless it was dropped because it
    // starts in the same millisecond as the turn before it (pulls are strictly-before).
    const next = nextOlderTurn(input, p, LONG_CMD);
    if (next === "tie") seen.tie++;
    else if (next !== "none") expect(next).toBe("would_not_fit");
  }
  expect(out.pull.l2 === null).toBe(stats.remaining_turns === 0);
  expect(out.pull.l1 === null).toBe(stats.older_turns === 0);
}

describe("renderContext budget (property test over generated chains)", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    test(`seed ${seed}: 120 chains`, () => {
      const rnd = prng(seed);
      for (let i = 0; i < 120; i++) checkProperties(randomInput(rnd));
    });
  }
  test("the loop's measure of a candidate push is its joined length, for every plan it tries", () => {
    const rnd = prng(11);
    let plans = 0;
    for (let i = 0; i < 150; i++) {
      const input = randomInput(rnd);
      const cmd = rnd() < 0.5 ? CMD : LONG_CMD;
      const w = input.window;
      const moments = [
        undefined,
        { kind: "compaction" as const, since: w[w.length >> 1]?.startedAt ?? null },
      ];
      for (const moment of moments)
        for (let k = 0; k <= w.length; k++)
          for (const plan of [
            { pushed: k },
            { pushed: k, briefs: ["x"] },
            { pushed: k, briefs: ["one brief line", "another"] },
            ...(k === 1
              ? [
                  { pushed: 1, truncatedBlock: "" },
                  { pushed: 1, truncatedBlock: "cut 日本🎉" },
                ]
              : []),
          ]) {
            const { measured, joined } = measuredLength(input, cmd, plan, moment);
            expect(measured).toBe(joined);
            plans++;
          }
    }
    expect(plans).toBeGreaterThan(5000);
    // Thousands of joined renders: ~1.5 s idle, past bun's 5 s default on a loaded CI machine.
  }, 60_000);

  test("the generated chains covered every case", () => {
    for (const [k, n] of Object.entries(seen)) if (k !== "clamped") expect([k, n > 0]).toEqual([k, true]);
  });
});

function turn(i: number, startedAt: number, size = 100, origin = "sess-a"): ChainTurn {
  return {
    originSessionId: origin,
    turnNumber: i,
    startedAt,
    endedAt: startedAt + 5000,
    user: `prompt ${i} ${"u".repeat(size)}`,
    assistant: `reply ${i} ${"a".repeat(size)}`,
    finalText: `reply ${i} ${"a".repeat(size)}`,
    details: [],
  };
}

function inputOf(window: ChainTurn[], extra: Partial<ContextInput> = {}): ContextInput {
  return {
    sessionId: "sess-a",
    totalTurns: window.length,
    window,
    olderNewestStartedAt: null,
    olderSummarized: 0,
    firstStartedAt: window[0]?.startedAt ?? null,
    fallbackReply: null,
    ...extra,
  };
}

const T0 = Date.UTC(2026, 2, 1, 9, 0, 0);

describe("renderContext cases", () => {
  test("zero turns: no commands, no boundary, still a header and a guide", () => {
    const out = renderContext(inputOf([]), CMD);
    expect(out.stats).toEqual({
      total_chars: out.text.length,
      budget: CONTEXT_BUDGET,
      injected_turns: 0,
      remaining_turns: 0,
      older_turns: 0,
      older_summarized: 0,
      truncated_newest: false,
      boundary: null,
      brief_turns: 0,
    });
    expect(out.pull).toEqual({ l2: null, l1: null });
    expect(out.text).toContain("holds 0 turns");
    expect(out.text).toContain("- Window turns not shown below: none");
    expect(out.text).toContain("- Older turns: none");
  });

  test("fewer than 20 small turns: all pushed, nothing to pull", () => {
    const w = Array.from({ length: 7 }, (_, i) => turn(i + 1, T0 + i * 60_000));
    const out = renderContext(inputOf(w), CMD);
    expect(out.stats.injected_turns).toBe(7);
    expect(out.pull).toEqual({ l2: null, l1: null });
    expect(out.stats.boundary).toBe(new Date(T0).toISOString());
  });

  test("one giant turn: cut to the room left, with the detail pointer", () => {
    const w = [turn(1, T0, 50_000)];
    const out = renderContext(inputOf(w), CMD);
    expect(out.stats.truncated_newest).toBe(true);
    expect(out.stats.injected_turns).toBe(1);
    expect(out.text.length).toBe(CONTEXT_BUDGET);
    expect(out.text.endsWith(" …(truncated; full text: throughline detail 2026-03-01T09:00:00.000Z)")).toBe(
      true,
    );
    expect(out.pull).toEqual({ l2: null, l1: null });
  });

  test("no room for even a truncated turn (< 400 chars left): no turn pushed", () => {
    const w = [turn(1, T0 - 1000, 10), turn(2, T0, 50_000)];
    const roomWith = (id: string) => truncationRoom(inputOf(w, { sessionId: id }), CMD);
    let id = "";
    while (roomWith(id) >= MIN_TRUNCATED_ROOM) id += "x";
    // The id is baked three times (the --l2 pull, the newest turn's and the guide's detail line).
    expect(roomWith(id)).toBeLessThan(MIN_TRUNCATED_ROOM);
    expect(roomWith(id.slice(1))).toBeGreaterThanOrEqual(MIN_TRUNCATED_ROOM);
    const out = renderContext(inputOf(w, { sessionId: id }), CMD);
    expect(out.text.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
    expect(out.stats.truncated_newest).toBe(false);
    expect(out.stats.injected_turns).toBe(0);
    expect(out.pull.l2).toContain("--last 2");
    expect(out.stats.boundary).toBe(new Date(T0 + 1).toISOString());
    // One character shorter id and the newest turn is pushed, cut.
    const cut = renderContext(inputOf(w, { sessionId: id.slice(1) }), CMD);
    expect(cut.stats.truncated_newest).toBe(true);
    expect(cut.text.length).toBe(CONTEXT_BUDGET);
  });

  test("room whole turns leave goes to one-line briefs of the next-older window turns, never past the cap", () => {
    // An older turn too long to push whole, then two short ones: the long one gets a brief line.
    const w = [
      turn(1, T0, 200),
      turn(2, T0 + 60_000, 12_000),
      turn(3, T0 + 120_000, 100),
      turn(4, T0 + 180_000, 100),
    ];
    w[1]!.tools = [
      {
        tool: "Edit",
        path: "/home/dev/fixture/src/parse.ts",
        command: null,
        pattern: null,
        url: null,
        query: null,
        description: null,
        added: "function splitLines() {}",
        removed: null,
        isError: false,
        output: null,
      },
    ];
    w[1]!.project = "/home/dev/fixture";
    const out = renderContext(inputOf(w), CMD);
    expect(out.stats.injected_turns).toBe(2);
    expect(out.stats.brief_turns).toBe(2);
    expect(out.text.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
    const brief = out.text.split("## Earlier turns in brief")[1]!.split("## Recent turns")[0]!;
    expect(brief).toContain("[09:01:00] prompt 2 ");
    expect(brief).toContain("tools: edited src/parse.ts (splitLines)");
    expect(brief.indexOf("[09:00:00]")).toBeLessThan(brief.indexOf("[09:01:00]"));
    // The pulls are unchanged by the briefs: the --l2 command still fetches both turns in full.
    expect(out.pull.l2).toContain("--last 2");
  });

  test("pushed turn tied to the millisecond with an unpushed one is left out", () => {
    // Turn 2 is too big to fit next to turn 3; turn 3 starts in the same ms as turn 2.
    const w = [turn(1, T0 - 60_000), turn(2, T0, 6000), turn(3, T0, 1500)];
    const greedy = composeContext(inputOf(w), 1, CMD).length <= CONTEXT_BUDGET;
    expect(greedy).toBe(true);
    expect(composeContext(inputOf(w), 2, CMD).length).toBeGreaterThan(CONTEXT_BUDGET);
    const out = renderContext(inputOf(w), CMD);
    expect(out.stats.injected_turns).toBe(0);
    expect(out.stats.remaining_turns).toBe(3);
    expect(out.stats.boundary).toBe(new Date(T0 + 1).toISOString());
    expect(out.pull.l2).toContain("--last 3");
  });

  test("tie with the newest turn before the window also drops the oldest pushed", () => {
    const w = Array.from({ length: 20 }, (_, i) => turn(i + 2, T0 + i * 1000, 50));
    const out = renderContext(inputOf(w, { totalTurns: 21, olderNewestStartedAt: T0 }), CMD);
    expect(out.stats.injected_turns).toBe(19);
    expect(out.stats.boundary).toBe(new Date(T0 + 1000).toISOString());
    expect(out.pull.l2).toContain("--last 1");
    expect(out.pull.l1).toContain("--skip 1");
  });

  test("same second, different milliseconds: the boundary keeps them apart", () => {
    const w = [turn(1, T0 + 100, 6000), turn(2, T0 + 900, 1500)];
    const out = renderContext(inputOf(w), CMD);
    expect(out.stats.injected_turns).toBe(1);
    expect(out.stats.boundary).toBe("2026-03-01T09:00:00.900Z");
    expect(out.pull.l2).toBe(
      "throughline recall --l2 --session sess-a --before 2026-03-01T09:00:00.900Z --last 1",
    );
  });

  test("an id that needs quoting is quoted in the baked commands", () => {
    const w = [turn(1, T0, 6000), turn(2, T0 + 1000, 1500)];
    const out = renderContext(inputOf(w, { sessionId: "it's mine" }), CMD);
    expect(out.pull.l2).toContain(`--session 'it'\\''s mine' `);
  });

  test("absurd ids never break the cap", () => {
    const w = [turn(1, T0, 10), turn(2, T0 + 1000, 10)];
    const out = renderContext(inputOf(w, { sessionId: "z".repeat(20_000), totalTurns: 40 }), CMD);
    expect(out.text.length).toBeLessThanOrEqual(CONTEXT_BUDGET);
  });

  test("current position: newest prompt and newest reply, one line, cut to 600", () => {
    const long = `line one\n${"word ".repeat(400)}`;
    const w = [turn(1, T0), { ...turn(2, T0 + 1000), user: long, finalText: null, assistant: "" }];
    const out = renderContext(inputOf(w), CMD);
    const prompt = out.text.split("\n").find((l) => l.startsWith("Latest prompt"))!;
    expect(prompt).toStartWith("Latest prompt [09:00:01]: line one word word");
    expect(prompt.length - "Latest prompt [09:00:01]: ".length).toBeLessThanOrEqual(POSITION_CUT);
    expect(prompt.endsWith(" …")).toBe(true);
    // The newest turn has no reply: the newest reply of the chain is turn 1's; both turns are
    // pushed whole, so the position points at them instead of repeating them.
    expect(out.text).toContain("Latest reply [09:00:05]: in full below");
    // Not pushed whole (no room): the position carries the reply itself.
    const cramped = renderContext({ ...inputOf(w), sessionId: "x".repeat(6000) }, CMD);
    expect(cramped.stats.injected_turns).toBe(0);
    expect(cramped.text).toContain("Latest reply [09:00:05]: reply 1");
    expect(out.text).toContain("[09:00:06] [assistant]: (no reply)");
  });

  test("current position names the last real instruction, not a client control command", () => {
    const w = [
      turn(1, T0),
      {
        ...turn(2, T0 + 60_000),
        user: "/model",
        finalText: "Set model to opus",
        assistant: "Set model to opus",
      },
      { ...turn(3, T0 + 120_000), user: "/exit", finalText: null, assistant: "" },
    ];
    const out = renderContext(inputOf(w), CMD);
    expect(out.text).toContain("Latest prompt [09:00:00]: prompt 1 ");
    expect(out.text).toContain("Latest reply [09:00:05]: in full below");
    // The newest turn's detail command names the real instruction too, not `/exit`.
    expect(out.text).toContain(
      `Latest turn in full (its text, every tool call and output): \`${CMD} detail ${new Date(T0).toISOString()} --session sess-a\``,
    );
    // Still turns: pushed as they happened.
    expect(out.text).toContain("[09:02:00] [user]: /exit");
    // A slash command with arguments, or one of the user's own, is an instruction.
    for (const user of ["/compact keep the parser notes", "/review auth", "/init"]) {
      const own = renderContext(inputOf([...w, { ...turn(4, T0 + 180_000), user }]), CMD);
      expect(own.text).toContain(`Latest prompt [09:03:00]: ${user}`);
    }
  });

  test("a window of only control commands names the newest real prompt before it, never /exit", () => {
    const control = (i: number, user: string) => ({
      ...turn(i, T0 + i * 60_000),
      user,
      finalText: null,
      assistant: "",
    });
    const w = [control(21, "/clear"), control(22, "/model"), control(23, "/exit")];
    const older = { text: "ship the parser fix", at: T0 + 5 * 60_000 };
    const out = renderContext(inputOf(w, { totalTurns: 30, fallbackPrompt: older }), CMD);
    expect(out.text).toContain("Latest prompt [09:05:00]: ship the parser fix");
    expect(out.text).not.toContain("Latest prompt [09:23:00]: /exit");
    // Its turn is the one worth reading in full.
    expect(out.text).toContain(`\`${CMD} detail ${new Date(older.at).toISOString()} --session sess-a\``);
    // None anywhere in the chain: said so, and the detail command names the newest turn.
    const none = renderContext(inputOf(w), CMD);
    expect(none.text).toContain(
      "Latest prompt: (none: the chain holds only client control commands like /clear and /exit)",
    );
    expect(none.text).not.toMatch(/Latest prompt \[[^\]]*\]: \//);
    expect(none.text).toContain(
      `\`${CMD} detail ${new Date(T0 + 23 * 60_000).toISOString()} --session sess-a\``,
    );
  });

  test("isControlCommand: bare client commands only", () => {
    for (const c of [
      "/exit",
      "/clear",
      "/tl",
      "/model",
      "/compact",
      "/cost",
      "/status",
      "/help",
      "/config",
      "/resume",
    ])
      expect(isControlCommand(c)).toBe(true);
    for (const c of ["/exit now", "/review", "/init", "fix /exit handling", "/tl please", "!ls"])
      expect(isControlCommand(c)).toBe(false);
  });
});

describe("turn lines", () => {
  test("final text in the push, all text in full mode, details suffix", () => {
    const t: ChainTurn = {
      ...turn(1, T0),
      assistant: "Let me check.\n\nLooking at tests.\n\nDone: fixed it.",
      finalText: "Done: fixed it.",
      details: [
        { kind: "tool_input", toolName: "Bash", count: 3 },
        { kind: "tool_output", toolName: "Bash", count: 3 },
        { kind: "tool_input", toolName: "Edit", count: 1 },
        { kind: "thinking", toolName: null, count: 1 },
      ],
    };
    expect(renderTurnBlock(t, "push")).toBe(
      "[09:00:00] [user]: prompt 1 " +
        "u".repeat(100) +
        "\n[09:00:05] [assistant]: Done: fixed it. (details: 2 earlier notes, Bash ×3, Edit, thinking)",
    );
    expect(renderTurnBlock(t, "full")).toEndWith(
      "Let me check.\n\nLooking at tests.\n\nDone: fixed it. (details: Bash ×3, Edit, thinking)",
    );
  });

  const cases: [string, unknown, unknown][] = [
    ["earlierNotes none", earlierNotes("a", "a"), 0],
    ["earlierNotes null final", earlierNotes("a", null), 0],
    ["earlierNotes two", earlierNotes("x\n\ny\n\nz", "z"), 2],
    [
      "labels cap",
      detailLabels(
        [...Array(12)].map((_, i) => ({ kind: "tool_input", toolName: `T${i}`, count: 1 })),
        0,
      ).at(-1),
      "4 more",
    ],
    [
      "labels skip Claude Code's own attachments and hook output",
      detailLabels(
        [
          { kind: "attachment", toolName: "skill_listing", count: 2 },
          { kind: "hook", toolName: "hook_success", count: 1 },
          { kind: "tool_input", toolName: "Bash", count: 2 },
          { kind: "thinking", toolName: null, count: 1 },
        ],
        1,
      ),
      ["1 earlier note", "Bash ×2", "thinking"],
    ],
    ["oneLine", flatLine("a\n\n b\tc", 600), "a b c"],
    ["oneLine cut", flatLine("abcdefghij", 6), "abcd …"],
    ["cutChars surrogate", cutChars("ab🎉", 3), "ab"],
    ["shellQuote plain", shellQuote("0fae-12:ab"), "0fae-12:ab"],
    ["shellQuote space", shellQuote("a b"), "'a b'"],
    ["shellQuote empty", shellQuote(""), "''"],
  ];
  for (const [name, got, want] of cases) test(name, () => expect(got).toEqual(want));
});
