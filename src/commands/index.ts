import type { CommandDef } from "citty";

// biome-ignore lint/suspicious/noExplicitAny: citty's CommandDef is generic over each command's own args.
type Loader = () => Promise<CommandDef<any>>;

/** Every command, loaded only when it runs. Keep this map free of eager imports. */
export const commands: Record<string, Loader> = {
  help: () => import("./help.ts").then((m) => m.default),
  demo: () => import("./demo.ts").then((m) => m.default),
  import: () => import("./import.ts").then((m) => m.default),
  replay: () => import("./replay.ts").then((m) => m.default),
  status: () => import("./status.ts").then((m) => m.default),
  migrate: () => import("./migrate.ts").then((m) => m.default),
  hook: () => import("./hook.ts").then((m) => m.default),
  install: () => import("./install.ts").then((m) => m.default),
  uninstall: () => import("./uninstall.ts").then((m) => m.default),
  doctor: () => import("./doctor.ts").then((m) => m.default),
  context: () => import("./context.ts").then((m) => m.default),
  "handoff-context": () => import("./context.ts").then((m) => m.handoffContext),
  recall: () => import("./recall.ts").then((m) => m.default),
  detail: () => import("./detail.ts").then((m) => m.default),
  search: () => import("./search.ts").then((m) => m.default),
  note: () => import("./note.ts").then((m) => m.default),
  monitor: () => import("./monitor.ts").then((m) => m.default),
  statusline: () => import("./statusline.ts").then((m) => m.default),
  export: () => import("./export/index.ts").then((m) => m.default),
  forget: () => import("./forget.ts").then((m) => m.default),
  pause: () => import("./pause.ts").then((m) => m.default),
  resume: () => import("./pause.ts").then((m) => m.resume),
  ui: () => import("./ui.ts").then((m) => m.default),
  sync: () => import("./sync.ts").then((m) => m.default),
};
