/**
 * The redaction catalogue, as data: one rule per kind of secret, with the literal hints one of
 * which every match contains, its pattern, the group replaced and what is kept. The engine that
 * finds the hints and applies the rules is src/core/redact.ts; the list is documented in
 * docs/redaction.md, and test/capture/redaction.test.ts fails for a kind without a fixture: keep
 * the three in step.
 */

export interface Rule {
  kind: string;
  /** Literal substrings, case-sensitive, one of which every match of `re` contains. */
  hints: readonly string[];
  /**
   * The pattern, behind a function: a cold process then links only the patterns whose hints
   * occur, not all of them at import (docs/benchmarks.md).
   */
  re: () => RegExp;
  /** Index of the group holding the secret value; the other groups are kept. 0 = whole match. */
  group: number;
  /** Values that fit the shape but are not secrets (a path, a variable reference) stay. */
  keep?: (value: string) => boolean;
  /** Extra check on the text left of a match starting at `offset` (cheaper than a regex prefix). */
  at?: (text: string, offset: number) => boolean;
}

/** Case variants of a context word, for hints (the scan itself is case-sensitive). */
const cased = (...words: string[]): string[] =>
  words.flatMap((w) => [w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1)]);

/**
 * Shapes whose prefix is short or is plain letters could start inside a longer base64 run (an
 * image, a hash): these must not touch a base64 or token character on either side.
 */
const NB = "(?<![A-Za-z0-9+/=_-])";
const NA = "(?![A-Za-z0-9+/=_-])";

/** A value that is a filesystem path or a reference to another variable names no secret. */
const PATH_OR_REF =
  /^(?:\$|%[A-Za-z_]|~\/|\.{1,2}\/|\/(?:home|Users|etc|var|usr|tmp|opt|run|srv|mnt|root|private|Library|data|app|workspace|work|dev|proc|sys|bin|lib|nix|snap)\/)/;
/** Stand-ins people write where a secret would go, or a value already redacted upstream. */
const PLACEHOLDER = /^(?:\[|<|\*{3}|your[-_]|changeme$|example)|[xX]{8}/;
const keepPathOrRef = (v: string) => PATH_OR_REF.test(v) || PLACEHOLDER.test(v);

const WORD = /[A-Za-z0-9_]/;
/** The identifier around `offset` begins the text or follows a separator (space, quote, `;`, `?`, `&`, `-`, `\`). */
function nameStartsWord(text: string, offset: number): boolean {
  let i = offset;
  while (i > 0 && WORD.test(text[i - 1]!)) i--;
  if (/[0-9]/.test(text[i] ?? "")) return false;
  return i === 0 || /[\s"';?&\\-]/.test(text[i - 1]!);
}

export const rules: Rule[] = [
  {
    kind: "private_key",
    hints: ["PRIVATE KEY-----"],
    // To the END line; a block cut short ends where its base64 body does (not at the end of text).
    re: () =>
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\w+/=:,\\-]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|(?=[^\w+/=:,\s\\-]|$))/g,
    group: 0,
  },
  {
    kind: "age_secret_key",
    hints: ["AGE-SECRET-KEY-1"],
    re: () => /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g,
    group: 0,
  },
  // AI providers. The specific `sk-…` shapes come before OpenAI's, which would also match them.
  { kind: "anthropic_key", hints: ["sk-ant-"], re: () => /\bsk-ant-[A-Za-z0-9_-]{20,}/g, group: 0 },
  { kind: "openrouter_key", hints: ["sk-or-"], re: () => /\bsk-or-v1-[a-f0-9]{64}\b/g, group: 0 },
  {
    kind: "openai_key",
    hints: ["sk-"],
    re: () => /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g,
    group: 0,
  },
  { kind: "xai_key", hints: ["xai-"], re: () => /\bxai-[A-Za-z0-9]{80}\b/g, group: 0 },
  { kind: "groq_key", hints: ["gsk_"], re: () => /\bgsk_[A-Za-z0-9]{52}\b/g, group: 0 },
  { kind: "perplexity_key", hints: ["pplx-"], re: () => /\bpplx-[A-Za-z0-9]{48}\b/g, group: 0 },
  {
    kind: "langsmith_key",
    hints: ["lsv2_"],
    re: () => /\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b/g,
    group: 0,
  },
  { kind: "replicate_token", hints: ["r8_"], re: () => /\br8_[A-Za-z0-9]{37}\b/g, group: 0 },
  { kind: "huggingface_token", hints: ["hf_"], re: () => /\bhf_[A-Za-z0-9]{30,}\b/g, group: 0 },
  // Clouds.
  { kind: "aws_access_key", hints: ["AKIA", "ASIA"], re: () => /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, group: 0 },
  {
    kind: "aws_secret_key",
    hints: ["aws_secret", "AWS_SECRET", "Aws_Secret", "SecretAccessKey", "secretAccessKey"],
    re: () =>
      /((?:aws_secret_access_key|SecretAccessKey)(?:\\*["'])?\s*[=:]\s*(?:\\*["'])?)([A-Za-z0-9/+=]{40})/gi,
    group: 2,
  },
  {
    kind: "aws_session_token",
    hints: ["aws_session_token", "AWS_SESSION_TOKEN", "SessionToken", "sessionToken"],
    re: () =>
      /((?:aws_session_token|SessionToken)(?:\\*["'])?\s*[=:]\s*(?:\\*["'])?)([A-Za-z0-9/+=]{100,})/gi,
    group: 2,
  },
  { kind: "alibaba_access_key", hints: ["LTAI"], re: () => /\bLTAI[A-Za-z0-9]{20}\b/g, group: 0 },
  { kind: "google_api_key", hints: ["AIza"], re: () => /\bAIza[0-9A-Za-z_-]{35}/g, group: 0 },
  { kind: "google_oauth_token", hints: ["ya29."], re: () => /\bya29\.[0-9A-Za-z_-]{20,}/g, group: 0 },
  { kind: "google_client_secret", hints: ["GOCSPX-"], re: () => /\bGOCSPX-[A-Za-z0-9_-]{28}\b/g, group: 0 },
  {
    kind: "azure_storage_key",
    hints: ["AccountKey="],
    re: () => /(AccountKey=)([A-Za-z0-9+/=]{40,})/g,
    group: 2,
  },
  {
    kind: "azure_ad_client_secret",
    hints: ["Q~"],
    re: () => /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
    group: 0,
  },
  {
    kind: "azure_sas_token",
    hints: ["sig="],
    re: () => /([?&]sig=)([A-Za-z0-9%+/]{30,}={0,2})/g,
    group: 2,
  },
  {
    kind: "digitalocean_token",
    hints: ["dop_v1_", "doo_v1_", "dor_v1_"],
    re: () => /\bdo[por]_v1_[a-f0-9]{64}\b/g,
    group: 0,
  },
  {
    kind: "cloudflare_origin_ca_key",
    hints: ["v1.0-"],
    re: () => /\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b/g,
    group: 0,
  },
  {
    kind: "cloudflare_api_key",
    hints: cased("cloudflare", "cf_"),
    re: () =>
      /((?<![A-Za-z0-9])(?:cloudflare|cf)[\w.-]*(?:token|key)(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?)([A-Za-z0-9_-]{37,40})\b/gi,
    group: 2,
  },
  {
    kind: "alibaba_access_key_secret",
    hints: cased("alibaba", "aliyun", "AccessKeySecret", "access_key_secret"),
    re: () =>
      /((?:alibaba|aliyun|ali)?[\w.-]*access_?key_?secret(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?)([A-Za-z0-9]{30})\b/gi,
    group: 2,
  },
  // Code hosting and CI.
  {
    kind: "github_token",
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    re: () => /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    group: 0,
  },
  {
    kind: "gitlab_token",
    hints: [
      "glpat-",
      "glptt-",
      "glrt-",
      "gldt-",
      "glft-",
      "glsoat-",
      "glcbt-",
      "gloas-",
      "glimt-",
      "glagent-",
      "GR1348941",
    ],
    re: () =>
      /\b(?:gl(?:pat|ptt|rt|dt|ft|soat|cbt|oas|imt|agent)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,})/g,
    group: 0,
  },
  { kind: "bitbucket_token", hints: ["ATBB"], re: () => /\bATBB[A-Za-z0-9_=.-]{28,}/g, group: 0 },
  { kind: "atlassian_token", hints: ["ATATT3"], re: () => /\bATATT3[A-Za-z0-9_=-]{100,}/g, group: 0 },
  {
    kind: "sourcegraph_token",
    hints: ["sgp_"],
    re: () => /\bsgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}\b/g,
    group: 0,
  },
  { kind: "sonar_token", hints: ["sqp_", "sqa_", "squ_"], re: () => /\bsq[pau]_[a-f0-9]{40}\b/g, group: 0 },
  {
    kind: "harness_token",
    hints: ["pat.", "sat."],
    re: () => /\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}\b/g,
    group: 0,
  },
  {
    kind: "terraform_token",
    hints: ["atlasv1"],
    re: () => /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}/g,
    group: 0,
  },
  { kind: "pulumi_token", hints: ["pul-"], re: () => /\bpul-[a-f0-9]{40}\b/g, group: 0 },
  {
    kind: "vault_token",
    hints: ["hvs.", "hvb.", "hvr."],
    re: () => /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g,
    group: 0,
  },
  {
    kind: "doppler_token",
    hints: ["dp."],
    re: () => /\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b/g,
    group: 0,
  },
  // Package registries.
  { kind: "npm_token", hints: ["npm_"], re: () => /\bnpm_[A-Za-z0-9]{36}\b/g, group: 0 },
  { kind: "pypi_token", hints: ["pypi-AgE"], re: () => /\bpypi-AgE[A-Za-z0-9_-]{60,}/g, group: 0 },
  { kind: "rubygems_key", hints: ["rubygems_"], re: () => /\brubygems_[a-f0-9]{48}\b/g, group: 0 },
  { kind: "nuget_key", hints: ["oy2"], re: () => /\boy2[a-z0-9]{43}\b/g, group: 0 },
  { kind: "clojars_token", hints: ["CLOJARS_"], re: () => /\bCLOJARS_[a-z0-9]{60}\b/g, group: 0 },
  {
    kind: "jfrog_token",
    hints: ["AKCp", "cmVmdGtuOjAxOj"],
    re: () => /\b(?:AKCp[A-Za-z0-9]{69}\b|cmVmdGtuOjAxOj[A-Za-z0-9]{40,})/g,
    group: 0,
  },
  { kind: "dockerhub_token", hints: ["dckr_"], re: () => /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}/g, group: 0 },
  // Hosting and platforms.
  { kind: "heroku_api_key", hints: ["HRKU-"], re: () => /\bHRKU-[A-Za-z0-9_-]{58,}/g, group: 0 },
  {
    kind: "flyio_token",
    hints: ["fo1_", "fm1", "fm2_"],
    re: () => /\b(?:fo1_[A-Za-z0-9_-]{43}\b|fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3})/g,
    group: 0,
  },
  { kind: "netlify_token", hints: ["nfp_"], re: () => /\bnfp_[A-Za-z0-9]{36,40}\b/g, group: 0 },
  {
    kind: "vercel_token",
    hints: ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
    re: () => /\bvc[pikar]_[A-Za-z0-9]{24,}\b/g,
    group: 0,
  },
  {
    kind: "supabase_token",
    hints: ["sbp_", "sb_secret_"],
    re: () => /\b(?:sbp_[a-f0-9]{40}\b|sb_secret_[A-Za-z0-9_-]{20,})/g,
    group: 0,
  },
  {
    kind: "planetscale_token",
    hints: ["pscale_"],
    re: () => /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9._=-]{32,64}/g,
    group: 0,
  },
  { kind: "scalingo_token", hints: ["tk-us-"], re: () => /\btk-us-[A-Za-z0-9_-]{48}\b/g, group: 0 },
  { kind: "databricks_token", hints: ["dapi"], re: () => /\bdapi[a-h0-9]{32}(?:-\d)?\b/g, group: 0 },
  { kind: "prefect_key", hints: ["pnu_"], re: () => /\bpnu_[A-Za-z0-9]{36}\b/g, group: 0 },
  // Observability.
  {
    kind: "grafana_token",
    hints: ["glc_", "glsa_", "eyJrIjoi"],
    re: () =>
      /\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|eyJrIjoi[A-Za-z0-9]{70,400}={0,2})/g,
    group: 0,
  },
  {
    kind: "sentry_token",
    hints: ["sntrys_", "sntryu_"],
    re: () => /\b(?:sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64}\b)/g,
    group: 0,
  },
  {
    kind: "newrelic_key",
    hints: ["NRAK-", "NRJS-", "NRII-", "NRAL"],
    re: () => /\b(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_-]{32}|[a-f0-9]{36}NRAL)\b/g,
    group: 0,
  },
  {
    kind: "datadog_key",
    hints: [...cased("datadog", "dd_api", "dd_app", "dd-api", "dd-app"), "ddApi", "ddApp"],
    re: () =>
      /((?<![A-Za-z0-9])(?:datadog|dd)[\w.-]*?(?:api|app(?:lication)?)[\w.-]*?key(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?)([a-f0-9]{40}|[a-f0-9]{32})\b/gi,
    group: 2,
  },
  {
    kind: "dynatrace_token",
    hints: ["dt0c01."],
    re: () => /\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b/g,
    group: 0,
  },
  // Identity.
  {
    kind: "okta_token",
    hints: ["SSWS", "okta", "Okta", "OKTA"],
    re: () =>
      /((?:SSWS\s+|okta[\w.-]*(?:token|key|secret)(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?))(00[A-Za-z0-9_-]{40})\b/gi,
    group: 2,
  },
  // Messaging and email.
  {
    kind: "slack_token",
    hints: ["xox"],
    re: () => /\b(?:xoxe\.)?xox[abposre]-[A-Za-z0-9-]{10,}/g,
    group: 0,
  },
  { kind: "slack_app_token", hints: ["xapp-"], re: () => /\bxapp-\d-[A-Za-z0-9-]{10,}/g, group: 0 },
  {
    kind: "slack_webhook",
    hints: ["hooks.slack.com"],
    re: () => /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g,
    group: 0,
  },
  {
    kind: "discord_webhook",
    hints: ["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
    re: () => /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{60,}/g,
    group: 0,
  },
  {
    kind: "discord_bot_token",
    hints: [...cased("discord"), "Bot "],
    re: () =>
      /(?<![A-Za-z0-9_+/=.-])[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_+/=.-])/g,
    group: 0,
  },
  {
    kind: "teams_webhook",
    hints: ["webhook.office.com"],
    re: () => /https:\/\/[A-Za-z0-9-]+\.webhook\.office\.com\/webhookb2\/[^\s"'`<>\\]+/g,
    group: 0,
  },
  {
    kind: "telegram_bot_token",
    hints: [":AA"],
    re: () => /(?<![A-Za-z0-9_+/=:-])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g,
    group: 0,
  },
  {
    kind: "twilio_key",
    hints: ["SK"],
    re: () => new RegExp(`${NB}SK[0-9a-fA-F]{32}${NA}`, "g"),
    group: 0,
  },
  {
    kind: "sendgrid_key",
    hints: ["SG."],
    re: () => /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g,
    group: 0,
  },
  { kind: "mailgun_key", hints: ["key-"], re: () => /\bkey-[0-9a-f]{32}\b/g, group: 0 },
  { kind: "mailchimp_key", hints: ["-us"], re: () => /\b[0-9a-f]{32}-us\d{1,2}\b/g, group: 0 },
  {
    kind: "brevo_key",
    hints: ["xkeysib-", "xsmtpsib-"],
    re: () => /\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b/g,
    group: 0,
  },
  // Payments and commerce.
  {
    kind: "stripe_key",
    hints: ["_live_", "_test_"],
    re: () => /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
    group: 0,
  },
  { kind: "stripe_webhook_secret", hints: ["whsec_"], re: () => /\bwhsec_[A-Za-z0-9]{32,}/g, group: 0 },
  {
    kind: "square_token",
    hints: ["EAAA", "sq0atp-", "sq0csp-"],
    re: () => new RegExp(`${NB}EAAA[A-Za-z0-9_-]{60}${NA}|\\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}\\b`, "g"),
    group: 0,
  },
  {
    kind: "braintree_token",
    hints: ["access_token$"],
    re: () => /\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}\b/g,
    group: 0,
  },
  {
    kind: "shopify_token",
    hints: ["shpat_", "shpca_", "shppa_", "shpss_"],
    re: () => /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g,
    group: 0,
  },
  { kind: "shippo_token", hints: ["shippo_"], re: () => /\bshippo_(?:live|test)_[a-f0-9]{40}\b/g, group: 0 },
  { kind: "easypost_key", hints: ["EZAK", "EZTK"], re: () => /\bEZ[AT]K[A-Za-z0-9]{54}\b/g, group: 0 },
  {
    kind: "duffel_token",
    hints: ["duffel_"],
    re: () => /\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}/g,
    group: 0,
  },
  {
    kind: "flutterwave_key",
    hints: ["FLWSECK"],
    re: () => /\bFLWSECK(?:_TEST)?-[a-h0-9]{32}-X\b/g,
    group: 0,
  },
  // Productivity and content.
  {
    kind: "linear_api_key",
    hints: ["lin_api_", "lin_oauth_"],
    re: () => /\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b/g,
    group: 0,
  },
  { kind: "postman_api_key", hints: ["PMAK-"], re: () => /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g, group: 0 },
  {
    kind: "notion_token",
    hints: ["ntn_", "secret_"],
    re: () => /\b(?:ntn_[A-Za-z0-9]{46}|secret_[A-Za-z0-9]{43})\b/g,
    group: 0,
  },
  { kind: "airtable_token", hints: ["pat"], re: () => /\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/g, group: 0 },
  { kind: "figma_token", hints: ["figd_"], re: () => /\bfigd_[A-Za-z0-9_-]{40,}/g, group: 0 },
  {
    kind: "mapbox_token",
    hints: ["sk.eyJ"],
    re: () => /\bsk\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,}/g,
    group: 0,
  },
  { kind: "contentful_token", hints: ["CFPAT-"], re: () => /\bCFPAT-[A-Za-z0-9_-]{43}\b/g, group: 0 },
  { kind: "typeform_token", hints: ["tfp_"], re: () => /\btfp_[A-Za-z0-9_.=-]{59}/g, group: 0 },
  { kind: "readme_key", hints: ["rdme_"], re: () => /\brdme_[a-z0-9]{70}\b/g, group: 0 },
  { kind: "frameio_token", hints: ["fio-u-"], re: () => /\bfio-u-[A-Za-z0-9_=-]{64}/g, group: 0 },
  // Generic shapes: after the provider ones, which name the kind more precisely.
  {
    kind: "jwt",
    hints: ["eyJ"],
    re: () => /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
    group: 0,
  },
  {
    kind: "basic_auth",
    hints: ["Basic ", "basic ", "BASIC "],
    re: () => /(Authorization(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?Basic\s+)([A-Za-z0-9+/]{12,}={0,2})/gi,
    group: 2,
  },
  {
    kind: "bearer_token",
    hints: ["Bearer", "bearer"],
    re: () => /(\b[Bb]earer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g,
    group: 2,
  },
  {
    kind: "connection_string",
    hints: ["://"],
    // The password runs to the last `@` before the host, so one holding a raw `@` is taken whole.
    re: () => /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'`]*:)([^\s"'`/]+)(@)/gi,
    group: 2,
  },
  {
    kind: "env_secret",
    hints: cased("pass", "secret", "token", "key"),
    // env-file style (`KEY=value`, no spaces around `=`), also inside a JSON-escaped file body, a
    // query string or a `--flag=`. The match starts at the keyword, which is rare, rather than at
    // every word; `at` then checks that the name it sits in starts a word.
    re: () =>
      /((?:PASSWORD|PASSWD|PASS|SECRET|TOKEN|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|AUTH_KEY)[A-Za-z0-9_]*=(?:\\*["'])?)([^\s"'#\\&]{4,})/gi,
    group: 2,
    at: nameStartsWord,
    keep: keepPathOrRef,
  },
  {
    kind: "json_secret",
    // Also inside a JSON string (a tool input holding a JSON body), where the quotes are escaped.
    hints: ["password", "passwd", "secret", "api_key", "apiKey", "_token", "private_key"].flatMap((k) => [
      `${k}"`,
      `${k}\\"`,
    ]),
    re: () =>
      /(\\*"(?:password|passwd|secret|client_secret|api_key|apiKey|access_token|refresh_token|auth_token|private_key)\\*"\s*:\s*\\*")([^"\s\\]{4,})(\\*")/g,
    group: 2,
    keep: keepPathOrRef,
  },
];
