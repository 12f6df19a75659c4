import { claudeConfigDir, databasePath } from "../core/paths.ts";
import { ThroughlineError } from "../errors.ts";
import { dbArgs } from "./_args.ts";
import { defineCommand } from "./_define.ts";
import { startUi } from "./_ui-server.ts";

/** Try to open the address in a browser; any failure is silent (the address is printed). */
function openBrowser(url: string): void {
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = Bun.spawn([cmd, url], { stdio: ["ignore", "ignore", "ignore"] });
    child.unref();
  } catch {
    // No opener on this machine: the printed address is enough.
  }
}

function parsePort(text: string | undefined): number {
  if (text === undefined || text === "") return 0;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new ThroughlineError("E_ARGS", `--port must be a number from 0 to 65535; got "${text}"`);
  return Number(text);
}

/**
 * `ui` (docs/ui.md): a local, read-only web view of the memory, served on 127.0.0.1 until
 * Ctrl-C. The printed address carries a random token; nothing else is let in.
 */
export default defineCommand({
  meta: {
    name: "ui",
    examples: ["throughline ui", "throughline ui --port 4321 --open"],
    description:
      "Serve a local, read-only web view of the memory (projects, chains, turns, the push, search, live sessions) on 127.0.0.1 until Ctrl-C; prints its address, which holds a one-time token",
  },
  args: {
    port: { type: "string", description: "Port on 127.0.0.1 (default 0: any free port)", valueHint: "n" },
    open: {
      type: "boolean",
      default: true,
      description: "Open the address in a browser (--no-open: only print it)",
    },
    ...dbArgs,
  },
  async run({ args }) {
    const port = parsePort(args.port);
    const server = await startUi({
      dbPath: databasePath(process.env, args.db),
      port,
      configDir: claudeConfigDir(process.env),
    });
    console.log(`throughline ui: ${server.url}`);
    console.log("read-only; the address holds this run's token (keep it to yourself). Ctrl-C stops it.");
    if (args.open !== false) openBrowser(server.url);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      process.once("SIGHUP", stop);
    });
    await server.stop();
  },
});
