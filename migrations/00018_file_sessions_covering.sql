-- +goose Up
-- A touched file's history reads each spelling's latest sessions with their
-- count of changes: with the count in the index (which holds the key's
-- project and session too), the read never leaves it for the table.
DROP INDEX file_sessions_last;
CREATE INDEX file_sessions_last ON file_sessions (path, last_id, changes);

-- +goose Down
DROP INDEX file_sessions_last;
CREATE INDEX file_sessions_last ON file_sessions (path, last_id);
