-- +goose Up
-- SQLite gives a deleted newest row's id to the next row, so an entry's
-- verdict and injections (kept by ref, #12 or S3) go when the entry goes:
-- the next observation or summary given that id starts with none.
-- +goose StatementBegin
CREATE TRIGGER observations_feedback_ad AFTER DELETE ON observations BEGIN
    DELETE FROM entry_feedback WHERE project = old.project AND ref = '#' || old.id;
    DELETE FROM injections WHERE project = old.project AND ref = '#' || old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER summaries_feedback_ad AFTER DELETE ON summaries BEGIN
    DELETE FROM entry_feedback WHERE project = old.project AND ref = 'S' || old.id;
    DELETE FROM injections WHERE project = old.project AND ref = 'S' || old.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER summaries_feedback_ad;
DROP TRIGGER observations_feedback_ad;
