import type { Database } from "bun:sqlite";
import { CHAIN_SPANS } from "./schema-spans.ts";

/**
 * Migrations, in order. `PRAGMA user_version` holds how many have been applied. Embedded as
 * strings so the compiled binary carries them; never edit a shipped entry, append a new one.
 */
/**
 * Until schema 5 a merge moved the chain's rows to the new live end, so every row is keyed on
 * the live end of its chain: that is each session's chain key. Used by migration 5 and by
 * `import --from-export` of an export written before it (which carries no `chain`), where
 * `filter` limits it to the imported sessions. A merge cycle stops after 64 steps.
 */
export function legacyChainKeys(filter: string): string {
  return `
CREATE TEMP TABLE tl_chain_keys (id TEXT PRIMARY KEY, key TEXT NOT NULL);
WITH RECURSIVE up(id, cur, n) AS (
  SELECT id, id, 0 FROM sessions
  UNION ALL
  SELECT up.id, s.merged_into, up.n + 1 FROM up JOIN sessions s ON s.id = up.cur
  WHERE s.merged_into IS NOT NULL AND up.n < 64
)
INSERT OR REPLACE INTO tl_chain_keys (id, key) SELECT id, cur FROM up ORDER BY n;
UPDATE sessions SET chain = (SELECT key FROM tl_chain_keys k WHERE k.id = sessions.id) WHERE ${filter};
DROP TABLE tl_chain_keys;`;
}

/**
 * Attachments Claude Code writes for itself: stored, never indexed (migration 4, docs/search.md).
 * What `details_fts` holds of a row: its first 32 KiB. One definition for the triggers of
 * migration 9 and the one-pass indexing of a bulk ingest (src/db/queries/fts-deferral.ts).
 */
export const UNINDEXED_ATTACHMENT = (d: string) =>
  `(${d}.kind = 'attachment' AND coalesce(${d}.tool_name, '') IN ('prompt_snapshot', 'skill_listing',
    'agent_listing_delta', 'deferred_tools_delta', 'mcp_instructions_delta', 'environment', 'model', 'auto_mode',
    'session_context', 'date', 'date_change', 'remote_session_change', 'output_style', 'plan_mode', 'todo_reminder',
    'task_reminder', 'critical_system_reminder', 'token_usage', 'budget_usd', 'companion_intro', 'invoked_skills'))`;
export const DETAIL_FTS_TEXT = (d: string) =>
  `substr(coalesce(${d}.tool_name, '') || ' ' || coalesce(${d}.input, '') || char(10) || coalesce(${d}.output, ''), 1, 32768)`;
export const EVENT_FTS_TEXT = (e: string) => `${e}.type || ' ' || ${e}.summary || char(10) || ${e}.detail`;
/** Whether a new row of `table` waits for a bulk ingest's one indexing pass (its id is above the watermark). */
const DEFERRED = (table: "bodies" | "details" | "events") =>
  `EXISTS (SELECT 1 FROM fts_deferral WHERE id = 1 AND new.id > ${table}_from)`;

/**
 * A migration is SQL, or a function of the open database where SQL cannot decide (it reads
 * files); both run inside the one migration transaction (src/db/open.ts).
 */
export type Migration = string | ((db: Database) => void);

/**
 * FTS5 `usermerge` of every full-text index (migration 16): a `merge` step merges the segments of a
 * level once it holds this many. Two, not FTS5's 4: a search walks each term in each segment, and an
 * index whose pages sit mostly in one segment answers a query in about half the time (docs/search.md,
 * "After each Stop, one merge step").
 */
export const USERMERGE = 2;

export const MIGRATIONS: readonly Migration[] = [
  /* 1: initial schema */ `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  project TEXT,
  transcript_path TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  merged_into TEXT,
  title TEXT
);
CREATE INDEX sessions_project ON sessions(project, updated_at);
CREATE INDEX sessions_merged_into ON sessions(merged_into);

-- A chain is the set of turns whose session_id is its live end; bodies and details belong to
-- it through their turn, so a merge re-parents the turn rows only, never the large text rows.
CREATE TABLE turns (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  origin_session_id TEXT NOT NULL,
  turn_number INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER NOT NULL,
  user_chars INTEGER NOT NULL,
  assistant_chars INTEGER NOT NULL,
  UNIQUE (origin_session_id, turn_number)
);
CREATE INDEX turns_session_started ON turns(session_id, started_at, origin_session_id, turn_number);

CREATE TABLE bodies (
  id INTEGER PRIMARY KEY,
  turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  origin_session_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  text TEXT NOT NULL,
  final_text TEXT,
  UNIQUE (turn_id, role)
);

CREATE TABLE details (
  id INTEGER PRIMARY KEY,
  turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE,
  origin_session_id TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'transcript',
  ord INTEGER NOT NULL,
  kind TEXT NOT NULL,
  tool_name TEXT,
  tool_use_id TEXT,
  input TEXT,
  output TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  ikey TEXT NOT NULL UNIQUE
);
CREATE INDEX details_turn ON details(turn_id, ord);
CREATE INDEX details_origin ON details(origin_session_id, source);

CREATE TABLE skeletons (
  turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
  summary TEXT,
  backend TEXT NOT NULL,
  error TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  origin_session_id TEXT NOT NULL,
  project TEXT,
  turn_number INTEGER,
  seq INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  type TEXT NOT NULL,
  summary TEXT NOT NULL,
  detail TEXT NOT NULL,
  tool_use_id TEXT,
  ikey TEXT NOT NULL UNIQUE
);
CREATE INDEX events_session_ts ON events(session_id, ts);
CREATE INDEX events_project_ts ON events(project, ts);
CREATE INDEX events_origin_seq ON events(origin_session_id, seq);

CREATE TABLE handoff_batons (
  project TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE pending_handoffs (
  session_id TEXT PRIMARY KEY,
  project TEXT,
  source TEXT,
  predecessor TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE handoffs (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  path TEXT NOT NULL,
  predecessor TEXT,
  reason TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX handoffs_session ON handoffs(session_id, created_at);

CREATE TABLE ingest_cursors (
  transcript_path TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  offset INTEGER NOT NULL,
  turn_offset INTEGER NOT NULL,
  turn_number INTEGER NOT NULL,
  identity TEXT,
  size INTEGER NOT NULL,
  skipped_lines INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);
CREATE INDEX ingest_cursors_session ON ingest_cursors(session_id);

CREATE TABLE injections (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  total_chars INTEGER NOT NULL,
  budget INTEGER NOT NULL,
  injected_turns INTEGER NOT NULL,
  remaining_turns INTEGER NOT NULL,
  older_turns INTEGER NOT NULL,
  older_summarized INTEGER NOT NULL,
  truncated_newest INTEGER NOT NULL,
  boundary TEXT
);
CREATE INDEX injections_session ON injections(session_id, created_at);

CREATE TABLE hook_errors (
  id INTEGER PRIMARY KEY,
  event TEXT NOT NULL,
  session_id TEXT,
  message TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

-- Full-text search. Trigram so code identifiers, paths and Japanese match on substrings.
-- Contentless: the text lives once, in the base tables; snippets are cut from there.
CREATE VIRTUAL TABLE bodies_fts USING fts5(text, tokenize = 'trigram', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE details_fts USING fts5(text, tokenize = 'trigram', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE events_fts USING fts5(text, tokenize = 'trigram', content = '', contentless_delete = 1);

CREATE TRIGGER bodies_fts_insert AFTER INSERT ON bodies BEGIN
  INSERT INTO bodies_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER bodies_fts_delete AFTER DELETE ON bodies BEGIN
  DELETE FROM bodies_fts WHERE rowid = old.id;
END;
CREATE TRIGGER bodies_fts_update AFTER UPDATE OF text ON bodies BEGIN
  DELETE FROM bodies_fts WHERE rowid = old.id;
  INSERT INTO bodies_fts(rowid, text) VALUES (new.id, new.text);
END;
-- Only the first 32 KiB of a tool output is indexed: enough for what people search, and it
-- keeps the index from tripling the size of huge Read results.
CREATE TRIGGER details_fts_insert AFTER INSERT ON details BEGIN
  INSERT INTO details_fts(rowid, text) VALUES (new.id,
    substr(coalesce(new.tool_name, '') || ' ' || coalesce(new.input, '') || char(10) || coalesce(new.output, ''), 1, 32768));
END;
CREATE TRIGGER details_fts_delete AFTER DELETE ON details BEGIN
  DELETE FROM details_fts WHERE rowid = old.id;
END;
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
  INSERT INTO events_fts(rowid, text) VALUES (new.id, new.type || ' ' || new.summary || char(10) || new.detail);
END;
CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
  DELETE FROM events_fts WHERE rowid = old.id;
END;
`,
  /* 2: what linked each cleared session to its successor (docs/hooks.md, "Which session a /clear continues") */ `
-- One row per SessionEnd(reason "clear"): which client process cleared which session, and the
-- prompt_id of that event (older clients repeat it on the next SessionStart).
CREATE TABLE clear_links (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  project TEXT,
  client TEXT,
  prompt_id TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX clear_links_client ON clear_links(client, created_at);
CREATE INDEX clear_links_prompt ON clear_links(prompt_id);
CREATE INDEX clear_links_project ON clear_links(project, created_at);

ALTER TABLE pending_handoffs ADD COLUMN client TEXT;
ALTER TABLE pending_handoffs ADD COLUMN prompt_id TEXT;
ALTER TABLE pending_handoffs ADD COLUMN chosen_by TEXT;
ALTER TABLE pending_handoffs ADD COLUMN evidence TEXT;
-- How the predecessor was chosen: link | baton | fallback | none, and the evidence for it.
ALTER TABLE handoffs ADD COLUMN chosen_by TEXT;
ALTER TABLE handoffs ADD COLUMN evidence TEXT;
`,
  /* 3: the summarizer's daily ceiling counts today's rows per backend (README, "What the summarizer costs") */ `
CREATE INDEX skeletons_backend_created ON skeletons(backend, created_at);
`,
  /* 4: full-text indexes without positions, and no index of Claude Code's own context snapshots (docs/search.md) */ `
-- detail=none keeps one entry per (trigram, row) instead of every position: the indexes shrink
-- to about a fifth. A term is then looked up by its trigrams and verified as a substring of
-- the base row (src/db/queries/search.ts), which is what made the phrase query exact before.
DROP TRIGGER bodies_fts_insert;
DROP TRIGGER bodies_fts_delete;
DROP TRIGGER bodies_fts_update;
DROP TRIGGER details_fts_insert;
DROP TRIGGER details_fts_delete;
DROP TRIGGER events_fts_insert;
DROP TRIGGER events_fts_delete;
DROP TABLE bodies_fts;
DROP TABLE details_fts;
DROP TABLE events_fts;
CREATE VIRTUAL TABLE bodies_fts USING fts5(text, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE details_fts USING fts5(text, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE events_fts USING fts5(text, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1);

INSERT INTO bodies_fts(rowid, text) SELECT id, text FROM bodies;
-- Attachments Claude Code writes for itself (its system prompt, skill and agent listings,
-- tool lists, environment and date snapshots: 2.1.332 repeats them every session) are stored
-- but not indexed; nobody searches them, and they made up most of a new transcript's index.
INSERT INTO details_fts(rowid, text)
  SELECT id, substr(coalesce(tool_name, '') || ' ' || coalesce(input, '') || char(10) || coalesce(output, ''), 1, 32768)
  FROM details
  WHERE NOT (kind = 'attachment' AND coalesce(tool_name, '') IN ('prompt_snapshot', 'skill_listing',
    'agent_listing_delta', 'deferred_tools_delta', 'mcp_instructions_delta', 'environment', 'model', 'auto_mode',
    'session_context', 'date', 'date_change', 'remote_session_change', 'output_style', 'plan_mode', 'todo_reminder',
    'task_reminder', 'critical_system_reminder', 'token_usage', 'budget_usd', 'companion_intro', 'invoked_skills'));
INSERT INTO events_fts(rowid, text) SELECT id, type || ' ' || summary || char(10) || detail FROM events;
INSERT INTO bodies_fts(bodies_fts) VALUES ('optimize');
INSERT INTO details_fts(details_fts) VALUES ('optimize');
INSERT INTO events_fts(events_fts) VALUES ('optimize');

CREATE TRIGGER bodies_fts_insert AFTER INSERT ON bodies BEGIN
  INSERT INTO bodies_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER bodies_fts_delete AFTER DELETE ON bodies BEGIN
  DELETE FROM bodies_fts WHERE rowid = old.id;
END;
CREATE TRIGGER bodies_fts_update AFTER UPDATE OF text ON bodies BEGIN
  DELETE FROM bodies_fts WHERE rowid = old.id;
  INSERT INTO bodies_fts(rowid, text) VALUES (new.id, new.text);
END;
-- Only the first 32 KiB of a tool output is indexed: what people search is at the start, and
-- without positions the rest would add little but time.
CREATE TRIGGER details_fts_insert AFTER INSERT ON details
WHEN NOT (new.kind = 'attachment' AND coalesce(new.tool_name, '') IN ('prompt_snapshot', 'skill_listing',
    'agent_listing_delta', 'deferred_tools_delta', 'mcp_instructions_delta', 'environment', 'model', 'auto_mode',
    'session_context', 'date', 'date_change', 'remote_session_change', 'output_style', 'plan_mode', 'todo_reminder',
    'task_reminder', 'critical_system_reminder', 'token_usage', 'budget_usd', 'companion_intro', 'invoked_skills'))
BEGIN
  INSERT INTO details_fts(rowid, text) VALUES (new.id,
    substr(coalesce(new.tool_name, '') || ' ' || coalesce(new.input, '') || char(10) || coalesce(new.output, ''), 1, 32768));
END;
-- A row that was never indexed has nothing to delete: FTS5 ignores the rowid.
CREATE TRIGGER details_fts_delete AFTER DELETE ON details BEGIN
  DELETE FROM details_fts WHERE rowid = old.id;
END;
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
  INSERT INTO events_fts(rowid, text) VALUES (new.id, new.type || ' ' || new.summary || char(10) || new.detail);
END;
CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
  DELETE FROM events_fts WHERE rowid = old.id;
END;
`,
  /* 5: a chain's rows are keyed on the chain, so a merge is O(1) (docs/architecture.md, "Chains") */ `
ALTER TABLE sessions ADD COLUMN chain TEXT;
${legacyChainKeys("1")}
CREATE INDEX sessions_chain ON sessions(chain);
-- A session starts its own chain; a merge later gives it the key of the chain it joins.
CREATE TRIGGER sessions_chain_default AFTER INSERT ON sessions WHEN new.chain IS NULL BEGIN
  UPDATE sessions SET chain = new.id WHERE id = new.id;
END;
`,
  /* 6: a push after compaction is told from a handoff's (docs/contract.md, "After compaction") */ `
ALTER TABLE injections ADD COLUMN moment TEXT NOT NULL DEFAULT 'handoff';
`,
  /* 7: a session's project is the directory it started in (docs/project-identity.md, "Where a session started") */
  (db) =>
    (require("./start-project.ts") as typeof import("./start-project.ts")).fileSessionsWhereTheyStarted(db),
  /* 8: forks store only their own turns and link to the parent's turn they were forked after (docs/contract.md#forks) */ `
-- The uuid of the entry holding the turn's prompt. A fork's file repeats its parent's entries with
-- their uuids: a turn whose uuid another session already holds is a copy and is not stored twice.
ALTER TABLE turns ADD COLUMN uuid TEXT;
CREATE INDEX turns_uuid ON turns(uuid) WHERE uuid IS NOT NULL;
-- A fork: the uuid of the newest turn it copied. Its chain reads the chain holding that turn up
-- to and including it, then its own turns (docs/architecture.md, "Forks").
ALTER TABLE sessions ADD COLUMN fork_uuid TEXT;
`,
  /* 9: a bulk ingest indexes its rows in one pass at the end of each chunk, not row by row (docs/search.md, "During a bulk ingest") */ `
-- One row while any bulk ingest (replay, import) runs: rows with an id above the watermarks are
-- not indexed by the triggers below but by the ingest's one pass, which then raises the marks to
-- the newest id; the last ingest to end removes the row. Delete triggers stay unconditional:
-- deleting a rowid a contentless_delete index never held is a no-op.
CREATE TABLE fts_deferral (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  bodies_from INTEGER NOT NULL,
  details_from INTEGER NOT NULL,
  events_from INTEGER NOT NULL
);
-- Who holds the deferral: a writer that finds only dead owners (no such pid, or not seen for a
-- while) runs the pass itself and removes the row (src/db/queries/fts-deferral.ts).
CREATE TABLE fts_deferral_owners (
  pid INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (pid, started_at)
);
DROP TRIGGER bodies_fts_insert;
DROP TRIGGER bodies_fts_update;
DROP TRIGGER details_fts_insert;
DROP TRIGGER events_fts_insert;
CREATE TRIGGER bodies_fts_insert AFTER INSERT ON bodies WHEN NOT ${DEFERRED("bodies")} BEGIN
  INSERT INTO bodies_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER bodies_fts_update AFTER UPDATE OF text ON bodies BEGIN
  DELETE FROM bodies_fts WHERE rowid = old.id;
  INSERT INTO bodies_fts(rowid, text) SELECT new.id, new.text WHERE NOT ${DEFERRED("bodies")};
END;
CREATE TRIGGER details_fts_insert AFTER INSERT ON details
WHEN NOT ${UNINDEXED_ATTACHMENT("new")} AND NOT ${DEFERRED("details")}
BEGIN
  INSERT INTO details_fts(rowid, text) VALUES (new.id, ${DETAIL_FTS_TEXT("new")});
END;
CREATE TRIGGER events_fts_insert AFTER INSERT ON events WHEN NOT ${DEFERRED("events")} BEGIN
  INSERT INTO events_fts(rowid, text) VALUES (new.id, ${EVENT_FTS_TEXT("new")});
END;
`,
  /* 10: a push the Stop worker prepares, and the generation that tells when it went stale (docs/contract.md, "The prepared push") */ `
-- One counter, raised by every change to what a push is rendered from: turns, their bodies, tool
-- details and summaries, and how sessions form chains. A new session row does not raise it (a
-- SessionStart of another window changes no chain); a merge, a fork link or a forget does.
CREATE TABLE content_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT INTO content_generation (id, n) VALUES (1, 0);
-- An UPDATE that writes the values already there (an upsert of the same row) is no change.
CREATE TRIGGER turns_generation_insert AFTER INSERT ON turns BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER turns_generation_update AFTER UPDATE ON turns
  WHEN (old.session_id, old.origin_session_id, old.turn_number, old.started_at, old.ended_at, old.user_chars, old.assistant_chars, old.uuid) IS NOT (new.session_id, new.origin_session_id, new.turn_number, new.started_at, new.ended_at, new.user_chars, new.assistant_chars, new.uuid)
  BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER turns_generation_delete AFTER DELETE ON turns BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER bodies_generation_insert AFTER INSERT ON bodies BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER bodies_generation_update AFTER UPDATE ON bodies
  WHEN (old.turn_id, old.origin_session_id, old.role, old.text, old.final_text) IS NOT (new.turn_id, new.origin_session_id, new.role, new.text, new.final_text)
  BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER bodies_generation_delete AFTER DELETE ON bodies BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER details_generation_insert AFTER INSERT ON details BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER details_generation_update AFTER UPDATE ON details
  WHEN (old.turn_id, old.origin_session_id, old.source, old.ord, old.kind, old.tool_name, old.tool_use_id, old.input, old.output, old.is_error) IS NOT (new.turn_id, new.origin_session_id, new.source, new.ord, new.kind, new.tool_name, new.tool_use_id, new.input, new.output, new.is_error)
  BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER details_generation_delete AFTER DELETE ON details BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER skeletons_generation_insert AFTER INSERT ON skeletons BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER skeletons_generation_update AFTER UPDATE ON skeletons
  WHEN (old.summary, old.backend, old.error) IS NOT (new.summary, new.backend, new.error)
  BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER skeletons_generation_delete AFTER DELETE ON skeletons BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sessions_generation_update AFTER UPDATE OF chain, merged_into, fork_uuid, project ON sessions
  WHEN (old.chain, old.merged_into, old.fork_uuid, old.project) IS NOT (new.chain, new.merged_into, new.fork_uuid, new.project)
  BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sessions_generation_delete AFTER DELETE ON sessions BEGIN UPDATE content_generation SET n = n + 1 WHERE id = 1; END;
-- What the successor of a chain's live end would be pushed, rendered with a placeholder for the
-- successor's id, as of one generation; used by the handoff only when nothing changed since.
CREATE TABLE prepared_pushes (
  session_id TEXT PRIMARY KEY,
  generation INTEGER NOT NULL,
  version TEXT NOT NULL,
  invocation TEXT NOT NULL,
  placeholder TEXT NOT NULL,
  text TEXT NOT NULL,
  stats TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
ALTER TABLE injections ADD COLUMN prepared INTEGER NOT NULL DEFAULT 0;
`,
  /* 11: smaller rows per turn (docs/architecture.md, "What a row costs") */ `
-- A tool detail of a turn is found through its turn (details_turn); only the rows before a first
-- prompt, which have no turn, are looked up by the transcript they came from. New rows key a
-- turn's details on its row id and store a reply that is all of the turn's text once (FINAL_TEXT):
-- rows written before keep their form, and every read takes both (src/db/row-forms.ts).
DROP INDEX details_origin;
CREATE INDEX details_loose ON details(origin_session_id) WHERE turn_id IS NULL;
-- A bulk ingest's pass holds up to 8 MiB of an index's new entries before it writes a segment
-- (the default is 1 MiB): one segment per pass instead of several merged on the way, about a
-- tenth smaller (docs/benchmarks.md, "What a row costs"). A hook's few rows never come near it.
INSERT INTO bodies_fts(bodies_fts, rank) VALUES ('hashsize', 8388608);
INSERT INTO details_fts(details_fts, rank) VALUES ('hashsize', 8388608);
INSERT INTO events_fts(events_fts, rank) VALUES ('hashsize', 8388608);
`,
  /* 12: where in a turn's reply each of its rows happened (docs/ui.md, "A chain reads as a conversation") */ `
-- Characters of the stored reply (bodies.text) written before the row happened; NULL for rows
-- written before (the web view then shows the reply's text before the turn's tool calls).
ALTER TABLE details ADD COLUMN text_at INTEGER;
`,
  /* 13: sync through a git remote (docs/sync.md) */ `
-- This machine's id, the recorded remote, the last sync: one row each.
CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- What this machine published: per turn of its own (n = -1: the rows before a first prompt), the
-- hash of its records; and per session of its own, a mark of its rows when last published.
CREATE TABLE sync_sent (origin TEXT NOT NULL, n INTEGER NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (origin, n)) WITHOUT ROWID;
CREATE TABLE sync_marks (session_id TEXT PRIMARY KEY, mark TEXT NOT NULL) WITHOUT ROWID;
-- Sessions captured on another machine, with the project identity that machine gave them.
CREATE TABLE sync_foreign (session_id TEXT PRIMARY KEY, machine TEXT NOT NULL, project_key TEXT,
  project TEXT) WITHOUT ROWID;
-- Per turn of another machine, the hash of the records last applied; the files applied.
CREATE TABLE sync_seen (origin TEXT NOT NULL, n INTEGER NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (origin, n)) WITHOUT ROWID;
CREATE TABLE sync_applied (machine TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (machine, name)) WITHOUT ROWID;
-- What forget removed, here (machine NULL) or on another machine: keys only, never text.
CREATE TABLE sync_tombstones (kind TEXT NOT NULL, key TEXT NOT NULL, machine TEXT,
  created_at INTEGER NOT NULL, published INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (kind, key)) WITHOUT ROWID;
-- A project directory's identity across machines (root commit or origin), null when it has none.
CREATE TABLE sync_projects (path TEXT PRIMARY KEY, key TEXT, checked_at INTEGER NOT NULL) WITHOUT ROWID;
-- Batons of other machines already taken in (a consumed one is not taken again).
CREATE TABLE sync_batons (session_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, created_at)) WITHOUT ROWID;
`,
  /* 14: which agent a session ran in (docs/hosts.md) */ `
-- 'codex' for a session read from a Codex rollout; NULL is Claude Code (every session before).
ALTER TABLE sessions ADD COLUMN host TEXT;
UPDATE sessions SET host = 'codex' WHERE transcript_path LIKE '%/rollout-%.jsonl';
`,
  /* 15: where each chain's rows lie in the searched tables (docs/search.md, "Scopes") */ CHAIN_SPANS,
  /* 16: a merge step merges a level of an index at two segments (docs/search.md, "After each Stop") */ `
INSERT INTO bodies_fts(bodies_fts, rank) VALUES ('usermerge', ${USERMERGE});
INSERT INTO details_fts(details_fts, rank) VALUES ('usermerge', ${USERMERGE});
INSERT INTO events_fts(events_fts, rank) VALUES ('usermerge', ${USERMERGE});
`,
];
