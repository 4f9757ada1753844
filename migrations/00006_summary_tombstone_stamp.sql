-- +goose Up
-- A summary's tombstone stands for the versions of the session's summary
-- written before the forget, not for every summary the session will ever
-- have: a summary written after it is newer and wins (internal/team). So a
-- second forget of a session's summary moves the tombstone's time forward
-- instead of keeping the first one, and the time is after the summary it
-- removed even when that came from a machine whose clock is ahead.
-- +goose StatementBegin
DROP TRIGGER summaries_sync_ad;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER summaries_sync_ad AFTER DELETE ON summaries
WHEN NOT EXISTS (SELECT 1 FROM sync_applying) BEGIN
    INSERT INTO sync_tombstones (key, project, deleted_at)
    VALUES ('summary:' || old.session_id, old.project,
        max(CAST(unixepoch('subsec') * 1000 AS INTEGER), old.created_at + 1))
    ON CONFLICT (key) DO UPDATE SET deleted_at = max(deleted_at, excluded.deleted_at);
    INSERT INTO sync_log (key, project) SELECT 'summary:' || old.session_id, old.project
    WHERE EXISTS (SELECT 1 FROM sync_projects WHERE project = old.project);
END;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DROP TRIGGER summaries_sync_ad;
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
