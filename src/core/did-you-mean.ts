/**
 * "Did you mean …?" for a mistyped command or flag name (docs/contract.md: an unknown name is an
 * error naming it, never a silent guess). Pure.
 */

/** Edit distance with adjacent transpositions (`hepl` → `help` is one edit). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `given`: a unique name it starts (`sess` → `session`), else the
 * nearest within a third of its length (at least one edit, at most two); null when none is close.
 */
export function closestName(given: string, known: readonly string[]): string | null {
  const word = given.toLowerCase();
  if (word === "") return null;
  const starts = known.filter((k) => k.startsWith(word));
  if (starts.length === 1) return starts[0]!;
  const limit = Math.min(2, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = editDistance(word, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}
