-- +goose Up
-- What an observation cites, as it was when the observation was made: one
-- row per cited file, with the root of the work tree the event came from
-- (so another clone of the project is not compared with it), the file's
-- size and modification time (unix nanoseconds; size -1: the file did not
-- exist), its git blob id (empty when the file was over the hashing cap),
-- and the line range the event named (0 when none). A check that finds the
-- same content at another size or time moves the fingerprint there; one
-- that finds other content keeps the size and time it saw it at (seen_*),
-- so that the next check only stats the file.
CREATE TABLE citations (
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    path           TEXT NOT NULL,
    root           TEXT NOT NULL,
    role           TEXT NOT NULL,
    size           INTEGER NOT NULL,
    mtime          INTEGER NOT NULL,
    hash           TEXT NOT NULL DEFAULT '',
    line_start     INTEGER NOT NULL DEFAULT 0,
    line_end       INTEGER NOT NULL DEFAULT 0,
    seen_size      INTEGER NOT NULL DEFAULT -2,
    seen_mtime     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (observation_id, path)
) WITHOUT ROWID;

-- A correction retires the record it replaces: superseded_by is the id of
-- the correction, and a retired record is never injected again.
ALTER TABLE observations ADD COLUMN superseded_by INTEGER REFERENCES observations (id) ON DELETE SET NULL;
CREATE INDEX observations_superseded_by ON observations (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX observations_retired ON observations (session_id) WHERE superseded_by IS NOT NULL;

-- Near-duplicates are consolidated into one record that counts them.
ALTER TABLE observations ADD COLUMN occurrences INTEGER NOT NULL DEFAULT 1;

-- +goose Down
ALTER TABLE observations DROP COLUMN occurrences;
DROP INDEX observations_retired;
DROP INDEX observations_superseded_by;
ALTER TABLE observations DROP COLUMN superseded_by;
DROP TABLE citations;
