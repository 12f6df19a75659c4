import pc from "picocolors";
import { stdoutIsTty } from "./tty.ts";

export type Colors = ReturnType<typeof pc.createColors>;

/** Decide colour once per invocation: NO_COLOR and a non-TTY stdout turn it off. */
export function colorsFor(env: Record<string, string | undefined>, isTty: boolean): Colors {
  const enabled = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" ? true : !env.NO_COLOR && isTty;
  return pc.createColors(enabled);
}

export function stdoutColors(): Colors {
  return colorsFor(process.env, stdoutIsTty());
}
