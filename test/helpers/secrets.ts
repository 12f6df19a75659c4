// Secrets of many kinds in prompts, tool inputs and tool outputs (all fake, shaped like real ones).
export const SECRETS: Record<string, string> = {
  aws_access_key: "AKIAQX3EXAMPLE7KEY12",
  aws_secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  github_token: "ghp_R2x9Tq7LmZ0aB4cD6eF8gH1iJ3kL5mN7oP9q",
  github_pat: "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
  gitlab_token: "glpat-x9Y8z7W6v5U4t3S2r1Q0",
  slack_token: "xoxb-2048-409600-Zx9Yw8Vu7Ts6Rq5Po4",
  slack_webhook: "https://hooks.slack.com/services/T0000FAKE/B0000FAKE/XXXXfakeWEBHOOKxxxx",
  openai_key: "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678Stu",
  anthropic_key: "sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefABCDEF",
  stripe_key: "sk_live_51Hfake0123456789ABCDEFabcdef",
  google_api_key: "AIzaSyFAKE0123456789abcdefghijklmnopqrs",
  npm_token: "npm_FAKEabcdefghijklmnopqrstuvwxyz012345",
  huggingface_token: "hf_FAKEabcdefghijklmnopqrstuvwxyzABCD",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  bearer: "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
  db_password: "Tr0ub4dor-and-3",
  env_secret: "s3cr3t-signing-value-42",
  private_key_body: "MIIEowIBAAKCAQEAfakeFAKEfakePRIVATEkeyMATERIALxyz0123456789",
  azure_key: "FAKEazureSTORAGEkey0123456789abcdefghijABCDEFGHIJ==",
  json_password: "hunter2-but-longer",
};

/**
 * One fixture per redaction kind: `text` as it would appear in a session, `secret` the part that
 * must never be stored. Every value is built here from a prefix and a generated body, so this file
 * holds no string a secret scanner would take for a live credential; the bodies are patterned
 * (each character steps through the alphabet), which no issuer produces.
 */
export interface SecretShape {
  text: string;
  secret: string;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const LOWER36 = LOWER + DIGITS;
const UPPER36 = UPPER + DIGITS;
const B64 = `${ALNUM}+/`;

/** `n` characters of `alphabet`, stepping by 7 from an offset taken from `seed`: distinct per kind. */
export function fakeBody(alphabet: string, n: number, seed: string): string {
  let h = 0;
  for (const c of seed) h = (h * 31 + c.charCodeAt(0)) % 9973;
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[(h + i * 7) % alphabet.length];
  return s;
}

/** A fixture whose whole text is the secret. */
const bare = (secret: string): SecretShape => ({ text: `value ${secret} end`, secret });
const ctx = (before: string, secret: string, after = ""): SecretShape => ({
  text: `${before}${secret}${after}`,
  secret,
});

function shapes(): Record<string, SecretShape> {
  const f = (alphabet: string, n: number, seed: string) => fakeBody(alphabet, n, seed);
  const pem = `MIIEow${f(B64, 64, "pem")}`;
  const jwtHead = ["eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiJmYWtlIn0"].join(".");
  return {
    private_key: {
      text: `-----BEGIN RSA PRIVATE ${"KEY"}-----\n${pem}\n${f(B64, 64, "pem2")}\n-----END RSA PRIVATE ${"KEY"}-----`,
      secret: pem,
    },
    age_secret_key: bare(`AGE-SECRET-${"KEY"}-1${f("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, "age")}`),
    anthropic_key: bare(`sk-ant-api03-${f(ALNUM, 93, "ant")}AA`),
    openrouter_key: bare(`sk-or-v1-${f(HEX, 64, "or")}`),
    openai_key: bare(`sk-proj-${f(ALNUM, 48, "oai")}`),
    xai_key: bare(`xai-${f(ALNUM, 80, "xai")}`),
    groq_key: bare(`gsk_${f(ALNUM, 52, "groq")}`),
    perplexity_key: bare(`pplx-${f(ALNUM, 48, "pplx")}`),
    langsmith_key: bare(`lsv2_pt_${f(HEX, 32, "ls")}_${f(HEX, 10, "ls2")}`),
    replicate_token: bare(`r8_${f(ALNUM, 37, "r8")}`),
    huggingface_token: bare(`hf_${f(ALNUM, 34, "hf")}`),
    aws_access_key: bare(`AKIA${f(UPPER36, 16, "aws")}`),
    aws_secret_key: ctx("aws_secret_access_key = ", f(B64, 40, "awss")),
    aws_session_token: ctx("aws_session_token = ", f(B64, 120, "awst")),
    alibaba_access_key: bare(`LTAI${f(ALNUM, 20, "ali")}`),
    alibaba_access_key_secret: ctx("alibaba_cloud_access_key_secret: ", f(ALNUM, 30, "alis")),
    google_api_key: bare(`AIza${f(ALNUM, 35, "gapi")}`),
    google_oauth_token: bare(`ya29.${f(ALNUM, 60, "ya29")}`),
    google_client_secret: bare(`GOCSPX-${f(ALNUM, 28, "gcs")}`),
    azure_storage_key: ctx(
      "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=",
      `${f(B64, 86, "az")}==`,
    ),
    azure_ad_client_secret: bare(`${f(ALNUM, 3, "aad")}8Q~${f(`${ALNUM}_~.-`, 33, "aad2")}A`),
    azure_sas_token: ctx(
      "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sr=b&sig=",
      `${f(ALNUM, 40, "sas")}%2B${f(ALNUM, 3, "sas2")}%3D`,
    ),
    digitalocean_token: bare(`dop_v1_${f(HEX, 64, "do")}`),
    cloudflare_origin_ca_key: bare(`v1.0-${f(HEX, 24, "cfo")}-${f(HEX, 146, "cfo2")}`),
    cloudflare_api_key: ctx("cloudflare_api_token: ", f(ALNUM, 40, "cf")),
    github_token: bare(`ghp_${f(ALNUM, 36, "ghp")}`),
    gitlab_token: bare(`glpat-${f(ALNUM, 20, "glpat")}`),
    bitbucket_token: bare(`ATBB${f(ALNUM, 32, "bb")}`),
    atlassian_token: bare(`ATATT3${f(ALNUM, 178, "atl")}=${f(HEX, 8, "atl2").toUpperCase()}`),
    sourcegraph_token: bare(`sgp_${f(HEX, 16, "sg")}_${f(HEX, 40, "sg2")}`),
    sonar_token: bare(`sqp_${f(HEX, 40, "sq")}`),
    harness_token: bare(`pat.${f(ALNUM, 22, "hn")}.${f(HEX, 24, "hn2")}.${f(ALNUM, 20, "hn3")}`),
    terraform_token: bare(`${f(ALNUM, 14, "tf")}.atlasv1.${f(ALNUM, 67, "tf2")}`),
    pulumi_token: bare(`pul-${f(HEX, 40, "pul")}`),
    vault_token: bare(`hvs.${f(ALNUM, 90, "hvs")}`),
    doppler_token: bare(`dp.pt.${f(ALNUM, 43, "dp")}`),
    npm_token: bare(`npm_${f(ALNUM, 36, "npm")}`),
    pypi_token: bare(`pypi-AgEIcHlwaS5vcmc${f(ALNUM, 70, "pypi")}`),
    rubygems_key: bare(`rubygems_${f(HEX, 48, "gem")}`),
    nuget_key: bare(`oy2${f(LOWER36, 43, "nuget")}`),
    clojars_token: bare(`CLOJARS_${f(LOWER36, 60, "clj")}`),
    jfrog_token: bare(`AKCp${f(ALNUM, 69, "jf")}`),
    dockerhub_token: bare(`dckr_pat_${f(ALNUM, 27, "dckr")}`),
    heroku_api_key: bare(`HRKU-AA${f(ALNUM, 58, "hrku")}`),
    flyio_token: ctx("Authorization: FlyV1 ", `fm2_${f(B64, 120, "fly")}`),
    netlify_token: bare(`nfp_${f(ALNUM, 36, "nfp")}`),
    vercel_token: bare(`vcp_${f(ALNUM, 56, "vcp")}`),
    supabase_token: bare(`sbp_${f(HEX, 40, "sbp")}`),
    planetscale_token: bare(`pscale_tkn_${f(ALNUM, 43, "ps")}`),
    scalingo_token: bare(`tk-us-${f(ALNUM, 48, "scal")}`),
    databricks_token: bare(`dapi${f("abcdefgh0123456789", 32, "dapi")}`),
    prefect_key: bare(`pnu_${f(ALNUM, 36, "pnu")}`),
    grafana_token: bare(`glsa_${f(ALNUM, 32, "glsa")}_${f(HEX, 8, "glsa2")}`),
    sentry_token: bare(`sntryu_${f(HEX, 64, "sntry")}`),
    newrelic_key: bare(`NRAK-${f(UPPER36, 27, "nr")}`),
    datadog_key: ctx("datadog_api_key: ", f(HEX, 32, "dd")),
    dynatrace_token: bare(`dt0c01.${f(UPPER36, 24, "dt")}.${f(UPPER36, 64, "dt2")}`),
    okta_token: ctx("Authorization: SSWS ", `00${f(ALNUM, 40, "okta")}`),
    slack_token: bare(`xoxb-1234567890-1234567890123-${f(ALNUM, 24, "xoxb")}`),
    slack_app_token: bare(`xapp-1-A0${f(UPPER36, 9, "xapp")}-1234567890123-${f(HEX, 64, "xapp2")}`),
    slack_webhook: bare(
      `https://hooks.slack.com/services/T${f(UPPER36, 8, "sw")}/B${f(UPPER36, 8, "sw2")}/${f(ALNUM, 24, "sw3")}`,
    ),
    discord_webhook: bare(`https://discord.com/api/webhooks/123456789012345678/${f(ALNUM, 68, "dw")}`),
    discord_bot_token: ctx(
      "discord bot token ",
      `M${f(ALNUM, 23, "dbt")}.${f(ALNUM, 6, "dbt2")}.${f(ALNUM, 27, "dbt3")}`,
      " end",
    ),
    teams_webhook: bare(
      `https://contoso.webhook.office.com/webhookb2/${f(HEX, 32, "tw")}/IncomingWebhook/${f(HEX, 32, "tw2")}`,
    ),
    telegram_bot_token: bare(`1234567890:AA${f(ALNUM, 33, "tg")}`),
    twilio_key: bare(`SK${f(HEX, 32, "tw")}`),
    sendgrid_key: bare(`SG.${f(ALNUM, 22, "sg")}.${f(ALNUM, 43, "sg2")}`),
    mailgun_key: bare(`key-${f(HEX, 32, "mg")}`),
    mailchimp_key: bare(`${f(HEX, 32, "mc")}-us12`),
    brevo_key: bare(`xkeysib-${f(HEX, 64, "brevo")}-${f(ALNUM, 16, "brevo2")}`),
    stripe_key: bare(`sk_${"live"}_${f(ALNUM, 24, "stripe")}`),
    stripe_webhook_secret: bare(`whsec_${f(ALNUM, 32, "whsec")}`),
    square_token: bare(`EAAA${f(ALNUM, 60, "sq")}`),
    braintree_token: bare(`access_token$production$${f(LOWER36, 16, "bt")}$${f(HEX, 32, "bt2")}`),
    shopify_token: bare(`shpat_${f(HEX, 32, "shp")}`),
    shippo_token: bare(`shippo_live_${f(HEX, 40, "shippo")}`),
    easypost_key: bare(`EZAK${f(ALNUM, 54, "ez")}`),
    duffel_token: bare(`duffel_test_${f(ALNUM, 43, "duffel")}`),
    flutterwave_key: bare(`FLWSECK_TEST-${f("abcdefgh0123456789", 32, "flw")}-X`),
    linear_api_key: bare(`lin_api_${f(ALNUM, 40, "lin")}`),
    postman_api_key: bare(`PMAK-${f(HEX, 24, "pm")}-${f(HEX, 34, "pm2")}`),
    notion_token: bare(`ntn_${f(ALNUM, 46, "ntn")}`),
    airtable_token: bare(`pat${f(ALNUM, 14, "at")}.${f(HEX, 64, "at2")}`),
    figma_token: bare(`figd_${f(ALNUM, 40, "figd")}`),
    mapbox_token: bare(`sk.eyJ1IjoiZmFrZSIsImEiOiJmYWtlIn0.${f(ALNUM, 22, "mapbox")}`),
    contentful_token: bare(`CFPAT-${f(ALNUM, 43, "cf")}`),
    typeform_token: bare(`tfp_${f(ALNUM, 59, "tfp")}`),
    readme_key: bare(`rdme_${f(LOWER36, 70, "rdme")}`),
    frameio_token: bare(`fio-u-${f(ALNUM, 64, "fio")}`),
    jwt: bare(`${jwtHead}.${f(ALNUM, 43, "jwt")}`),
    basic_auth: ctx("Authorization: Basic ", btoa(`fakeuser:${f(ALNUM, 16, "basic")}`)),
    bearer_token: ctx("Authorization: Bearer ", f(ALNUM, 30, "bearer")),
    // The password holds raw `@`s: all of it must go, not just the part before the first one.
    connection_string: ctx(
      "psql postgres://app:",
      `Tr0ub4dor@${f(ALNUM, 8, "pg")}@x`,
      "@db.internal:5432/prod",
    ),
    env_secret: ctx("export API_TOKEN=", `s3cr3t-${f(ALNUM, 16, "env")}`),
    json_secret: ctx('{"password": "', `hunter2-${f(ALNUM, 12, "json")}`, '"}'),
  };
}

export const SECRET_SHAPES: Record<string, SecretShape> = shapes();
