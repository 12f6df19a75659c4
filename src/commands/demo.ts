import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replay } from "../capture/replay.ts";
import { renderContext } from "../core/context.ts";
import { commandLine, selfInvocation, shellQuote } from "../core/invocation.ts";
import { withWriter } from "../db/open.ts";
import { loadContextInput } from "../db/queries/chain.ts";
import sample from "../sample/todo-api-session.jsonl" with { type: "text" };
import { dbArgs } from "./_args.ts";
import { defineCommand } from "./_define.ts";

export default defineCommand({
  meta: {
    name: "demo",
    examples: ["throughline demo"],
    description:
      "Replay the bundled sample session into a scratch database and print the resume context it would push",
  },
  args: { ...dbArgs },
  run({ args }) {
    const dir = mkdtempSync(join(tmpdir(), "throughline-demo-"));
    const file = join(dir, "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13.jsonl");
    writeFileSync(file, sample);
    const dbPath = args.db ?? join(dir, "throughline.db");
    withWriter(dbPath, (db) => {
      const report = replay(db, [file]);
      const s = report.sessions[0]!;
      console.log(
        `Replayed the sample session: ${s.turns} turns, ${s.details} L3 details, ${s.events} activity events.`,
      );
      console.log(`Database: ${dbPath}\n`);
      console.log("─── what the model receives at its first prompt after /clear ───");
      console.log(renderContext(loadContextInput(db, s.session_id), selfInvocation()).text);
      console.log("─── end ───\n");
      // Each line runs as printed, from any directory: this program's own invocation, and the
      // sample's session named (its project is /home/dev/todo-api, not where the demo runs).
      const env = `THROUGHLINE_DB=${shellQuote(dbPath)}`;
      const inv = selfInvocation();
      const session = ["--session", s.session_id];
      console.log(`Try the commands above with ${env} in front of them, e.g.`);
      for (const args of [
        ["recall", "edits"],
        ["detail", "09:13"],
        ["search", "due date"],
      ])
        console.log(`  ${env} ${commandLine(inv, args[0]!, ...args.slice(1), ...session)}`);
    });
  },
});
