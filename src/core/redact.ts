/**
 * Secret redaction (SPEC §3). Every string is passed through `redact` before it reaches the
 * database. Each rule names its kind; the replacement is `[REDACTED:<kind>]`. The list is
 * documented in docs/redaction.md: keep the two in step.
 */

interface Rule {
  kind: string;
  /** Cheap substring test that must hold before the regex runs (most text holds no secret). */
  hint: RegExp;
  re: RegExp;
  /** Index of the group holding the secret value; the rest of the match is kept. 0 = whole match. */
  group: number;
}

const rules: Rule[] = [
  {
    kind: "private_key",
    hint: /PRIVATE KEY-----/,
    re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    group: 0,
  },
  { kind: "anthropic_key", hint: /sk-ant-/, re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, group: 0 },
  { kind: "openai_key", hint: /sk-/, re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g, group: 0 },
  { kind: "aws_access_key", hint: /A[KS]IA/, re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, group: 0 },
  {
    kind: "aws_secret_key",
    hint: /aws_secret|AWS_SECRET|SecretAccessKey/i,
    re: /((?:aws_secret_access_key|SecretAccessKey)["']?\s*[=:]\s*["']?)([A-Za-z0-9/+=]{40})/gi,
    group: 2,
  },
  {
    kind: "github_token",
    hint: /gh[pousr]_|github_pat_/,
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    group: 0,
  },
  { kind: "gitlab_token", hint: /glpat-/, re: /\bglpat-[A-Za-z0-9_-]{20,}/g, group: 0 },
  { kind: "slack_token", hint: /xox[abprs]-/, re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, group: 0 },
  {
    kind: "slack_webhook",
    hint: /hooks\.slack\.com/,
    re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g,
    group: 0,
  },
  {
    kind: "stripe_key",
    hint: /_(?:live|test)_/,
    re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
    group: 0,
  },
  { kind: "google_api_key", hint: /AIza/, re: /\bAIza[0-9A-Za-z_-]{35}/g, group: 0 },
  { kind: "npm_token", hint: /npm_/, re: /\bnpm_[A-Za-z0-9]{36}\b/g, group: 0 },
  { kind: "sendgrid_key", hint: /SG\./, re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g, group: 0 },
  { kind: "huggingface_token", hint: /hf_/, re: /\bhf_[A-Za-z0-9]{30,}\b/g, group: 0 },
  { kind: "digitalocean_token", hint: /do[por]_v1_/, re: /\bdo[por]_v1_[a-f0-9]{64}\b/g, group: 0 },
  { kind: "azure_storage_key", hint: /AccountKey=/, re: /(AccountKey=)([A-Za-z0-9+/=]{40,})/g, group: 2 },
  {
    kind: "jwt",
    hint: /eyJ/,
    re: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
    group: 0,
  },
  { kind: "bearer_token", hint: /[Bb]earer/, re: /(\b[Bb]earer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g, group: 2 },
  {
    kind: "connection_string",
    hint: /:\/\//,
    re: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'`]+:)([^\s@"'`/]+)(@)/gi,
    group: 2,
  },
  {
    kind: "env_secret",
    hint: /(?:PASS|SECRET|TOKEN|KEY|pass|secret|token|key)/,
    // env-file style (`KEY=value`, no spaces around `=`), also inside a JSON-escaped file body.
    re: /((?:^|\\n|[\s"';])(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*(?:PASSWORD|PASSWD|PASS|SECRET|TOKEN|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|AUTH_KEY)[A-Za-z0-9_]*=["']?)([^\s"'#\\]{4,})/gim,
    group: 2,
  },
  {
    kind: "json_secret",
    hint: /(?:pass|secret|token|key)/i,
    re: /("(?:password|passwd|secret|client_secret|api_key|apiKey|access_token|refresh_token|auth_token|private_key)"\s*:\s*")([^"\s]{4,})(")/g,
    group: 2,
  },
];

/** Replace every secret shape in `text` by `[REDACTED:<kind>]`. */
export function redact(text: string): string {
  let out = text;
  for (const rule of rules) {
    if (!rule.hint.test(out)) continue;
    out = out.replace(rule.re, (match: string, ...groups: unknown[]) => {
      if (match.includes("[REDACTED:")) return match;
      const marker = `[REDACTED:${rule.kind}]`;
      if (rule.group === 0) return marker;
      // The callback receives the captures, then the match offset (the first number).
      const parts = groups.slice(
        0,
        groups.findIndex((g) => typeof g === "number"),
      ) as (string | undefined)[];
      return parts.map((p, i) => (i + 1 === rule.group ? marker : (p ?? ""))).join("");
    });
  }
  return out;
}

export function redactNullable(text: string | null): string | null {
  return text === null ? null : redact(text);
}

export const REDACTION_KINDS = rules.map((r) => r.kind);
