-- +goose Up
-- Where each observation and summary came from (memory.Provenance: origin,
-- the agent or channel, the tool event, the team member, whether the text
-- is untrusted) and what the instruction check found in it (memory.Review:
-- the rule, the matched text, and whether a person released it). Rows
-- written before have an empty origin: unknown.
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN origin TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN origin_agent TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN origin_event TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN origin_member TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN untrusted INTEGER NOT NULL DEFAULT 0;
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN flag TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN flag_span TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE observations ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN origin TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN origin_agent TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN origin_event TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN origin_member TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN untrusted INTEGER NOT NULL DEFAULT 0;
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN flag TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN flag_span TEXT NOT NULL DEFAULT '';
-- +goose StatementEnd
-- +goose StatementBegin
ALTER TABLE summaries ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
-- +goose StatementEnd
-- +goose StatementBegin
-- The review queue: flagged rows of a project, read by mem review.
CREATE INDEX observations_flagged ON observations (project, id) WHERE flag <> '';
-- +goose StatementEnd

-- +goose Down
DROP INDEX observations_flagged;
ALTER TABLE summaries DROP COLUMN released;
ALTER TABLE summaries DROP COLUMN flag_span;
ALTER TABLE summaries DROP COLUMN flag;
ALTER TABLE summaries DROP COLUMN untrusted;
ALTER TABLE summaries DROP COLUMN origin_member;
ALTER TABLE summaries DROP COLUMN origin_event;
ALTER TABLE summaries DROP COLUMN origin_agent;
ALTER TABLE summaries DROP COLUMN origin;
ALTER TABLE observations DROP COLUMN released;
ALTER TABLE observations DROP COLUMN flag_span;
ALTER TABLE observations DROP COLUMN flag;
ALTER TABLE observations DROP COLUMN untrusted;
ALTER TABLE observations DROP COLUMN origin_member;
ALTER TABLE observations DROP COLUMN origin_event;
ALTER TABLE observations DROP COLUMN origin_agent;
ALTER TABLE observations DROP COLUMN origin;
