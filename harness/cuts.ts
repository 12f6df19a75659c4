import { appendFileSync, writeFileSync } from "node:fs";

/** Deterministic PRNG so a failing cut sequence can be reproduced. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Write the file in growing prefixes (cuts anywhere, mid-line included), ingesting after each. */
export function ingestInCuts(path: string, bytes: Uint8Array, cuts: number[], ingest: () => void): void {
  let prev = 0;
  writeFileSync(path, "");
  for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
    if (cut <= prev) continue;
    appendFileSync(path, bytes.subarray(prev, cut));
    prev = cut;
    ingest();
  }
}
