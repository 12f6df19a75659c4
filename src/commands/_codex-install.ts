/**
 * `install codex`, `uninstall codex` and doctor's Codex checks (docs/hosts.md): the file I/O
 * around core/codex-hooks.ts. Codex's home is `$CODEX_HOME`, else `~/.codex`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ArgDef } from "citty";
import {
  CODEX_HOOKS,
  findCodexHooks,
  mergeCodexHooks,
  removeTrustBlock,
  TRUST_BEGIN,
  trustBlock,
  trustedInBlock,
  trustIdentity,
  trustKey,
} from "../core/codex-hooks.ts";
import type { Env } from "../core/paths.ts";
import { hookProgram, removeHooks } from "../core/settings.ts";
import { ThroughlineError } from "../errors.ts";
import { readSettings, writeSettings } from "./_settings-file.ts";

/** `install`'s and `uninstall`'s positional, read by hostArg. */
export const hostArgs = {
  host: {
    type: "positional",
    required: false,
    description: "`codex` for Codex ($CODEX_HOME, default ~/.codex); Claude Code when left out",
  },
} as const satisfies Record<string, ArgDef>;

/** The host named by `install`'s and `uninstall`'s positional: `codex`, else Claude Code. */
export function hostArg(positionals: readonly unknown[]): "claude" | "codex" {
  const h = positionals.length > 0 ? String(positionals[0]) : "claude";
  if (h === "codex") return "codex";
  if (h === "claude" || h === "claude-code") return "claude";
  throw new ThroughlineError("E_USAGE", `unknown host "${h}" (expected codex, or nothing for Claude Code)`);
}

export function codexHome(env: Env): string {
  return env.CODEX_HOME || `${env.HOME || env.USERPROFILE || "."}/.codex`;
}

/** `$CODEX_HOME/sessions` when it holds anything: what `import` reads beside Claude Code's history. */
export function codexSessions(env: Env): string[] {
  const dir = join(codexHome(env), "sessions");
  return existsSync(dir) ? [dir] : [];
}

/** Codex canonicalizes CODEX_HOME into its trust keys: the real path, once the folder exists. */
function hooksJsonPath(env: Env): string {
  const home = codexHome(env);
  mkdirSync(home, { recursive: true });
  return join(realpathSync(home), "hooks.json");
}

export function trustHash(snake: string, command: string, timeout: number): string {
  return `sha256:${createHash("sha256")
    .update(trustIdentity(snake, command, timeout))
    .digest("hex")}`;
}

export interface CodexInstallReport {
  hooks_json: string;
  config: string;
  hooks: { event: string; command: string; trust_key: string }[];
  hooks_changed: boolean;
  trust_changed: boolean;
}

export function installCodex(env: Env, invocation: string): CodexInstallReport {
  const hooksJson = hooksJsonPath(env);
  const config = join(codexHome(env), "config.toml");
  const file = readSettings(hooksJson);
  const { file: next, placed } = mergeCodexHooks(file.settings, invocation);
  const hooksChanged = JSON.stringify(next) !== JSON.stringify(file.settings);
  if (hooksChanged) writeSettings(hooksJson, next, file);
  const entries = placed.map((p) => ({
    key: trustKey(hooksJson, p.spec.snake, p.group),
    hash: trustHash(p.spec.snake, p.command, p.spec.timeout),
  }));
  const before = existsSync(config) ? readFileSync(config, "utf8") : null;
  const kept = removeTrustBlock(before ?? "").text;
  const after = kept + trustBlock(entries);
  const trustChanged = after !== before;
  if (trustChanged) writeFileSync(config, after);
  return {
    hooks_json: hooksJson,
    config,
    hooks: placed.map((p, i) => ({ event: p.spec.event, command: p.command, trust_key: entries[i]!.key })),
    hooks_changed: hooksChanged,
    trust_changed: trustChanged,
  };
}

export function renderCodexInstall(r: CodexInstallReport): string {
  return [
    r.hooks_changed
      ? `Registered ${r.hooks.length} hooks in ${r.hooks_json}`
      : `Hooks already up to date in ${r.hooks_json}`,
    ...r.hooks.map((h) => `  ${h.event.padEnd(17)} ${h.command}`),
    `Trusted exactly these ${r.hooks.length} hooks for Codex: their hashes are recorded under [hooks.state] in ${r.config}` +
      (r.trust_changed ? "" : " (already recorded)"),
    "  (Codex runs a hook only once it is trusted; `throughline uninstall codex` removes the hooks and their trust)",
  ].join("\n");
}

export interface CodexUninstallReport {
  hooks_json: string;
  config: string;
  hooks_changed: boolean;
  trust_changed: boolean;
}

export function uninstallCodex(env: Env): CodexUninstallReport {
  const home = codexHome(env);
  const hooksJson = join(existsSync(home) ? realpathSync(home) : home, "hooks.json");
  const config = join(home, "config.toml");
  let hooksChanged = false;
  if (existsSync(hooksJson)) {
    const file = readSettings(hooksJson);
    // hooks.json has Claude Code's shape: the same removal as its settings.
    const next = removeHooks(file.settings);
    hooksChanged = JSON.stringify(next) !== JSON.stringify(file.settings);
    // A file install created and left empty goes: the home is as it was.
    if (hooksChanged && Object.keys(next).length === 0) rmSync(hooksJson);
    else if (hooksChanged) writeSettings(hooksJson, next, file);
  }
  let trustChanged = false;
  if (existsSync(config)) {
    const { text, removed } = removeTrustBlock(readFileSync(config, "utf8"));
    trustChanged = removed;
    if (removed && text === "") rmSync(config);
    else if (removed) writeFileSync(config, text);
  }
  return { hooks_json: hooksJson, config, hooks_changed: hooksChanged, trust_changed: trustChanged };
}

export function renderCodexUninstall(r: CodexUninstallReport): string {
  return [
    r.hooks_changed
      ? `Removed throughline hooks from ${r.hooks_json}`
      : `No throughline hooks in ${r.hooks_json}`,
    r.trust_changed ? `Removed their trust from ${r.config}` : `No throughline trust in ${r.config}`,
    "Memory is kept; delete the database yourself if you want it gone.",
  ].join("\n");
}

export interface CodexCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** doctor's Codex lines; empty when Codex has no home here (nothing to check). */
export function codexChecks(env: Env): CodexCheck[] {
  const home = codexHome(env);
  if (!existsSync(home)) return [];
  const hooksJson = join(realpathSync(home), "hooks.json");
  const config = join(home, "config.toml");
  const found = existsSync(hooksJson) ? findCodexHooks(readSettings(hooksJson).settings) : [];
  if (found.length === 0)
    return [
      {
        name: "codex hooks",
        ok: true,
        detail: `none in ${hooksJson} (\`throughline install codex\` adds them)`,
      },
    ];
  const missing = CODEX_HOOKS.filter((s) => !found.some((f) => f.event === s.event)).map((s) => s.event);
  const trusted = existsSync(config)
    ? trustedInBlock(readFileSync(config, "utf8"))
    : new Map<string, string>();
  const untrusted = found.filter((f) => {
    const spec = CODEX_HOOKS.find((s) => s.event === f.event);
    if (!spec) return true;
    const hash = trustHash(spec.snake, f.command, f.timeout ?? 600);
    return trusted.get(trustKey(hooksJson, spec.snake, f.group, f.handler)) !== hash;
  });
  const programs = [...new Set(found.map((f) => hookProgram(f.command).replace(/ hook [a-z-]+$/, "")))];
  const unreachable = programs.filter((p) => !reachable(p));
  return [
    {
      name: "codex hooks",
      ok: missing.length === 0,
      detail:
        missing.length === 0
          ? `${found.length} in ${hooksJson}`
          : `missing ${missing.join(", ")} in ${hooksJson}: run \`throughline install codex\``,
    },
    {
      name: "codex trust",
      ok: untrusted.length === 0,
      detail:
        untrusted.length === 0
          ? `every hook trusted in ${config}`
          : `${untrusted.length} hook(s) not trusted (${untrusted.map((u) => u.event).join(", ")}): Codex skips them silently; run \`throughline install codex\`${
              existsSync(config) && readFileSync(config, "utf8").includes(TRUST_BEGIN)
                ? ""
                : " (no trust block)"
            }`,
    },
    {
      name: "codex binary",
      ok: unreachable.length === 0,
      detail:
        unreachable.length === 0
          ? `the hooks run ${programs.join(", ")}`
          : `not found: ${unreachable.join(", ")}`,
    },
  ];
}

/** The program a registered command starts exists: its first word, a path or a name on PATH. */
function reachable(invocation: string): boolean {
  const first = /^"([^"]+)"|^'([^']+)'|^(\S+)/.exec(invocation);
  const program = first?.[1] ?? first?.[2] ?? first?.[3] ?? "";
  if (program.includes("/")) return existsSync(program);
  return Bun.which(program) !== null;
}
