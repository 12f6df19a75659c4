/** Plain-text table with left-aligned columns; numbers right-aligned. */
export function renderTable(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells
    .map((r, ri) =>
      r
        .map((c, i) => {
          const numeric = ri > 0 && typeof rows[ri - 1]?.[i] === "number";
          return numeric ? c.padStart(widths[i]!) : c.padEnd(widths[i]!);
        })
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
