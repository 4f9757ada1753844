package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// The reads recall needs (recall.Source). Each one is a bounded index range
// scan, so `mem inject` costs the same on a small and a huge database.

// typeWindow bounds how far back RecentObservations looks for observations
// of given types: rare types must not turn it into a scan of the project.
const typeWindow = 5000

// RecentObservations returns a project's newest observations, newest first.
// With types, only those types, among the project's typeWindow newest.
func (db *DB) RecentObservations(ctx context.Context, project string, types []memory.Type, limit int) ([]memory.Observation, error) {
	q := `SELECT ` + observationCols + ` FROM observations WHERE project = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`
	args := []any{project, limitOr(limit, 100)}
	if len(types) > 0 {
		q = `SELECT ` + observationCols + ` FROM (SELECT * FROM observations WHERE project = ?
			ORDER BY created_at DESC, id DESC LIMIT ?)
			WHERE type IN (?` + strings.Repeat(`, ?`, len(types)-1) + `)
			ORDER BY created_at DESC, id DESC LIMIT ?`
		args = []any{project, typeWindow}
		for _, t := range types {
			args = append(args, string(t))
		}
		args = append(args, limitOr(limit, 100))
	}
	return db.selectObservations(ctx, "reading recent observations", q, args...)
}

// SessionObservations returns a session's newest observations, newest first.
func (db *DB) SessionObservations(ctx context.Context, sessionID string, limit int) ([]memory.Observation, error) {
	return db.selectObservations(ctx, "reading observations of session "+sessionID,
		`SELECT `+observationCols+` FROM observations WHERE session_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, sessionID, limitOr(limit, 100))
}

func (db *DB) selectObservations(ctx context.Context, what, q string, args ...any) ([]memory.Observation, error) {
	var rows []observationRow
	if err := db.x.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, fmt.Errorf("%s: %w", what, mapErr(err))
	}
	out := make([]memory.Observation, len(rows))
	for i, r := range rows {
		out[i] = r.observation()
	}
	return out, nil
}

// RecentSummaries returns a project's newest summaries, newest first,
// leaving out the summary of excludeSession.
func (db *DB) RecentSummaries(ctx context.Context, project, excludeSession string, limit int) ([]memory.Summary, error) {
	var rows []summaryRow
	err := db.x.SelectContext(ctx, &rows, `SELECT `+summaryCols+` FROM summaries
		WHERE project = ? AND session_id <> ? ORDER BY created_at DESC, id DESC LIMIT ?`,
		project, excludeSession, limitOr(limit, 10))
	if err != nil {
		return nil, fmt.Errorf("reading recent summaries: %w", mapErr(err))
	}
	out := make([]memory.Summary, len(rows))
	for i, r := range rows {
		out[i] = r.summary()
	}
	return out, nil
}

// CountSummaries counts a project's summaries, leaving out excludeSession's.
func (db *DB) CountSummaries(ctx context.Context, project, excludeSession string) (int, error) {
	var n int
	err := db.x.GetContext(ctx, &n, `SELECT count(*) FROM summaries WHERE project = ? AND session_id <> ?`,
		project, excludeSession)
	return n, mapErr(err)
}
