-- +goose Up
-- +goose StatementBegin
CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    project          TEXT NOT NULL,
    agent            TEXT NOT NULL DEFAULT '',
    agent_type       TEXT NOT NULL DEFAULT '',
    cwd              TEXT NOT NULL DEFAULT '',
    parent_id        TEXT NOT NULL DEFAULT '',
    started_at       INTEGER NOT NULL,
    last_activity_at INTEGER NOT NULL,
    ended_at         INTEGER,
    prompt_count     INTEGER NOT NULL DEFAULT 0,
    status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    files_read       TEXT NOT NULL DEFAULT '[]',
    last_message     TEXT NOT NULL DEFAULT ''
);
-- +goose StatementEnd
CREATE INDEX sessions_project_activity ON sessions (project, last_activity_at DESC);
CREATE INDEX sessions_status_activity ON sessions (status, last_activity_at);

-- +goose StatementBegin
CREATE TABLE observations (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT NOT NULL UNIQUE,
    session_id     TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    project        TEXT NOT NULL,
    type           TEXT NOT NULL,
    title          TEXT NOT NULL,
    subtitle       TEXT NOT NULL DEFAULT '',
    narrative      TEXT NOT NULL DEFAULT '',
    facts          TEXT NOT NULL DEFAULT '[]',
    concepts       TEXT NOT NULL DEFAULT '[]',
    files_read     TEXT NOT NULL DEFAULT '[]',
    files_modified TEXT NOT NULL DEFAULT '[]',
    agent_type     TEXT NOT NULL DEFAULT '',
    tool_name      TEXT NOT NULL DEFAULT '',
    prompt_number  INTEGER NOT NULL DEFAULT 0,
    content_hash   TEXT NOT NULL,
    token_count    INTEGER NOT NULL DEFAULT 0,
    search_terms   TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    UNIQUE (session_id, content_hash)
);
-- +goose StatementEnd
CREATE INDEX observations_project_created ON observations (project, created_at DESC);
CREATE INDEX observations_session_created ON observations (session_id, created_at);

-- One row per file an observation touched, kept by triggers, so that "what do
-- we know about this file" is an index lookup rather than a scan of JSON.
CREATE TABLE observation_files (
    path           TEXT NOT NULL,
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    modified       INTEGER NOT NULL,
    PRIMARY KEY (path, observation_id, modified)
) WITHOUT ROWID;
CREATE INDEX observation_files_observation ON observation_files (observation_id);

CREATE VIRTUAL TABLE observations_fts USING fts5 (
    title, subtitle, narrative, facts, concepts, files_read, files_modified, search_terms,
    content = 'observations', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
    INSERT INTO observations_fts (rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified, search_terms)
    VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts, new.files_read, new.files_modified, new.search_terms);
    INSERT OR IGNORE INTO observation_files (path, observation_id, modified)
    SELECT value, new.id, 0 FROM json_each(new.files_read)
    UNION SELECT value, new.id, 1 FROM json_each(new.files_modified);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified, search_terms)
    VALUES ('delete', old.id, old.title, old.subtitle, old.narrative, old.facts, old.concepts, old.files_read, old.files_modified, old.search_terms);
    DELETE FROM observation_files WHERE observation_id = old.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER observations_au AFTER UPDATE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified, search_terms)
    VALUES ('delete', old.id, old.title, old.subtitle, old.narrative, old.facts, old.concepts, old.files_read, old.files_modified, old.search_terms);
    INSERT INTO observations_fts (rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified, search_terms)
    VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts, new.files_read, new.files_modified, new.search_terms);
    DELETE FROM observation_files WHERE observation_id = old.id;
    INSERT OR IGNORE INTO observation_files (path, observation_id, modified)
    SELECT value, new.id, 0 FROM json_each(new.files_read)
    UNION SELECT value, new.id, 1 FROM json_each(new.files_modified);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TABLE summaries (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT NOT NULL UNIQUE,
    session_id   TEXT NOT NULL UNIQUE REFERENCES sessions (id) ON DELETE CASCADE,
    project      TEXT NOT NULL,
    request      TEXT NOT NULL DEFAULT '',
    investigated TEXT NOT NULL DEFAULT '',
    learned      TEXT NOT NULL DEFAULT '',
    completed    TEXT NOT NULL DEFAULT '',
    next_steps   TEXT NOT NULL DEFAULT '',
    decisions    TEXT NOT NULL DEFAULT '',
    concepts     TEXT NOT NULL DEFAULT '[]',
    files        TEXT NOT NULL DEFAULT '[]',
    text         TEXT NOT NULL DEFAULT '',
    generator    TEXT NOT NULL DEFAULT 'extractive',
    token_count  INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    covers_until INTEGER NOT NULL DEFAULT 0
);
-- +goose StatementEnd
CREATE INDEX summaries_project_created ON summaries (project, created_at DESC);

CREATE VIRTUAL TABLE summaries_fts USING fts5 (
    request, investigated, learned, completed, next_steps, decisions, concepts, files, text,
    content = 'summaries', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER summaries_ai AFTER INSERT ON summaries BEGIN
    INSERT INTO summaries_fts (rowid, request, investigated, learned, completed, next_steps, decisions, concepts, files, text)
    VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.decisions, new.concepts, new.files, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summaries_ad AFTER DELETE ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, request, investigated, learned, completed, next_steps, decisions, concepts, files, text)
    VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.decisions, old.concepts, old.files, old.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summaries_au AFTER UPDATE ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, request, investigated, learned, completed, next_steps, decisions, concepts, files, text)
    VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.decisions, old.concepts, old.files, old.text);
    INSERT INTO summaries_fts (rowid, request, investigated, learned, completed, next_steps, decisions, concepts, files, text)
    VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.decisions, new.concepts, new.files, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TABLE prompts (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    project       TEXT NOT NULL,
    prompt_number INTEGER NOT NULL,
    text          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (session_id, prompt_number)
);
-- +goose StatementEnd
CREATE INDEX prompts_project_created ON prompts (project, created_at DESC);

CREATE VIRTUAL TABLE prompts_fts USING fts5 (
    text, content = 'prompts', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER prompts_ai AFTER INSERT ON prompts BEGIN
    INSERT INTO prompts_fts (rowid, text) VALUES (new.id, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER prompts_ad AFTER DELETE ON prompts BEGIN
    INSERT INTO prompts_fts (prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER prompts_au AFTER UPDATE ON prompts BEGIN
    INSERT INTO prompts_fts (prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO prompts_fts (rowid, text) VALUES (new.id, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TABLE pending_context (
    session_id TEXT NOT NULL,
    source     TEXT NOT NULL,
    entry_id   TEXT NOT NULL,
    content    TEXT NOT NULL,
    priority   INTEGER NOT NULL DEFAULT 1,
    persistent INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, source, entry_id)
);
-- +goose StatementEnd

-- Things a session has already been given or has already seen, so that each
-- reaches it once: delivered observations, directories whose AGENTS.md was
-- read, rule files applied, recent triggers.
-- +goose StatementBegin
CREATE TABLE session_marks (
    session_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, kind, key)
) WITHOUT ROWID;
-- +goose StatementEnd

-- Named leases: one holder at a time until expires_at, so that a crashed
-- holder does not block the next run (the nightly summarize job).
-- +goose StatementBegin
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);
-- +goose StatementEnd

-- +goose Down
DROP TABLE leases;
DROP TABLE session_marks;
DROP TABLE pending_context;
DROP TABLE prompts_fts;
DROP TABLE prompts;
DROP TABLE summaries_fts;
DROP TABLE summaries;
DROP TABLE observations_fts;
DROP TABLE observation_files;
DROP TABLE observations;
DROP TABLE sessions;
