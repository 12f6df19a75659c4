import type { Colors, Formatter } from "picocolors/types";
import { colorEnabled, stdoutIsTty } from "./tty.ts";

export type { Colors };

/**
 * Every formatter picocolors has; `satisfies` fails the typecheck when its list changes, so
 * the plain set below always has the same keys as a coloured one.
 */
const NAMES = {
  reset: 1,
  bold: 1,
  dim: 1,
  italic: 1,
  underline: 1,
  inverse: 1,
  hidden: 1,
  strikethrough: 1,
  black: 1,
  red: 1,
  green: 1,
  yellow: 1,
  blue: 1,
  magenta: 1,
  cyan: 1,
  white: 1,
  gray: 1,
  bgBlack: 1,
  bgRed: 1,
  bgGreen: 1,
  bgYellow: 1,
  bgBlue: 1,
  bgMagenta: 1,
  bgCyan: 1,
  bgWhite: 1,
  blackBright: 1,
  redBright: 1,
  greenBright: 1,
  yellowBright: 1,
  blueBright: 1,
  magentaBright: 1,
  cyanBright: 1,
  whiteBright: 1,
  bgBlackBright: 1,
  bgRedBright: 1,
  bgGreenBright: 1,
  bgYellowBright: 1,
  bgBlueBright: 1,
  bgMagentaBright: 1,
  bgCyanBright: 1,
  bgWhiteBright: 1,
} as const satisfies Record<Exclude<keyof Colors, "isColorSupported">, 1>;

/** No colour: what renderers default to, and what goldens are written with (picocolors' own `String`). */
export const PLAIN_COLORS: Colors = {
  isColorSupported: false,
  ...(Object.fromEntries(Object.keys(NAMES).map((k): [string, Formatter] => [k, String])) as Record<
    keyof typeof NAMES,
    Formatter
  >),
};

let colored: Colors | undefined;

/**
 * The CLI's one colour decision (render/tty.ts colorEnabled). picocolors is loaded only when
 * colour is on: importing it reads `process.stdout.isTTY`, which sets up Node's stream stack,
 * about 20 ms of a cold start (docs/hooks.md, "Latency"); a piped pull, as the model runs it,
 * must not pay that for plain text.
 */
export function colorsFor(env: Record<string, string | undefined>, isTty: boolean): Colors {
  if (!colorEnabled(env, isTty)) return PLAIN_COLORS;
  colored ??= (require("picocolors") as typeof import("picocolors")).createColors(true);
  return colored;
}

/** Colours for stdout, decided from fd 1 without touching `process.stdout` (render/tty.ts). */
export function stdoutColors(): Colors {
  return colorsFor(process.env, stdoutIsTty());
}
