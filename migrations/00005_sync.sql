-- +goose Up
-- Team memory (internal/team). sync_projects lists the projects shared with
-- the team. sync_log numbers every local change of a shared project's
-- sessions, observations and summaries (AUTOINCREMENT: a number is never
-- reused), so a push reads what came after its mark. sync_tombstones keeps
-- the key of every record forgotten here or in the team, so that no sync
-- brings it back. sync_state holds, per cluster and project, the last local
-- change pushed and the last cluster sequence pulled. Records written by a
-- pull set the one row of sync_applying inside their transaction, which
-- keeps them out of sync_log: they came from the cluster. sync_origins names
-- the machine a pulled record came from; sync_meta holds this machine's id.
-- +goose StatementBegin
CREATE TABLE sync_projects (
    project   TEXT PRIMARY KEY,
    shared_at INTEGER NOT NULL
) WITHOUT ROWID;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TABLE sync_log (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    key     TEXT NOT NULL,
    project TEXT NOT NULL
);
-- +goose StatementEnd
-- +goose StatementBegin
CREATE INDEX sync_log_project ON sync_log (project, id);
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TABLE sync_tombstones (
    key        TEXT PRIMARY KEY,
    project    TEXT NOT NULL,
    deleted_at INTEGER NOT NULL
) WITHOUT ROWID;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TABLE sync_state (
    cluster   TEXT NOT NULL,
    project   TEXT NOT NULL,
    pushed    INTEGER NOT NULL DEFAULT 0,
    pulled    INTEGER NOT NULL DEFAULT 0,
    synced_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (cluster, project)
) WITHOUT ROWID;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TABLE sync_applying (
    one INTEGER PRIMARY KEY CHECK (one = 1)
);
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TABLE sync_origins (
    key    TEXT PRIMARY KEY,
    origin TEXT NOT NULL
) WITHOUT ROWID;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TABLE sync_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER sessions_sync_ai AFTER INSERT ON sessions
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) AND EXISTS (SELECT 1 FROM sync_projects WHERE project = new.project) BEGIN
    INSERT INTO sync_log (key, project) VALUES ('session:' || new.id, new.project);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER observations_sync_ai AFTER INSERT ON observations
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) AND EXISTS (SELECT 1 FROM sync_projects WHERE project = new.project) BEGIN
    INSERT INTO sync_log (key, project) VALUES ('observation:' || new.uuid, new.project);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER summaries_sync_ai AFTER INSERT ON summaries
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) AND EXISTS (SELECT 1 FROM sync_projects WHERE project = new.project) BEGIN
    INSERT INTO sync_log (key, project) VALUES ('summary:' || new.session_id, new.project);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER summaries_sync_au AFTER UPDATE ON summaries
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) AND EXISTS (SELECT 1 FROM sync_projects WHERE project = new.project) BEGIN
    INSERT INTO sync_log (key, project) VALUES ('summary:' || new.session_id, new.project);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER sessions_sync_ad AFTER DELETE ON sessions
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) BEGIN
    INSERT OR IGNORE INTO sync_tombstones (key, project, deleted_at)
    VALUES ('session:' || old.id, old.project, CAST(unixepoch('subsec') * 1000 AS INTEGER));
    INSERT INTO sync_log (key, project) SELECT 'session:' || old.id, old.project
    WHERE EXISTS (SELECT 1 FROM sync_projects WHERE project = old.project);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER observations_sync_ad AFTER DELETE ON observations
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) BEGIN
    INSERT OR IGNORE INTO sync_tombstones (key, project, deleted_at)
    VALUES ('observation:' || old.uuid, old.project, CAST(unixepoch('subsec') * 1000 AS INTEGER));
    INSERT INTO sync_log (key, project) SELECT 'observation:' || old.uuid, old.project
    WHERE EXISTS (SELECT 1 FROM sync_projects WHERE project = old.project);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER summaries_sync_ad AFTER DELETE ON summaries
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) BEGIN
    INSERT OR IGNORE INTO sync_tombstones (key, project, deleted_at)
    VALUES ('summary:' || old.session_id, old.project, CAST(unixepoch('subsec') * 1000 AS INTEGER));
    INSERT INTO sync_log (key, project) SELECT 'summary:' || old.session_id, old.project
    WHERE EXISTS (SELECT 1 FROM sync_projects WHERE project = old.project);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER summaries_sync_ad;
DROP TRIGGER observations_sync_ad;
DROP TRIGGER sessions_sync_ad;
DROP TRIGGER summaries_sync_au;
DROP TRIGGER summaries_sync_ai;
DROP TRIGGER observations_sync_ai;
DROP TRIGGER sessions_sync_ai;
DROP TABLE sync_meta;
DROP TABLE sync_origins;
DROP TABLE sync_applying;
DROP TABLE sync_state;
DROP TABLE sync_tombstones;
DROP TABLE sync_log;
DROP TABLE sync_projects;
