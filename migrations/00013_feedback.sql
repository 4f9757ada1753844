-- +goose Up
-- What mem gave an agent, entry by entry, and whether it was of use: an
-- injection is one entry (an observation #12 or a summary S3) that one
-- channel (the start block, the compaction block, prompt-time context,
-- file-touch context) put in front of a session's model; entry_feedback
-- keeps, per project and entry, when the agent last fetched it (a get, a
-- search or timeline that returned it) and a person's verdict from the
-- viewer. An injection was of use when its entry was fetched at or after it,
-- or marked useful; it was irrelevant when marked wrong.
CREATE TABLE injections (
    id         INTEGER PRIMARY KEY,
    project    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    channel    TEXT NOT NULL,            -- start | compact | prompt | file
    ref        TEXT NOT NULL,            -- #12 | S3
    tokens     INTEGER NOT NULL,
    at         INTEGER NOT NULL
);
CREATE INDEX injections_project_at ON injections (project, at);
CREATE INDEX injections_session ON injections (session_id);
CREATE INDEX injections_ref ON injections (project, ref);

CREATE TABLE entry_feedback (
    project   TEXT NOT NULL,
    ref       TEXT NOT NULL,
    used_at   INTEGER NOT NULL DEFAULT 0, -- the last fetch by the agent; 0: never
    verdict   TEXT NOT NULL DEFAULT '',   -- useful | wrong | '' (none)
    marked_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project, ref)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE entry_feedback;
DROP TABLE injections;
