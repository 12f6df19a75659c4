import type { CommandDef } from "citty";

// biome-ignore lint/suspicious/noExplicitAny: citty's CommandDef is generic over each command's own args.
type Loader = () => Promise<CommandDef<any>>;

/** Every command, loaded only when it runs. Keep this map free of eager imports. */
export const commands: Record<string, Loader> = {
  replay: () => import("./replay.ts").then((m) => m.default),
  status: () => import("./status.ts").then((m) => m.default),
  migrate: () => import("./migrate.ts").then((m) => m.default),
  hook: () => import("./hook.ts").then((m) => m.default),
};
