-- +goose Up
-- Files mem reads memory from besides its own database: the agents' built-in
-- memories (Claude Code's auto memory, Codex memories, Gemini CLI's memory
-- files) and a repository's shared memory file. A file is read again only
-- when its size or modification time changed (a stat at session start), and
-- its entries imported again only when its content hash changed.
CREATE TABLE source_files (
    path    TEXT NOT NULL,
    project TEXT NOT NULL,
    kind    TEXT NOT NULL,            -- claude | codex | gemini | repository
    size    INTEGER NOT NULL,
    mtime   INTEGER NOT NULL,         -- unix nanoseconds
    hash    TEXT NOT NULL,            -- sha256 of the content last imported
    read_at INTEGER NOT NULL,
    PRIMARY KEY (path, project)
) WITHOUT ROWID;

-- Each entry of such a file and the observation it became: the entry's key
-- within the file, the observation's uuid (derived from kind, file and key,
-- so the same entry is the same record on every machine), and the hash of
-- the entry's text, so an edited entry updates its observation and an entry
-- gone from the file retires it. kind in source_files is the provenance of
-- these observations.
CREATE TABLE source_entries (
    path    TEXT NOT NULL,
    project TEXT NOT NULL,
    entry   TEXT NOT NULL,
    uuid    TEXT NOT NULL,
    hash    TEXT NOT NULL,
    section TEXT NOT NULL DEFAULT '',
    ord     INTEGER NOT NULL DEFAULT 0, -- its place in the file
    PRIMARY KEY (path, project, entry)
) WITHOUT ROWID;
CREATE INDEX source_entries_uuid ON source_entries (uuid);

-- +goose Down
DROP TABLE source_entries;
DROP TABLE source_files;
