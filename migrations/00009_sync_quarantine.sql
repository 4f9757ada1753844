-- +goose Up
-- Rows a pull read from a team's cluster and set aside instead of applying
-- (internal/team): a record of another project, a body that is not a
-- record, one larger than a record may be, a record whose session is
-- nowhere. The pull moves past them; they are kept here, per cluster and
-- project, so that mem sync --status can count them.
-- +goose StatementBegin
CREATE TABLE sync_quarantine (
    cluster TEXT NOT NULL,
    project TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    key     TEXT NOT NULL,
    reason  TEXT NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (cluster, project, seq)
) WITHOUT ROWID;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DROP TABLE sync_quarantine;
-- +goose StatementEnd
