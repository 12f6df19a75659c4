/**
 * Does the port agree with the reference measurement it was written from? Runs both on the same
 * tree, back to back (the product moves under both, so figures from different moments do not
 * compare), then prints every headline figure side by side and the cuts whose facts or finds
 * differ. Exits 1 when a headline figure differs by more than one percentage point.
 *
 *   bun bench/continuation-agree.ts [--bash-view-limit N] [<reference .py>]
 *
 * The reference defaults to ../shared/tools/continuation_eval.py; a smaller view limit exercises
 * the view cut, which the product's pages now stay under.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASH_VIEW_LIMIT, type Row } from "./continuation/score.ts";
import { CORPUS_TRANSCRIPTS, corpusFiles, renderSummary, runContinuation } from "./continuation.ts";

const ROOT = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const li = args.indexOf("--bash-view-limit");
const viewLimit = li >= 0 ? Number(args.splice(li, 2)[1]) : BASH_VIEW_LIMIT;
const reference =
  args[0] ??
  process.env.CONTINUATION_REFERENCE ??
  join(ROOT, "..", "shared", "tools", "continuation_eval.py");
const HEADLINE = ["push", "c1", "c2", "c3"] as const;
const OTHER = ["c3_raw", "c4_detail_newest", "stored"] as const;
const TOLERANCE = 0.01;

if (!existsSync(reference) || !existsSync(CORPUS_TRANSCRIPTS)) {
  console.log(`continuation agreement: skipped, needs ${reference} and ${CORPUS_TRANSCRIPTS}`);
} else {
  const dir = mkdtempSync(join(tmpdir(), "conteval-agree-"));
  try {
    const refOut = join(dir, "ref.json");
    const t0 = performance.now();
    const py = Bun.spawnSync(
      ["python3", reference, "--jobs", "2", "--bash-view-limit", String(viewLimit), "--out", refOut],
      {
        cwd: ROOT,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    if (py.exitCode !== 0) throw new Error(`reference failed: ${py.stderr.toString().slice(-2000)}`);
    const t1 = performance.now();
    const port = await runContinuation(corpusFiles(CORPUS_TRANSCRIPTS), {
      jobs: 2,
      bashViewLimit: viewLimit,
    });
    const t2 = performance.now();
    const ref = JSON.parse(readFileSync(refOut, "utf8")) as {
      summary: {
        shared: Record<string, number | null>;
        cuts_with_error: number;
        turn_count_mismatch: number;
      };
      rows: Row[];
    };
    const a = ref.summary.shared;
    const b = port.summary.all;
    const pct = (x: number | null | undefined) => (typeof x === "number" ? (100 * x).toFixed(1) : "-");
    console.log(
      `reference ${((t1 - t0) / 1000).toFixed(1)}s, port ${((t2 - t1) / 1000).toFixed(1)}s; cuts ${a.cuts} / ${b.cuts}, facts ${a.facts} / ${b.facts}`,
    );
    console.log("figure                    reference     port   diff");
    let worst = 0;
    for (const avg of ["macro", "micro"])
      for (const key of [...HEADLINE, ...OTHER]) {
        const name = `${avg}_${key}`;
        const d = (b[name] ?? 0) - (a[name] ?? 0);
        const headline = (HEADLINE as readonly string[]).includes(key);
        if (headline) worst = Math.max(worst, Math.abs(d));
        console.log(
          `${name.padEnd(24)} ${pct(a[name]).padStart(10)} ${pct(b[name]).padStart(8)} ${(100 * d).toFixed(1).padStart(6)}${headline ? "" : "  (not headline)"}`,
        );
      }
    console.log(
      `cuts with an error ${ref.summary.cuts_with_error} / ${port.summary.cuts_with_error}; turn count mismatches ${ref.summary.turn_count_mismatch} / ${port.summary.turn_count_mismatch}`,
    );
    // The tallies beside the headline, key for key.
    const ps = port.summary as unknown as Record<string, unknown>;
    const rs = ref.summary as unknown as Record<string, unknown>;
    const tallies = [
      "kinds",
      "miss_reasons",
      "miss_reasons_detail",
      "calls",
      "view_cut_by_call",
      "missed",
      "missed_in_newest_turn",
      "facts_only_in_tool_output",
      "missed_only_in_tool_output",
    ];
    const canon = (v: unknown): string =>
      JSON.stringify(v, (_, x) =>
        x && typeof x === "object" && !Array.isArray(x)
          ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : 1)))
          : x,
      );
    const differ = tallies.filter((t) => canon(rs[t]) !== canon(ps[t]));
    for (const t of differ)
      console.log(`  ${t}: reference ${canon(rs[t])}\n  ${" ".repeat(t.length)}  port      ${canon(ps[t])}`);
    console.log(
      `tallies (by kind, by reason, calls, misses): ${differ.length === 0 ? "identical" : `${differ.length} differ`}`,
    );
    // Facts come from the transcripts alone: any difference there is the port's.
    const key = (r: Row) => `${r.file} k=${r.k}`;
    const mine = new Map(port.rows.map((r) => [key(r), r]));
    let factDiffs = 0;
    let findDiffs = 0;
    for (const r of ref.rows) {
      const p = mine.get(key(r));
      mine.delete(key(r));
      if (!p) {
        console.log(`  only in the reference: ${key(r)}`);
        continue;
      }
      const rf = (r.facts ?? []).map((f) => `${f.fact} (${f.kind})`);
      const pf = (p.facts ?? []).map((f) => `${f.fact} (${f.kind})`);
      if (rf.join("\n") !== pf.join("\n")) {
        factDiffs++;
        console.log(
          `  facts differ at ${key(r)}: reference only ${rf.filter((x) => !pf.includes(x)).join(", ") || "-"}; port only ${pf.filter((x) => !rf.includes(x)).join(", ") || "-"}`,
        );
        continue;
      }
      const finds = (r.facts ?? [])
        .map((f, i) => [f, p.facts![i]!] as const)
        .filter(([x, y]) => x.found_at !== y.found_at || (x.reason ?? "") !== (y.reason ?? ""));
      if (finds.length > 0) {
        findDiffs++;
        console.log(
          `  finds differ at ${key(r)}: ${finds
            .slice(0, 4)
            .map(([x, y]) => `${x.fact} ${x.found_at}/${y.found_at} ${x.reason ?? ""}/${y.reason ?? ""}`)
            .join("; ")}`,
        );
      }
    }
    for (const k of mine.keys()) console.log(`  only in the port: ${k}`);
    console.log(
      `cuts whose facts differ: ${factDiffs}; cuts whose finds differ: ${findDiffs}; largest headline difference ${(100 * worst).toFixed(1)} points (tolerance ${100 * TOLERANCE})`,
    );
    console.log(`\nthe port's run:\n${renderSummary(port.summary)}`);
    if (worst > TOLERANCE) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
