-- +goose Up
-- Observations counted per project, UTC day and type, kept in step by
-- triggers: the viewer's overview (a chart of the last 90 days by type, and
-- each project's count) reads a few hundred rows of it instead of every
-- observation's. Day is created_at in whole days since 1970-01-01 UTC.
-- +goose StatementBegin
CREATE TABLE observation_days (
    project TEXT NOT NULL,
    day     INTEGER NOT NULL,
    type    TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (project, day, type)
) WITHOUT ROWID;
-- +goose StatementEnd
-- +goose StatementBegin
INSERT INTO observation_days (project, day, type, n)
SELECT project, created_at / 86400000, type, count(*) FROM observations GROUP BY 1, 2, 3;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER observation_days_ai AFTER INSERT ON observations BEGIN
    INSERT INTO observation_days (project, day, type, n) VALUES (new.project, new.created_at / 86400000, new.type, 1)
    ON CONFLICT (project, day, type) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER observation_days_ad AFTER DELETE ON observations BEGIN
    UPDATE observation_days SET n = n - 1
    WHERE project = old.project AND day = old.created_at / 86400000 AND type = old.type;
    DELETE FROM observation_days
    WHERE project = old.project AND day = old.created_at / 86400000 AND type = old.type AND n <= 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER observation_days_au AFTER UPDATE OF project, created_at, type ON observations
WHEN old.project IS NOT new.project OR old.created_at / 86400000 IS NOT new.created_at / 86400000 OR old.type IS NOT new.type
BEGIN
    UPDATE observation_days SET n = n - 1
    WHERE project = old.project AND day = old.created_at / 86400000 AND type = old.type;
    DELETE FROM observation_days
    WHERE project = old.project AND day = old.created_at / 86400000 AND type = old.type AND n <= 0;
    INSERT INTO observation_days (project, day, type, n) VALUES (new.project, new.created_at / 86400000, new.type, 1)
    ON CONFLICT (project, day, type) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER observation_days_au;
DROP TRIGGER observation_days_ad;
DROP TRIGGER observation_days_ai;
DROP TABLE observation_days;
