/** The web view's pure parts: the escape helper, highlighting, paging, the request guard, and goldens of two pages. */
import { describe, expect, test } from "bun:test";
import { conversationOf } from "../../src/core/conversation.ts";
import { MAX_PAGE, pageLinks, parsePage } from "../../src/core/paging.ts";
import { cookieValue, hostAllowed, judge, sameSecret, TOKEN_COOKIE } from "../../src/core/ui-guard.ts";
import { esc, highlight, href, html, raw } from "../../src/render/html.ts";
import { CHAIN_CUTS } from "../../src/render/ui/conversation.ts";
import { projectsPage, turnArticle } from "../../src/render/ui/views.ts";
import { expectGolden } from "../helpers/golden.ts";

describe("esc: the one escape helper", () => {
  test("markup, quotes and backticks become entities", () => {
    expect(esc(`<script>alert("1")</script>`)).toBe("&lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt;");
    expect(esc(`<img src=x onerror='a'>`)).toBe("&lt;img src=x onerror=&#39;a&#39;&gt;");
    expect(esc("a & b `c`")).toBe("a &amp; b &#96;c&#96;");
    expect(esc(null)).toBe("");
    expect(esc(42)).toBe("42");
  });

  test("bidi and other invisible controls become visible markers; tab and newline stay", () => {
    expect(esc("abc\u202Edef")).toBe("abc⟦U+202E⟧def");
    expect(esc("\u2066x\u2069\u200F\u061C")).toBe("⟦U+2066⟧x⟦U+2069⟧⟦U+200F⟧⟦U+061C⟧");
    expect(esc("zero\u200Bwidth\uFEFF")).toBe("zero⟦U+200B⟧width⟦U+FEFF⟧");
    expect(esc("bell\u0007 esc\u001b[31m")).toBe("bell⟦U+0007⟧ esc⟦U+001B⟧[31m");
    expect(esc("a\tb\nc")).toBe("a\tb\nc");
    expect(esc("naïve 日本語 😀")).toBe("naïve 日本語 😀");
  });

  test("html`` escapes every value unless it is already Html; arrays join", () => {
    const v = "<b>";
    expect(html`<p title="${v}">${v}${raw("<i>ok</i>")}${[v, html`<br>`]}</p>`.value).toBe(
      '<p title="&lt;b&gt;">&lt;b&gt;<i>ok</i>&lt;b&gt;<br></p>',
    );
    expect(html`${null}${undefined}${false}`.value).toBe("");
  });

  test("href encodes its values and drops empty ones", () => {
    expect(href("/project", { p: '/a b/"x"', page: 2, none: null })).toBe(
      "/project?p=%2Fa+b%2F%22x%22&page=2",
    );
    expect(html`<a href="${href("/x", { q: "javascript:alert(1)" })}">`.value).toBe(
      '<a href="/x?q=javascript%3Aalert%281%29">',
    );
  });

  test("highlight marks every term, case-insensitively, and escapes around and inside the marks", () => {
    expect(highlight("Due <date> and DUE", ["due", "<date>"]).value).toBe(
      "<mark>Due</mark> <mark>&lt;date&gt;</mark> and <mark>DUE</mark>",
    );
    expect(highlight("a.b a+b", ["a.b"]).value).toBe("<mark>a.b</mark> a+b");
    expect(highlight("x\u202Ey", []).value).toBe("x⟦U+202E⟧y");
  });
});

describe("paging", () => {
  test("a page number becomes LIMIT/OFFSET; anything else is page 1", () => {
    expect(parsePage(null)).toEqual({ number: 1, limit: 50, offset: 0 });
    expect(parsePage("3")).toEqual({ number: 3, limit: 50, offset: 100 });
    for (const bad of ["0", "-1", "2.5", "abc", "", "1e3", "9999999"]) expect(parsePage(bad).number).toBe(1);
    expect(parsePage("999999").number).toBe(MAX_PAGE);
    expect(parsePage("2", 20)).toEqual({ number: 2, limit: 20, offset: 20 });
  });

  test("links: prev past page 1, next when the extra row came back", () => {
    expect(pageLinks(parsePage("1"), 51)).toEqual({ prev: null, next: 2 });
    expect(pageLinks(parsePage("1"), 50)).toEqual({ prev: null, next: null });
    expect(pageLinks(parsePage("4"), 12)).toEqual({ prev: 3, next: null });
  });
});

describe("the request guard", () => {
  const token = "t0ken-abcdefghijklmnopqrstuvwxyz0123456789";
  const req = (
    path: string,
    host: string | null = "127.0.0.1:4000",
    cookie: string | null = null,
    method = "GET",
  ) => ({
    method,
    url: new URL(`http://127.0.0.1:4000${path}`),
    host,
    cookie,
  });

  test("Host: the loopback address with this port, nothing else", () => {
    expect(hostAllowed("127.0.0.1:4000", 4000)).toBe(true);
    expect(hostAllowed("localhost:4000", 4000)).toBe(true);
    expect(hostAllowed("LOCALHOST:4000", 4000)).toBe(true);
    for (const h of [
      null,
      "",
      "127.0.0.1",
      "127.0.0.1:4001",
      "evil.example:4000",
      "127.0.0.1.evil.example:4000",
      "0.0.0.0:4000",
      "127.0.0.2:4000",
    ])
      expect(hostAllowed(h, 4000)).toBe(false);
  });

  test("the token: once in the URL (adopted and dropped), then in the cookie", () => {
    expect(judge(req(`/chain?s=a&token=${token}&page=2`), token, 4000)).toEqual({
      kind: "adopt",
      location: "/chain?s=a&page=2",
    });
    expect(judge(req("/", "127.0.0.1:4000", `x=1; ${TOKEN_COOKIE}=${token}`), token, 4000)).toEqual({
      kind: "serve",
    });
    expect(judge(req("/"), token, 4000)).toMatchObject({ kind: "refuse", status: 401 });
    expect(judge(req("/?token=wrong"), token, 4000)).toMatchObject({ kind: "refuse", status: 403 });
    expect(judge(req("/", "127.0.0.1:4000", `${TOKEN_COOKIE}=wrong`), token, 4000)).toMatchObject({
      status: 403,
    });
    expect(judge(req(`/?token=${token}`, "evil.example:4000"), token, 4000)).toMatchObject({ status: 403 });
    expect(judge(req("/", "127.0.0.1:4000", `${TOKEN_COOKIE}=${token}`, "POST"), token, 4000)).toMatchObject({
      status: 405,
    });
  });

  test("cookie parsing and comparison", () => {
    expect(cookieValue("a=1; tl_ui=xyz ; b=2", "tl_ui")).toBe("xyz");
    expect(cookieValue("tl_uix=1", "tl_ui")).toBeNull();
    expect(cookieValue(null, "tl_ui")).toBeNull();
    expect(sameSecret("abc", "abc")).toBe(true);
    expect(sameSecret("abc", "abd")).toBe(false);
    expect(sameSecret("", "")).toBe(false);
    expect(sameSecret("abc", "abcd")).toBe(false);
  });
});

describe("rendered HTML (goldens)", () => {
  test("the projects page", () => {
    expectGolden(
      "ui/projects.html",
      projectsPage({
        rows: [
          {
            project: "/home/dev/todo-api",
            sessions: 2,
            chains: 1,
            turns: 12,
            chars: 48_210,
            last: Date.UTC(2026, 10, 30, 9, 20),
          },
          { project: null, sessions: 1, chains: 1, turns: 0, chars: 0, last: Date.UTC(2026, 10, 29) },
        ],
        page: 1,
        links: { prev: null, next: 2 },
      }),
    );
  });

  test("one turn, hostile text included", () => {
    expectGolden(
      "ui/turn.html",
      turnArticle(
        {
          id: 7,
          origin: "6f6f6f6f-0000-4000-8000-00000000bad1",
          number: 3,
          startedAt: Date.UTC(2026, 10, 30, 10, 0, 0),
          endedAt: Date.UTC(2026, 10, 30, 10, 0, 5),
          user: "<script>alert(1)</script> \u202Eevil",
          items: conversationOf("Let me look.\n\n[x](javascript:alert(1))", [
            {
              id: 1,
              kind: "tool_input",
              toolName: "Bash",
              toolUseId: "t1",
              input: '{"command":"ls <img src=x onerror=alert(1)>"}',
              output: null,
              isError: false,
              textAt: 12,
            },
            {
              id: 2,
              kind: "tool_output",
              toolName: "Bash",
              toolUseId: "t1",
              input: null,
              output: "Exit code 1\n<b>x</b>",
              isError: true,
              textAt: 12,
            },
          ]),
          summary: "Showed <img src=x onerror=alert(1)> as text",
          events: [],
          detailCommand: "throughline detail 2026-11-30T10:00:00.000Z",
        },
        "/home/dev/evil",
        { ...CHAIN_CUTS, whole: "/turn?id=7" },
      ).value,
    );
  });
});
