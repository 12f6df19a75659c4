import pc from "picocolors";
import { colorEnabled, stdoutIsTty } from "./tty.ts";

export type Colors = ReturnType<typeof pc.createColors>;

/** Decide colour once per invocation: NO_COLOR and a non-TTY stdout turn it off. */
export function colorsFor(env: Record<string, string | undefined>, isTty: boolean): Colors {
  return pc.createColors(colorEnabled(env, isTty));
}

export function stdoutColors(): Colors {
  return colorsFor(process.env, stdoutIsTty());
}

/** No colour: what renderers default to, and what goldens are written with. */
export const PLAIN_COLORS: Colors = pc.createColors(false);
