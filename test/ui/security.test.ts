/**
 * The web view's guard over real HTTP (docs/ui.md, "Security"): the token, the Host check
 * (DNS rebinding), the loopback-only socket, and the headers of every answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { type UiWorld, uiWorld } from "../helpers/ui.ts";

let world: UiWorld;
beforeAll(async () => {
  world = await uiWorld();
});
afterAll(async () => {
  await world?.[Symbol.asyncDispose]();
});

/** A GET with exactly these headers (node:http lets a test send any Host). */
function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: world.server.port,
        path,
        method: "GET",
        headers: { host: `127.0.0.1:${world.server.port}`, ...headers },
      },
      (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const cookie = () => `tl_ui=${world.server.token}`;

describe("the token", () => {
  test("no token: 401, and no page", async () => {
    const r = await get("/");
    expect(r.status).toBe(401);
    expect(r.body).not.toContain("<html");
    expect((await get("/assets/app.js")).status).toBe(401);
  });

  test("a wrong token, in the URL or the cookie: 403", async () => {
    expect((await get("/?token=nope")).status).toBe(403);
    expect((await get(`/?token=${world.server.token.slice(1)}x`)).status).toBe(403);
    expect((await get("/", { cookie: "tl_ui=nope" })).status).toBe(403);
  });

  test("the right token: a cookie (HttpOnly, SameSite=Strict) and a redirect to the address without it", async () => {
    const r = await get(`/chain?s=x&token=${world.server.token}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe("/chain?s=x");
    const set = String(r.headers["set-cookie"]);
    expect(set).toContain(`tl_ui=${world.server.token}`);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Strict");
    const page = await get("/", { cookie: cookie() });
    expect(page.status).toBe(200);
    expect(page.body).toContain("/home/dev/todo-api");
  });

  test("only GET: a POST is refused even with the token", async () => {
    const r = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: world.server.port,
          path: "/",
          method: "POST",
          headers: { host: `127.0.0.1:${world.server.port}`, cookie: cookie() },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end("x");
    });
    expect(r).toBe(405);
  });
});

describe("the Host header (DNS rebinding)", () => {
  test("any name but the loopback address and this port is refused, token or not", async () => {
    const port = world.server.port;
    for (const host of [
      "evil.example",
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
      `0.0.0.0:${port}`,
    ])
      expect((await get("/", { host, cookie: cookie() })).status).toBe(403);
    expect((await get(`/?token=${world.server.token}`, { host: `rebind.example:${port}` })).status).toBe(403);
    expect((await get("/", { host: `localhost:${port}`, cookie: cookie() })).status).toBe(200);
  });
});

describe("the socket", () => {
  test("it listens on 127.0.0.1 only (the kernel's table of listening sockets)", () => {
    if (!existsSync("/proc/net/tcp"))
      return console.warn("no /proc/net/tcp here: bound-address check skipped");
    const hex = world.server.port.toString(16).toUpperCase().padStart(4, "0");
    const listening = [
      readFileSync("/proc/net/tcp", "utf8"),
      existsSync("/proc/net/tcp6") ? readFileSync("/proc/net/tcp6", "utf8") : "",
    ]
      .join("\n")
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f[1]?.endsWith(`:${hex}`) && f[3] === "0A")
      .map((f) => f[1]!.split(":")[0]);
    expect(listening).toEqual(["0100007F"]);
  });

  test("not reachable on a non-loopback address of this machine", async () => {
    const { networkInterfaces } = await import("node:os");
    const addr = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
    if (!addr)
      return console.warn("this machine has no non-loopback IPv4 address: reachability check skipped");
    // The machine's own address: the kernel delivers it locally, no packet leaves the machine.
    const { connect } = await import("node:net");
    const outcome = await new Promise<string>((resolve) => {
      const s = connect({ host: addr, port: world.server.port, timeout: 2000 });
      s.on("connect", () => {
        s.destroy();
        resolve("connected");
      });
      s.on("timeout", () => {
        s.destroy();
        resolve("timeout");
      });
      s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    });
    expect(outcome).not.toBe("connected");
  });
});

describe("headers", () => {
  test("every answer carries the CSP and friends and no CORS header", async () => {
    for (const [path, headers] of [
      ["/", { cookie: cookie() }],
      ["/", {}],
      ["/assets/style.css", { cookie: cookie() }],
      ["/nowhere", { cookie: cookie() }],
    ] as const) {
      const r = await get(path, headers);
      const csp = String(r.headers["content-security-policy"]);
      for (const part of [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "frame-ancestors 'none'",
      ])
        expect(csp).toContain(part);
      expect(csp).not.toContain("unsafe-inline");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(r.headers["referrer-policy"]).toBe("no-referrer");
      expect(Object.keys(r.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    }
  });

  test("pages hold no inline script or style and load nothing from outside", async () => {
    const r = await get("/chain?s=6f6f6f6f-0000-4000-8000-00000000bad1", { cookie: cookie() });
    expect(r.status).toBe(200);
    const tags = [...r.body.matchAll(/<(script|style|link|img|iframe)\b[^>]*>/g)].map((m) => m[0]);
    expect(tags).toEqual([
      '<link rel="icon" href="data:,">',
      '<link rel="stylesheet" href="/assets/style.css">',
      '<script src="/assets/app.js" defer>',
    ]);
    // Every tag on the page is ours (escaped text holds no `<`): none has an event handler.
    const handlers = [...r.body.matchAll(/<[a-z][^>]*>/gi)].filter((m) => /\son[a-z]+\s*=/i.test(m[0]));
    expect(handlers).toEqual([]);
    expect(r.body).not.toContain("\u202e");
  });

  test("an unknown session is a page with one line, not a stack trace", async () => {
    const r = await get("/chain?s=nope", { cookie: cookie() });
    expect(r.status).toBe(404);
    expect(r.body).toContain("no session nope in this database");
    expect(r.body).not.toContain("    at ");
  });
});
