-- +goose Up
-- Hook events applied: an event is applied in the transaction that records
-- its id here, so applying it again from the spool (internal/spool) changes
-- nothing. Ids begin with the arrival time, so old ones are pruned by range.
-- +goose StatementBegin
CREATE TABLE applied_events (
    id TEXT PRIMARY KEY
) WITHOUT ROWID;
-- +goose StatementEnd

-- +goose Down
DROP TABLE applied_events;
