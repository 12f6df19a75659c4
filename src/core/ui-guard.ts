/**
 * The web view's request checks (docs/ui.md, "Security"): pure, so each rule is tested on its
 * own. The server (src/commands/_ui-server.ts) applies them to every request, in this order:
 * Host, then the token (query once, then cookie).
 */

/** The cookie that carries the token after the first request. */
export const TOKEN_COOKIE = "tl_ui";

/**
 * True when a request's Host header names this server's loopback address and port exactly
 * (`127.0.0.1:<port>` or `localhost:<port>`): any other name is a DNS-rebinding page or a
 * proxy, and is refused.
 */
export function hostAllowed(host: string | null, port: number): boolean {
  if (host === null) return false;
  const h = host.trim().toLowerCase();
  return h === `127.0.0.1:${port}` || h === `localhost:${port}` || h === `[::1]:${port}`;
}

/** Compare two strings in time that depends on their length only. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** One cookie's value from a Cookie header; null when absent. */
export function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export type Verdict =
  | { kind: "refuse"; status: 400 | 401 | 403 | 405; reason: string }
  | { kind: "adopt"; location: string }
  | { kind: "serve" };

/**
 * What to do with a request: refuse it, adopt the token from the URL (set the cookie and
 * redirect to the same address without it), or serve it.
 */
export function judge(
  req: { method: string; url: URL; host: string | null; cookie: string | null },
  token: string,
  port: number,
): Verdict {
  if (!hostAllowed(req.host, port))
    return { kind: "refuse", status: 403, reason: "this server answers only to its loopback address" };
  if (req.method !== "GET" && req.method !== "HEAD")
    return { kind: "refuse", status: 405, reason: "read-only: GET only" };
  const given = req.url.searchParams.get("token");
  if (given !== null) {
    if (!sameSecret(given, token)) return { kind: "refuse", status: 403, reason: "wrong token" };
    const rest = new URLSearchParams(req.url.searchParams);
    rest.delete("token");
    const q = rest.toString();
    return { kind: "adopt", location: `${req.url.pathname}${q ? `?${q}` : ""}` };
  }
  const cookie = cookieValue(req.cookie, TOKEN_COOKIE);
  if (cookie === null)
    return {
      kind: "refuse",
      status: 401,
      reason: "open the address `throughline ui` printed (it holds the token)",
    };
  if (!sameSecret(cookie, token)) return { kind: "refuse", status: 403, reason: "wrong token" };
  return { kind: "serve" };
}

/** Headers on every answer, refusals included. No CORS header is ever sent. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

/** The Set-Cookie value that keeps the token for this browser session. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}
