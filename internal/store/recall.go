package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// The reads recall needs (recall.Source). Each one is a bounded index range
// scan, so `mem inject` costs the same on a small and a huge database.

// typeWindow bounds how far back RecentBriefs looks for observations of
// given types: rare types must not turn it into a scan of the project.
const typeWindow = 1000

// briefCols are an observation's columns but its narrative and facts,
// which can be long, and the provenance and review details the last gate
// does not read: what retired and expired records are read with.
const briefCols = `id, uuid, session_id, project, type, title, subtitle, '' AS narrative, '[]' AS facts,
	concepts, files_read, files_modified, agent_type, tool_name, prompt_number, content_hash,
	token_count, created_at, superseded_by, supersedes_uuid, occurrences, origin, '' AS origin_agent, origin_event, '' AS origin_member,
	untrusted, flag, '' AS flag_span, released`

// recentCols are briefCols without the columns a block never reads (ids
// of other kinds, counts, corrections: RecentBriefs asks for current
// records only) and without the constants: a block reads hundreds of rows
// at every session start, and each column of each row costs calls into
// SQLite.
const recentCols = `id, session_id, type, title, subtitle, concepts, files_read, files_modified, agent_type, tool_name,
	token_count, created_at, origin, origin_event, untrusted, flag, released`

// RecentBriefs returns a project's newest current observations, newest
// first, with recentCols only: no narrative, facts, uuid, content hash,
// prompt number or correction. With types, only those types among the
// project's typeWindow newest observations; with older, only those after
// it in that order.
func (db *DB) RecentBriefs(ctx context.Context, project string, types []memory.Type, n int, older *memory.Observation) ([]memory.Observation, error) {
	// Rows after older in the order read: (created_at, id) below its own.
	after, args := ``, []any{project}
	if older != nil {
		after = ` AND (created_at, id) < (?, ?)`
	}
	q := `SELECT ` + recentCols + ` FROM observations WHERE project = ? AND superseded_by IS NULL` + after + `
		ORDER BY created_at DESC, id DESC` + limit(limitOr(n, 100))
	if len(types) > 0 {
		q = `SELECT ` + recentCols + ` FROM observations WHERE id IN (
			SELECT id FROM (SELECT id, type, created_at, superseded_by FROM observations WHERE project = ?
				ORDER BY created_at DESC, id DESC` + limit(typeWindow) + `)
			WHERE type IN (?` + strings.Repeat(`, ?`, len(types)-1) + `) AND superseded_by IS NULL` + after + `
			ORDER BY created_at DESC, id DESC` + limit(limitOr(n, 100)) + `)
		ORDER BY created_at DESC, id DESC`
		for _, t := range types {
			args = append(args, string(t))
		}
	}
	if older != nil {
		args = append(args, toMillis(older.CreatedAt), older.ID)
	}
	return db.scanObservations(ctx, "reading recent observations", q, args, func(r *observationRow) []any {
		r.Project, r.Facts, r.Occurrences = project, "[]", 1
		return []any{&r.ID, &r.SessionID, &r.Type, &r.Title, &r.Subtitle, &r.Concepts, &r.FilesRead,
			&r.FilesModified, &r.AgentType, &r.ToolName, &r.TokenCount, &r.CreatedAt, &r.Origin, &r.Event,
			&r.Untrusted, &r.Flag, &r.Released}
	})
}

// CountObservationsUpTo counts a project's observations, stopping at upTo
// so that the cost stays bounded on a large project.
func (db *DB) CountObservationsUpTo(ctx context.Context, project string, upTo int) (int, error) {
	var n int
	err := db.q().GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM observations WHERE project = ?`+limit(upTo)+`)`,
		project)
	return n, mapErr(err)
}

// SessionObservations returns a session's newest observations, newest first.
func (db *DB) SessionObservations(ctx context.Context, sessionID string, n int) ([]memory.Observation, error) {
	return db.selectObservations(ctx, "reading observations of session "+sessionID,
		`SELECT `+observationCols+` FROM observations WHERE session_id = ? AND superseded_by IS NULL
		ORDER BY created_at DESC, id DESC`+limit(limitOr(n, 100)), sessionID)
}

// selectObservations runs a query for observationCols (or briefCols).
func (db *DB) selectObservations(ctx context.Context, what, q string, args ...any) ([]memory.Observation, error) {
	return db.scanObservations(ctx, what, q, args, func(r *observationRow) []any {
		return append([]any{&r.ID, &r.UUID, &r.SessionID, &r.Project, &r.Type, &r.Title, &r.Subtitle,
			&r.Narrative, &r.Facts, &r.Concepts, &r.FilesRead, &r.FilesModified, &r.AgentType, &r.ToolName,
			&r.PromptNumber, &r.ContentHash, &r.TokenCount, &r.CreatedAt, &r.SupersededBy, &r.Supersedes, &r.Occurrences}, r.dests()...)
	})
}

// scanObservations runs query q and scans each row into the fields of an
// observationRow that dests gives, in the order of q's columns (dests may
// fill the others first). It scans by position rather than through sqlx's
// reflection: recall reads hundreds of rows on every hook call.
func (db *DB) scanObservations(ctx context.Context, what, q string, args []any, dests func(*observationRow) []any) ([]memory.Observation, error) {
	rows, err := db.q().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, mapErr(err))
	}
	defer rows.Close()
	var out []memory.Observation
	for rows.Next() {
		var r observationRow
		if err := rows.Scan(dests(&r)...); err != nil {
			return nil, fmt.Errorf("%s: %w", what, mapErr(err))
		}
		out = append(out, r.observation())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, mapErr(err))
	}
	return out, nil
}

// RecentSummaries returns a project's newest summaries, newest first,
// leaving out the summary of excludeSession.
func (db *DB) RecentSummaries(ctx context.Context, project, excludeSession string, n int) ([]memory.Summary, error) {
	var rows []summaryRow
	err := db.q().SelectContext(ctx, &rows, `SELECT `+summaryCols+` FROM summaries
		WHERE project = ? AND session_id <> ? ORDER BY created_at DESC, id DESC`+limit(limitOr(n, 10)),
		project, excludeSession)
	if err != nil {
		return nil, fmt.Errorf("reading recent summaries: %w", mapErr(err))
	}
	return toRecords(rows, summaryRow.summary), nil
}

// CountSummariesUpTo counts a project's summaries, leaving out
// excludeSession's and stopping at upTo.
func (db *DB) CountSummariesUpTo(ctx context.Context, project, excludeSession string, upTo int) (int, error) {
	var n int
	// Counting through the project index alone, then taking out the excluded
	// session's summary (a unique-key lookup), keeps it off the table rows.
	err := db.q().GetContext(ctx, &n, `SELECT min(?, (SELECT count(*) FROM (SELECT 1 FROM summaries WHERE project = ?`+limit(upTo+1)+`))
		- (SELECT count(*) FROM summaries WHERE session_id = ? AND project = ?))`,
		upTo, project, excludeSession, project)
	return n, mapErr(err)
}
