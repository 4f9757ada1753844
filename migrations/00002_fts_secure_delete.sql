-- Deleting a row from an FTS5 index removes its terms from the index pages
-- instead of recording a delete marker beside them, so forgotten text does
-- not stay in the index (with PRAGMA secure_delete, set on every connection,
-- the freed pages are zeroed too). The setting is stored in each index.

-- +goose Up
INSERT INTO observations_fts (observations_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO summaries_fts (summaries_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO prompts_fts (prompts_fts, rank) VALUES ('secure-delete', 1);

-- +goose Down
INSERT INTO observations_fts (observations_fts, rank) VALUES ('secure-delete', 0);
INSERT INTO summaries_fts (summaries_fts, rank) VALUES ('secure-delete', 0);
INSERT INTO prompts_fts (prompts_fts, rank) VALUES ('secure-delete', 0);
