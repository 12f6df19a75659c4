/**
 * The web view's page weight (docs/ui.md, "Page weight"): replays a folder of transcripts (default
 * ../shared/corpus/transcripts) into a temp home, serves it and prints the bytes of each chain's
 * first page, fewest turns first. `bun bench/ui-weight.ts [folder]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replay } from "../src/capture/replay.ts";
import { startUi } from "../src/commands/_ui-server.ts";
import { openForRead, openForWrite } from "../src/db/open.ts";

const folder = process.argv[2] ?? join(import.meta.dir, "..", "..", "shared", "corpus", "transcripts");
const home = mkdtempSync(join(tmpdir(), "tl-ui-weight-"));
try {
  const path = join(home, "throughline.db");
  const w = openForWrite(path);
  replay(w, [folder]);
  w.close();
  const db = openForRead(path);
  const chains = db
    .query<{ s: string; n: number }, []>(
      "SELECT session_id AS s, count(*) AS n FROM turns GROUP BY session_id ORDER BY n, s",
    )
    .all();
  db.close();
  const server = await startUi({ dbPath: path, port: 0, configDir: home, invocation: "throughline" });
  for (const c of chains) {
    const res = await fetch(`http://127.0.0.1:${server.port}/chain?s=${c.s}`, {
      headers: { cookie: `tl_ui=${server.token}` },
    });
    const bytes = (await res.arrayBuffer()).byteLength;
    console.log(`${c.s.slice(0, 8)}\t${c.n} turns\t${bytes.toLocaleString("en-US")} bytes`);
  }
  await server.stop();
} finally {
  rmSync(home, { recursive: true, force: true });
}
