-- +goose Up
-- A correction names the record it retires by uuid too, so that it travels
-- through export/import and team sync, where ids differ: supersedes_uuid is
-- the uuid of the record this one corrects ('' for none). Whichever of the
-- two arrives second, the import resolves it into the old record's
-- superseded_by.
ALTER TABLE observations ADD COLUMN supersedes_uuid TEXT NOT NULL DEFAULT '';
CREATE INDEX observations_supersedes_uuid ON observations (supersedes_uuid) WHERE supersedes_uuid <> '';
UPDATE observations SET supersedes_uuid = (SELECT o.uuid FROM observations o WHERE o.superseded_by = observations.id)
WHERE id IN (SELECT superseded_by FROM observations WHERE superseded_by IS NOT NULL);

-- +goose Down
DROP INDEX observations_supersedes_uuid;
ALTER TABLE observations DROP COLUMN supersedes_uuid;
