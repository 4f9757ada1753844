-- +goose Up
-- How many of each session's live observations changed each file: what a
-- touched file's history weighs a session by, read with its row instead of
-- counted over the session's observations at each Read. Kept by the
-- triggers: a live observation's modified row adds one as it is written
-- (file_sessions_ai), and an observation takes its own off before it
-- changes or goes, while it is still as it was counted.
ALTER TABLE file_sessions ADD COLUMN changes INTEGER NOT NULL DEFAULT 0;
-- +goose StatementBegin
UPDATE file_sessions SET changes = c.n FROM (
    SELECT f.path, o.project, o.session_id, count(*) AS n
    FROM observation_files f JOIN observations o ON o.id = f.observation_id
    WHERE f.modified = 1 AND o.superseded_by IS NULL
    GROUP BY f.path, o.project, o.session_id) c
WHERE c.path = file_sessions.path AND c.project = file_sessions.project AND c.session_id = file_sessions.session_id;
-- +goose StatementEnd
DROP TRIGGER file_sessions_ai;
-- +goose StatementBegin
CREATE TRIGGER file_sessions_ai AFTER INSERT ON observation_files BEGIN
    INSERT INTO file_sessions (path, project, session_id, last_id, changes)
    SELECT new.path, project, session_id, id, new.modified FROM observations
    WHERE id = new.observation_id AND superseded_by IS NULL
    ON CONFLICT (path, project, session_id) DO UPDATE SET last_id = max(last_id, excluded.last_id),
        changes = changes + excluded.changes;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER file_sessions_bu BEFORE UPDATE ON observations WHEN old.superseded_by IS NULL BEGIN
    UPDATE file_sessions SET changes = changes - 1
    WHERE path IN (SELECT DISTINCT value FROM json_each(old.files_modified))
        AND project = old.project AND session_id = old.session_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER file_sessions_bd BEFORE DELETE ON observations WHEN old.superseded_by IS NULL BEGIN
    UPDATE file_sessions SET changes = changes - 1
    WHERE path IN (SELECT DISTINCT value FROM json_each(old.files_modified))
        AND project = old.project AND session_id = old.session_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER file_sessions_bd;
DROP TRIGGER file_sessions_bu;
DROP TRIGGER file_sessions_ai;
-- +goose StatementBegin
CREATE TRIGGER file_sessions_ai AFTER INSERT ON observation_files BEGIN
    INSERT INTO file_sessions (path, project, session_id, last_id)
    SELECT new.path, project, session_id, id FROM observations
    WHERE id = new.observation_id AND superseded_by IS NULL
    ON CONFLICT (path, project, session_id) DO UPDATE SET last_id = max(last_id, excluded.last_id);
END;
-- +goose StatementEnd
ALTER TABLE file_sessions DROP COLUMN changes;
