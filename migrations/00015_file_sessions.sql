-- +goose Up
-- Each session's newest live observation of each file, per project, kept in
-- step by triggers on observation_files (whose rows observations' own
-- triggers delete and write again on every change of an observation): a
-- touched file's history reads its few hundred rows instead of joining each
-- of the file's observations. last_id is the newest observation of the
-- session that names path and is not superseded; a session with none has no
-- row.
-- +goose StatementBegin
CREATE TABLE file_sessions (
    path       TEXT NOT NULL,
    project    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    last_id    INTEGER NOT NULL,
    PRIMARY KEY (path, project, session_id)
) WITHOUT ROWID;
-- +goose StatementEnd
CREATE INDEX file_sessions_last ON file_sessions (path, last_id);
-- +goose StatementBegin
INSERT INTO file_sessions (path, project, session_id, last_id)
SELECT f.path, o.project, o.session_id, max(o.id)
FROM observation_files f JOIN observations o ON o.id = f.observation_id
WHERE o.superseded_by IS NULL
GROUP BY f.path, o.project, o.session_id;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER file_sessions_ai AFTER INSERT ON observation_files BEGIN
    INSERT INTO file_sessions (path, project, session_id, last_id)
    SELECT new.path, project, session_id, id FROM observations
    WHERE id = new.observation_id AND superseded_by IS NULL
    ON CONFLICT (path, project, session_id) DO UPDATE SET last_id = max(last_id, excluded.last_id);
END;
-- +goose StatementEnd
-- A row whose newest observation lost the file (deleted, changed or
-- superseded: the observation's row is already the new one here) takes the
-- session's next newest, or goes.
-- +goose StatementBegin
CREATE TRIGGER file_sessions_ad AFTER DELETE ON observation_files BEGIN
    UPDATE file_sessions SET last_id = coalesce((
        SELECT max(o.id) FROM observations o
        WHERE o.session_id = file_sessions.session_id AND o.project = file_sessions.project
            AND o.superseded_by IS NULL
            AND EXISTS (SELECT 1 FROM observation_files f WHERE f.path = file_sessions.path AND f.observation_id = o.id)), 0)
    WHERE path = old.path AND last_id = old.observation_id;
    DELETE FROM file_sessions WHERE path = old.path AND last_id = 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER file_sessions_ad;
DROP TRIGGER file_sessions_ai;
DROP TABLE file_sessions;
