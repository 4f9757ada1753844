-- +goose Up
-- FTS5 merges index segments as it writes: a little after each write
-- (automerge), and a whole level at once when it holds 16 segments (its
-- crisis merge), in whatever transaction fills it. With one small segment
-- per hook event, that put merges of large segments (a bulk import's whole
-- index among them) into hooks. Without automerge, hooks' segments are only
-- ever merged with one another, 16 small ones at a time; the nightly job
-- and imports merge everything into one segment above them
-- (store.OptimizeFTS), where no editor waits. Kept in each index's config.
INSERT INTO observations_fts (observations_fts, rank) VALUES ('automerge', 0);
INSERT INTO summaries_fts (summaries_fts, rank) VALUES ('automerge', 0);
INSERT INTO prompts_fts (prompts_fts, rank) VALUES ('automerge', 0);

-- +goose Down
DELETE FROM observations_fts_config WHERE k = 'automerge';
DELETE FROM summaries_fts_config WHERE k = 'automerge';
DELETE FROM prompts_fts_config WHERE k = 'automerge';
