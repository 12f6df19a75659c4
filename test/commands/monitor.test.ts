/**
 * `throughline monitor` on fixture transcripts (test/fixtures/monitor): real usage taken once
 * per response, the window rules, idle hiding, scopes, width cuts with colours kept balanced,
 * incremental reads, and the live view under tmux (resized mid-run, frames never stacked).
 */
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  cpSync,
  existsSync,
  readFileSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { FIXTURES, REPO, tempDir } from "../../harness/db.ts";
import { shiftTimestamps } from "../../harness/transcript.ts";
import { TranscriptWatcher } from "../../src/capture/transcript-watch.ts";
import { buildView } from "../../src/commands/_monitor-watch.ts";
import { detectWindow, emptyUsage, feedUsage, formatAge, formatTokens } from "../../src/core/usage.ts";
import { cutToWidth, visibleWidth } from "../../src/render/ansi.ts";
import { colorsFor } from "../../src/render/colors.ts";
import { monitorJson, renderMonitor } from "../../src/render/monitor.ts";
import { expectGolden } from "../helpers/golden.ts";

const NOW = Date.parse("2026-03-01T09:15:00.000Z");
const SRC = join(FIXTURES, "monitor");
const AGES = JSON.parse(readFileSync(join(SRC, "ages.json"), "utf8")) as Record<string, number>;
const CLI = join(REPO, "src", "cli.ts");
const A1 = "a1a1a1a1-0000-4000-8000-000000000001";

/**
 * The fixture projects in a temp CLAUDE_CONFIG_DIR, each session last active as long ago as
 * ages.json says at `now`: its transcript's times moved there, and the file written then.
 */
function world(now = NOW) {
  const dir = tempDir("tl-monitor-");
  cpSync(join(SRC, "projects"), join(dir.path, "projects"), { recursive: true });
  for (const [id, age] of Object.entries(AGES)) {
    const path = transcript(dir.path, id);
    const t = new Date(now - age * 1000);
    writeFileSync(path, shiftTimestamps(readFileSync(path, "utf8"), t.getTime()));
    utimesSync(path, t, t);
  }
  return dir;
}

function transcript(config: string, id: string): string {
  const project = id.startsWith("a")
    ? "-work-alpha"
    : id.startsWith("b")
      ? "-work-beta-project"
      : "-work-gamma";
  return join(config, "projects", project, `${id}.jsonl`);
}

function view(config: string, args: Parameters<typeof buildView>[1], cwd = "/work/alpha") {
  return buildView(new TranscriptWatcher(config), args, NOW, cwd);
}

const PLAIN = colorsFor({ NO_COLOR: "1" }, false);
const COLOR = colorsFor({ FORCE_COLOR: "1" }, true);
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is checked.
const SGR = /\x1b\[(\d+)m/g;

/** Opened colours/styles minus closed ones, per close code (picocolors closes with 39 and 22). */
function balance(text: string): { fg: number; weight: number } {
  let fg = 0;
  let weight = 0;
  for (const m of text.matchAll(SGR)) {
    const n = Number(m[1]);
    if (n >= 30 && n <= 37) fg++;
    else if (n === 39) fg--;
    else if (n === 1 || n === 2) weight++;
    else if (n === 22) weight--;
  }
  return { fg, weight };
}

describe("usage from transcripts", () => {
  test("the newest response, each taken once; subagent and synthetic lines ignored", () => {
    const s = emptyUsage();
    feedUsage(s, readFileSync(transcript(SRC, A1)));
    expect(s.used).toBe(12 + 3000 + 120000);
    expect(s.responses).toBe(2); // msg_01 and msg_02, though msg_02 spans three lines
    expect(s.output).toBe(812); // the final count of the streamed response
    expect(s.model).toBe("claude-opus-4-6");
    expect(s.peak).toBe(123012); // the 190k subagent context is not this session's
    expect(s.cwd).toBe("/work/alpha");
  });

  test("the window: [1m] suffix, 1M context name, observed past 200k, reported, else 200k", () => {
    expect(detectWindow({ model: "claude-opus-4-6[1m]" })).toEqual({
      size: 1_000_000,
      reason: "model_suffix",
    });
    expect(detectWindow({ model: "claude-opus-4-8", displayName: "Opus 4.8 (1M context)" })).toEqual({
      size: 1_000_000,
      reason: "display_name",
    });
    expect(detectWindow({ model: "claude-sonnet-4-5", peak: 200_001 })).toEqual({
      size: 1_000_000,
      reason: "observed",
    });
    expect(detectWindow({ model: "claude-sonnet-4-5", peak: 200_000 })).toEqual({
      size: 200_000,
      reason: "default",
    });
    expect(detectWindow({ reported: 200_000, peak: 10 })).toEqual({ size: 200_000, reason: "payload" });
    expect(detectWindow({ reported: 200_000, peak: 250_000 }).size).toBe(1_000_000);
  });

  test("numbers and ages as the rows print them", () => {
    expect([formatTokens(950), formatTokens(123012), formatTokens(40_003), formatTokens(1_000_000)]).toEqual([
      "950",
      "123k",
      "40k",
      "1M",
    ]);
    expect([formatAge(5000), formatAge(24 * 60_000 + 5000), formatAge(3 * 3_600_000)]).toEqual([
      "just now",
      "24m ago",
      "3h ago",
    ]);
  });

  test("an unterminated last line waits for its end; a rewritten (shorter) file is read again", () => {
    using dir = world();
    const path = transcript(dir.path, A1);
    const w = new TranscriptWatcher(dir.path);
    expect(w.frame({ project: null, session: "a1", idleMinutes: 15 }, NOW).rows[0]!.used).toBe(123012);
    const line = JSON.stringify({
      type: "assistant",
      sessionId: A1,
      timestamp: "2026-03-01T09:14:00.000Z",
      requestId: "req_03",
      message: {
        id: "msg_03",
        model: "claude-opus-4-6",
        usage: { input_tokens: 1, cache_read_input_tokens: 150000 },
      },
    });
    appendFileSync(path, line.slice(0, 40));
    expect(w.frame({ project: null, session: "a1", idleMinutes: 15 }, NOW).rows[0]!.used).toBe(123012);
    appendFileSync(path, `${line.slice(40)}\n`);
    expect(w.frame({ project: null, session: "a1", idleMinutes: 15 }, NOW).rows[0]!.used).toBe(150001);
    truncateSync(path, 0);
    writeFileSync(path, `${line}\n`);
    const row = w.frame({ project: null, session: "a1", idleMinutes: 15 }, NOW).rows[0]!;
    expect([row.used, row.responses]).toEqual([150001, 1]);
  });

  test("a 20 MB transcript is read once; later frames read only what was appended", () => {
    using dir = world();
    const path = transcript(dir.path, A1);
    const filler = JSON.stringify({
      type: "user",
      timestamp: "2026-03-01T09:10:00.000Z",
      message: { role: "user", content: [{ type: "tool_result", content: "x".repeat(100_000) }] },
    });
    const big = `${`${filler}\n`.repeat(200)}`;
    appendFileSync(path, big);
    const size = Bun.file(path).size;
    expect(size).toBeGreaterThan(20_000_000);
    const w = new TranscriptWatcher(dir.path);
    const sel = { project: null, session: "a1", idleMinutes: 15 };
    w.frame(sel, NOW);
    // Chunks end mid-line and the cut line is read again with the next chunk: a few percent more.
    expect(w.bytesRead).toBeGreaterThanOrEqual(size);
    expect(w.bytesRead).toBeLessThan(size * 1.05);
    const first = w.bytesRead;
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) w.frame(sel, NOW);
    expect(w.bytesRead).toBe(first);
    expect(performance.now() - t0).toBeLessThan(200);
    const more = `${JSON.stringify({ type: "assistant", requestId: "r9", message: { id: "m9", usage: { input_tokens: 7 } } })}\n`;
    appendFileSync(path, more);
    expect(w.frame(sel, NOW).rows[0]!.used).toBe(7);
    expect(w.bytesRead).toBe(first + Buffer.byteLength(more));
  });
});

describe("monitor frames", () => {
  test("default view: the current project, newest first, idle sessions hidden", () => {
    using dir = world();
    const v = view(dir.path, {});
    expect(v.rows.map((r) => r.sessionId.slice(0, 2))).toEqual(["a1", "a3", "a2"]);
    expect(v.idleHidden).toBe(1);
    expect(v.rows.map((r) => [r.used, r.window, r.windowReason])).toEqual([
      [123012, 200_000, "default"],
      [40003, 1_000_000, "observed"],
      [50004, 1_000_000, "model_suffix"],
    ]);
    expectGolden("monitor/alpha-80.txt", renderMonitor(v, 80, PLAIN));
    expectGolden(
      "monitor/alpha.json",
      JSON.stringify(monitorJson(v), null, 2).replaceAll(dir.path, "$CLAUDE_CONFIG_DIR"),
    );
  });

  test("45.9 monitor: a month-old transcript copied just now is idle; its age is the transcript's", () => {
    using dir = world();
    // a2 was last active a month ago; its file was copied a second ago.
    const a2 = transcript(dir.path, "a2a2a2a2-0000-4000-8000-000000000002");
    const monthAgo = NOW - 30 * 86_400_000;
    writeFileSync(a2, shiftTimestamps(readFileSync(a2, "utf8"), monthAgo));
    utimesSync(a2, new Date(NOW - 1000), new Date(NOW - 1000));
    const v = view(dir.path, {});
    expect(v.rows.map((r) => r.sessionId.slice(0, 2))).toEqual(["a1", "a3"]);
    expect(v.idleHidden).toBe(2);
    const one = view(dir.path, { session: "a2a2" });
    expect(one.rows[0]!.lastActivity).toBe(monthAgo);
    expect(renderMonitor(one, 80, PLAIN)).toContain("30d ago");
    expect(monitorJson(one).sessions).toMatchObject([{ last_activity: new Date(monthAgo).toISOString() }]);
  });

  test("from a subdirectory the project is its nearest ancestor with transcripts", () => {
    using dir = world();
    expect(view(dir.path, {}, "/work/alpha/src/deep").scopeLabel).toBe("/work/alpha");
    expect(view(dir.path, {}, "/elsewhere").rows).toEqual([]);
  });

  test("--all: every project; --session: one session, idle or not", () => {
    using dir = world();
    const all = view(dir.path, { all: true });
    expect(all.rows.map((r) => r.sessionId.slice(0, 2))).toEqual(["a1", "b1", "c1", "a3", "a2"]);
    expect(all.idleHidden).toBe(1);
    for (const width of [40, 80, 200])
      expectGolden(`monitor/all-${width}.txt`, renderMonitor(all, width, PLAIN));
    const one = view(dir.path, { session: "a4a4" });
    expect(one.rows.map((r) => r.sessionId)).toEqual(["a4a4a4a4-0000-4000-8000-000000000004"]);
    expectGolden("monitor/session-a4.txt", renderMonitor(one, 80, PLAIN));
    expect(view(dir.path, { all: true, idle: "180" }).rows).toHaveLength(6);
  });

  test("every line is cut to the width, colours kept balanced", () => {
    using dir = world();
    const all = view(dir.path, { all: true });
    for (const width of [40, 80, 200]) {
      const text = renderMonitor(all, width, COLOR);
      expectGolden(`monitor/all-${width}.ansi.txt`, text);
      for (const line of text.split("\n")) {
        expect(visibleWidth(line)).toBeLessThanOrEqual(width);
        expect(balance(line)).toEqual({ fg: 0, weight: 0 });
        expect(line.replace(SGR, "")).not.toContain("\x1b");
      }
    }
    expect(cutToWidth("\x1b[31m日本語\x1b[39m", 3)).toBe("\x1b[31m日\x1b[39m");
    expect(cutToWidth("ab\x1b]8;;https://x\x07link\x1b]8;;\x07", 4)).toBe(
      "ab\x1b]8;;https://x\x07li\x1b]8;;\x07",
    );
  });

  test("the command: --once prints one frame without colour off a terminal; --json; never a database", () => {
    using dir = world(Date.now());
    const env = {
      PATH: process.env.PATH,
      HOME: dir.path,
      CLAUDE_CONFIG_DIR: dir.path,
      THROUGHLINE_HOME: join(dir.path, "tl"),
    };
    const once = Bun.spawnSync([process.execPath, CLI, "monitor", "--once", "--all", "--width", "60"], {
      env,
      cwd: dir.path,
    });
    const text = once.stdout.toString();
    expect(once.exitCode).toBe(0);
    expect(text).toContain("throughline monitor · 5 live sessions in every project");
    expect(text).not.toContain("\x1b");
    for (const l of text.trimEnd().split("\n")) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    const json = Bun.spawnSync([process.execPath, CLI, "monitor", "--json", "--session", "b1"], {
      env,
      cwd: dir.path,
    });
    const doc = JSON.parse(json.stdout.toString());
    expect(doc.schema).toBe("throughline.monitor.v1");
    expect(doc.sessions[0]).toMatchObject({
      used_tokens: 180001,
      window_tokens: 200_000,
      percent: 90,
      newest: true,
    });
    expect(existsSync(join(dir.path, "tl"))).toBe(false);
  });
});

const HAS_TMUX = Bun.which("tmux") !== null && process.env.THROUGHLINE_SKIP_TUI !== "1";

describe.skipIf(!HAS_TMUX)("monitor live view in tmux", () => {
  test("redraws in place: one frame on screen, cut to the width, through a resize", async () => {
    using dir = world(Date.now());
    const sock = join(dir.path, "tmux.sock");
    const tmux = (...args: string[]) => {
      const r = Bun.spawnSync(["tmux", "-S", sock, ...args], { stdout: "pipe", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr.toString()}`);
      return r.stdout.toString();
    };
    const cmd = `env CLAUDE_CONFIG_DIR=${dir.path} HOME=${dir.path} TERM=xterm-256color ${process.execPath} ${CLI} monitor --all --interval 150`;
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "m", "-x", "120", "-y", "20", cmd);
    const screen = () => tmux("capture-pane", "-p", "-t", "m");
    const waitFor = async (pred: (s: string) => boolean, what: string) => {
      for (let i = 0; i < 100; i++) {
        const s = screen();
        if (pred(s)) return s;
        await Bun.sleep(50);
      }
      throw new Error(`timed out waiting for ${what}:\n${screen()}`);
    };
    try {
      const first = await waitFor((s) => s.includes("throughline monitor"), "the first frame");
      expect(first.match(/throughline monitor/g)).toHaveLength(1);
      expect(first).toContain("claude-opus-4-6[1m]");
      tmux("resize-window", "-t", "m", "-x", "44", "-y", "20");
      const narrow = await waitFor(
        (s) =>
          s.includes("throughline monitor") &&
          s.split("\n").every((l) => visibleWidth(l) < 44) &&
          !s.includes("claude-opus"),
        "a frame at the new width",
      );
      // A few frames later: still one frame, nothing stacked or wrapped.
      await Bun.sleep(500);
      const later = screen();
      for (const s of [narrow, later]) {
        expect(s.match(/throughline monitor/g)).toHaveLength(1);
        expect(s.match(/▶/g)).toHaveLength(1);
        for (const l of s.split("\n")) expect({ l, w: visibleWidth(l) < 44 }).toEqual({ l, w: true });
      }
      tmux("resize-window", "-t", "m", "-x", "160", "-y", "20");
      const wide = await waitFor(
        (s) => s.includes("claude-sonnet-4-5-20250929"),
        "a frame at the wider width",
      );
      expect(wide.match(/throughline monitor/g)).toHaveLength(1);
      tmux("send-keys", "-t", "m", "C-c");
    } finally {
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    }
  }, 30_000);
});
