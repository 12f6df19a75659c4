import type { Colors, Formatter } from "picocolors/types";
import { colorEnabled, stdoutIsTty } from "./tty.ts";

export type { Colors };

const plain: Formatter = String;

/**
 * No colour: what renderers default to, and what goldens are written with (picocolors' own
 * `String`). Written out rather than built from a list of names: building it cost every read
 * command ~0.5 ms of a cold start (docs/benchmarks.md). `satisfies` fails the typecheck when
 * picocolors' list of formatters changes.
 */
export const PLAIN_COLORS = {
  isColorSupported: false,
  reset: plain,
  bold: plain,
  dim: plain,
  italic: plain,
  underline: plain,
  inverse: plain,
  hidden: plain,
  strikethrough: plain,
  black: plain,
  red: plain,
  green: plain,
  yellow: plain,
  blue: plain,
  magenta: plain,
  cyan: plain,
  white: plain,
  gray: plain,
  bgBlack: plain,
  bgRed: plain,
  bgGreen: plain,
  bgYellow: plain,
  bgBlue: plain,
  bgMagenta: plain,
  bgCyan: plain,
  bgWhite: plain,
  blackBright: plain,
  redBright: plain,
  greenBright: plain,
  yellowBright: plain,
  blueBright: plain,
  magentaBright: plain,
  cyanBright: plain,
  whiteBright: plain,
  bgBlackBright: plain,
  bgRedBright: plain,
  bgGreenBright: plain,
  bgYellowBright: plain,
  bgBlueBright: plain,
  bgMagentaBright: plain,
  bgCyanBright: plain,
  bgWhiteBright: plain,
} as const satisfies Colors;

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
