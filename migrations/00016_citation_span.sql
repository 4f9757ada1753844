-- +goose Up
-- Where an edit's text sits in the file it cites (cite.Take): the offset of
-- its most distinctive line, that line's hash and the hash of all its lines.
-- A file that changed elsewhere still holds them, and the memory of the
-- edit still says what its code says. '' for a citation without one (a
-- read, a file of several edits, text found more than once or not
-- distinctive): the whole file's content is compared, as before.
ALTER TABLE citations ADD COLUMN span TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE citations DROP COLUMN span;
