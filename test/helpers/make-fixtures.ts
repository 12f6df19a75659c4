/**
 * Writes the project's own transcript fixtures (test/fixtures/transcripts/*.jsonl) and the
 * bundled sample session. Run `bun test/helpers/make-fixtures.ts` after changing it; the
 * output is committed so that each fixture can be read and reviewed as a file.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TranscriptBuilder } from "../../harness/transcript.ts";
import { SECRETS } from "./secrets.ts";

const root = join(import.meta.dir, "..", "fixtures");
const out = join(root, "transcripts");
mkdirSync(out, { recursive: true });
const write = (name: string, text: string) => writeFileSync(join(out, name), text);

// Truncated last line: Claude Code was still writing it.
{
  const b = new TranscriptBuilder("11111111-0000-4000-8000-000000000001");
  b.user("Add a health check endpoint").say("Added GET /health returning 200.");
  b.user("Now add a test for it");
  const text = b.text();
  write(
    "truncated-last-line.jsonl",
    `${text}{"type":"assistant","uuid":"x","message":{"id":"m","content":[{"type":"te`,
  );
}

// A complete line in the middle that is not JSON, and an unknown entry type.
{
  const b = new TranscriptBuilder("11111111-0000-4000-8000-000000000002");
  b.user("Rename the config loader").say("Renamed loadConfig to readConfig.");
  b.raw("this line is not JSON at all");
  b.raw({
    type: "hologram",
    uuid: "zz-1",
    timestamp: b.time,
    sessionId: b.sessionId,
    payload: { anything: true },
  });
  b.user("Update the docs too").say("Docs updated.");
  write("bad-lines.jsonl", b.text());
}

// Empty thinking (2.1.8x+ writes only a signature) next to real thinking.
{
  const b = new TranscriptBuilder(
    "11111111-0000-4000-8000-000000000003",
    "/home/dev/project",
    "2026-04-10T10:00:00.000Z",
    "2.1.90",
  );
  b.user("Why is the build slow?");
  b.assistant([{ type: "thinking", thinking: "", signature: "sig-empty" }]);
  b.assistant([
    { type: "thinking", thinking: "The bundler runs twice because of the watch flag.", signature: "sig" },
  ]);
  b.say("The bundler runs twice; drop --watch from the build script.");
  write("thinking.jsonl", b.text());
}

// An image inside a tool result, and one pasted in a prompt: markers only, never base64.
{
  const b = new TranscriptBuilder("11111111-0000-4000-8000-000000000004");
  const png = Buffer.alloc(3000, 7).toString("base64");
  b.user([
    { type: "text", text: "Here is the broken layout" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
  ]);
  b.tool("Read", { file_path: "/home/dev/project/shot.png" }, "", {
    result: { type: "image", file: { base64: png, type: "image/png" } },
  });
  const last = JSON.parse(b.lines.pop()!);
  last.message.content[0].content = [
    { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
  ];
  b.raw(last);
  b.say("The sidebar overflows; set min-width: 0 on the flex child.");
  write("images.jsonl", b.text());
}

// Old style: inline sidechain (Task subagent) lines inside the main file.
{
  const b = new TranscriptBuilder(
    "11111111-0000-4000-8000-000000000005",
    "/home/dev/project",
    "2025-07-20T10:00:00.000Z",
    "1.0.53",
  );
  b.user("Find every TODO in src");
  b.assistant([
    {
      type: "tool_use",
      id: "toolu_task1",
      name: "Task",
      input: { description: "find todos", prompt: "List TODOs in src" },
    },
  ]);
  b.raw({
    parentUuid: null,
    isSidechain: true,
    type: "user",
    uuid: "side-1",
    sessionId: b.sessionId,
    timestamp: b.tick().time,
    message: { role: "user", content: "List TODOs in src" },
  });
  b.raw({
    parentUuid: "side-1",
    isSidechain: true,
    type: "assistant",
    uuid: "side-2",
    sessionId: b.sessionId,
    timestamp: b.tick().time,
    message: {
      id: "msg_side",
      role: "assistant",
      content: [{ type: "text", text: "Found 3 TODOs in src/app.ts." }],
    },
  });
  b.raw({
    parentUuid: "side-1",
    isSidechain: false,
    type: "user",
    uuid: "res-1",
    sessionId: b.sessionId,
    timestamp: b.tick().time,
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_task1", content: "Found 3 TODOs in src/app.ts." }],
    },
  });
  b.say("There are 3 TODOs, all in src/app.ts.");
  write("inline-sidechain.jsonl", b.text());
}

// New style: a subagent transcript in <session>/subagents/agent-<id>.jsonl.
{
  const sid = "11111111-0000-4000-8000-000000000006";
  const b = new TranscriptBuilder(sid, "/home/dev/project", "2026-02-01T12:00:00.000Z", "2.1.39");
  b.user("Review the auth module");
  b.tool(
    "Task",
    { description: "review auth", prompt: "Review src/auth.ts", subagent_type: "general-purpose" },
    "Auth looks fine except token expiry.",
    {
      result: {
        status: "completed",
        agentId: "a1b2c3d",
        content: [{ type: "text", text: "Auth looks fine" }],
      },
    },
  );
  b.say("The review found one issue: tokens never expire.");
  write("with-subagent.jsonl", b.text());
  const s = new TranscriptBuilder(sid, "/home/dev/project", "2026-02-01T12:00:01.500Z", "2.1.39");
  s.user("Review src/auth.ts", { isSidechain: true, agentId: "a1b2c3d" });
  s.tool("Read", { file_path: "/home/dev/project/src/auth.ts" }, "export function login() {}", {});
  s.assistant([{ type: "text", text: "Auth looks fine except token expiry." }], {
    isSidechain: true,
    agentId: "a1b2c3d",
  });
  const lines = s.lines.map((l) => {
    const e = JSON.parse(l);
    e.isSidechain = true;
    e.agentId = "a1b2c3d";
    return JSON.stringify(e);
  });
  mkdirSync(join(out, sid, "subagents"), { recursive: true });
  writeFileSync(join(out, sid, "subagents", "agent-a1b2c3d.jsonl"), `${lines.join("\n")}\n`);
}

// Old compaction: an isCompactSummary user starts a new root, no system marker.
{
  const b = new TranscriptBuilder(
    "11111111-0000-4000-8000-000000000007",
    "/home/dev/project",
    "2025-07-16T20:00:00.000Z",
    "1.0.53",
  );
  b.user("Port the parser to Rust").say("Ported the lexer; the parser is next.");
  b.user(
    "This session is being continued from a previous conversation that ran out of context. Summary: porting parser.",
    {
      isCompactSummary: true,
      parentUuid: null,
    },
  );
  b.user("Continue with the parser").say("Parser ported; all 40 tests pass.");
  write("compaction-old.jsonl", b.text());
}

// New compaction: system compact_boundary, then the summary user (isCompactSummary).
{
  const b = new TranscriptBuilder(
    "11111111-0000-4000-8000-000000000008",
    "/home/dev/project",
    "2026-02-11T20:00:00.000Z",
    "2.1.39",
  );
  b.user("Refactor the scheduler").say("Split the scheduler into queue and worker.");
  b.system("compact_boundary", {
    content: "Conversation compacted",
    parentUuid: null,
    logicalParentUuid: "x",
    compactMetadata: { trigger: "auto", preTokens: 155000 },
  });
  b.user(
    "This session is being continued from a previous conversation. Summary: scheduler refactor in progress.",
    {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    },
  );
  b.say("Continuing: the worker now retries failed jobs.");
  b.user("Add backoff to the retries").say("Added exponential backoff capped at 30 s.");
  write("compaction-new.jsonl", b.text());
}

// Band E (2.1.8x+): attachment entries, custom-title, permission-mode, last-prompt, agent-name,
// machine-inserted prompts, a slash command and IDE context blocks.
{
  const sid = "11111111-0000-4000-8000-000000000009";
  const b = new TranscriptBuilder(sid, "/home/dev/project", "2026-04-14T08:00:00.000Z", "2.1.97");
  b.raw({ type: "permission-mode", permissionMode: "acceptEdits", sessionId: sid });
  b.raw({ type: "custom-title", customTitle: "Billing export", sessionId: sid });
  b.raw({ type: "agent-name", agentName: "billing", sessionId: sid });
  b.user(
    "<ide_opened_file>The user opened src/billing.ts in the IDE.</ide_opened_file>Export invoices as CSV",
    {
      promptId: "p1",
      entrypoint: "cli",
    },
  );
  b.tick();
  b.raw({
    parentUuid: null,
    isSidechain: false,
    type: "attachment",
    uuid: "att-1",
    timestamp: b.time,
    sessionId: sid,
    attachment: {
      type: "hook_success",
      hookName: "UserPromptSubmit",
      hookEvent: "UserPromptSubmit",
      content: "ok",
      durationMs: 12,
      toolUseID: "hook-1",
    },
  });
  b.raw({
    parentUuid: null,
    isSidechain: false,
    type: "attachment",
    uuid: "att-2",
    timestamp: b.time,
    sessionId: sid,
    attachment: { type: "skill_listing", content: "skills: csv" },
  });
  b.assistant([{ type: "text", text: "Added exportInvoicesCsv() in src/billing.ts." }], {
    attributionSkill: "csv",
  });
  b.system("stop_hook_summary", {
    hookCount: 1,
    hookInfos: [{ command: "throughline hook stop" }],
    hookErrors: [],
    preventedContinuation: false,
  });
  b.system("turn_duration", { durationMs: 5400, messageCount: 4 });
  b.user(
    "<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>billing</command-args>",
  );
  b.user("Review the billing module carefully.", { isMeta: true });
  b.say("Review: the CSV writer does not escape commas.");
  b.user("<local-command-stdout>Compacted</local-command-stdout>");
  b.user("[Request interrupted by user]");
  b.user("<task-notification>Background task finished</task-notification>");
  b.raw({ type: "last-prompt", lastPrompt: "Review the billing module", sessionId: sid });
  b.raw({
    type: "queue-operation",
    operation: "enqueue",
    content: "later",
    timestamp: b.time,
    sessionId: sid,
  });
  write("band-e-shapes.jsonl", b.text());
}

// The sample session the README's quick start replays.
{
  const b = new TranscriptBuilder(
    "5a3c9e10-7d2b-4f6a-9c1e-0b8d2f4a6c13",
    "/home/dev/todo-api",
    "2026-11-30T09:12:03.000Z",
    "2.1.97",
  );
  b.raw({ type: "custom-title", customTitle: "todo-api: due dates", sessionId: b.sessionId });
  b.user("Add a due date to todos in the todo API. Keep the tests green.");
  b.assistant([
    {
      type: "thinking",
      thinking: "Todo lives in src/todo.ts; validation in src/validate.ts.",
      signature: "s",
    },
  ]);
  b.say("Let me look at the Todo model first.");
  b.tool(
    "Read",
    { file_path: "/home/dev/todo-api/src/todo.ts" },
    "export interface Todo { id: string; title: string; done: boolean }",
    {
      result: { type: "text", file: { filePath: "/home/dev/todo-api/src/todo.ts", numLines: 1 } },
    },
  );
  b.tool(
    "Edit",
    {
      file_path: "/home/dev/todo-api/src/todo.ts",
      old_string: "done: boolean }",
      new_string: "done: boolean; dueDate?: string }",
    },
    "The file /home/dev/todo-api/src/todo.ts has been updated.",
    {
      result: {
        filePath: "/home/dev/todo-api/src/todo.ts",
        oldString: "done: boolean }",
        newString: "done: boolean; dueDate?: string }",
      },
    },
  );
  b.say("Added an optional `dueDate` (ISO date string) to `Todo` in src/todo.ts.");
  b.tick(60_000);
  b.user("Validate it: reject dates that are not YYYY-MM-DD.");
  b.tool(
    "Write",
    {
      file_path: "/home/dev/todo-api/src/validate.ts",
      content: "export const isDay = (s: string) => /^\\d{4}-\\d{2}-\\d{2}$/.test(s);\n",
    },
    "File created successfully at: /home/dev/todo-api/src/validate.ts",
    { result: { type: "create", filePath: "/home/dev/todo-api/src/validate.ts" } },
  );
  b.tool("Bash", { command: "bun test", description: "Run tests" }, "1 fail: validate rejects 2026-13-01", {
    isError: true,
    result: "Error: 1 fail",
  });
  b.say("The regex accepts month 13. Switching to a real date parse.");
  b.tool(
    "Edit",
    { file_path: "/home/dev/todo-api/src/validate.ts", old_string: "/^\\d{4}", new_string: "isValidDay(" },
    "The file /home/dev/todo-api/src/validate.ts has been updated.",
  );
  b.tool("Bash", { command: "bun test" }, "12 pass, 0 fail");
  b.say("`isDay` now parses the date and checks month and day ranges; all 12 tests pass.");
  b.tick(120_000);
  b.user("Commit it");
  b.tool(
    "Bash",
    { command: 'git add -A && git commit -m "feat: optional due dates on todos"' },
    "[main 4f2a9c1] feat: optional due dates on todos",
  );
  b.say('Committed as 4f2a9c1 "feat: optional due dates on todos".');
  b.tick(300_000);
  b.user("Next: list overdue todos. Plan first, don't code yet.");
  b.say(
    "Plan:\n1. Add `overdue(now)` in src/todo.ts filtering open todos with dueDate < today.\n2. Expose GET /todos/overdue in src/routes.ts.\n3. Tests for timezone edges (UTC midnight).\nShall I go ahead?",
  );
  const text = b.text();
  // The sample ships with the product (the demo command replays it).
  writeFileSync(join(root, "..", "..", "src", "sample", "todo-api-session.jsonl"), text);
}

{
  const s = SECRETS;
  const b = new TranscriptBuilder("22222222-0000-4000-8000-00000000000f");
  b.user(
    `Deploy with AWS key ${s.aws_access_key} and GitHub token ${s.github_token}; the OpenAI key is ${s.openai_key}. <private>my bank PIN is 9999</private>`,
  );
  b.tool(
    "Bash",
    {
      command: `curl -H "Authorization: Bearer ${s.bearer}" https://api.example.com && psql postgres://app:${s.db_password}@db.internal:5432/prod`,
    },
    `aws_secret_access_key = ${s.aws_secret_key}\nSLACK=${s.slack_token}\nwebhook ${s.slack_webhook}`,
  );
  b.tool(
    "Write",
    {
      file_path: "/home/dev/project/.env",
      content: `export API_TOKEN=${s.env_secret}\nSTRIPE_SECRET_KEY=${s.stripe_key}\nANTHROPIC_API_KEY=${s.anthropic_key}\n`,
    },
    "File created successfully",
  );
  b.tool(
    "Read",
    { file_path: "/home/dev/project/keys.txt" },
    `-----BEGIN RSA PRIVATE KEY-----\n${s.private_key_body}\n-----END RSA PRIVATE KEY-----\ngoogle ${s.google_api_key}\nnpm ${s.npm_token}\nhf ${s.huggingface_token}\ngitlab ${s.gitlab_token}\n${s.github_pat}\nDefaultEndpointsProtocol=https;AccountName=x;AccountKey=${s.azure_key}\n{"password": "${s.json_password}"}`,
  );
  b.say(`Session token was ${s.jwt}; rotate it.`);
  write("secrets.jsonl", b.text());
}
console.log(`fixtures written under ${root}`);
