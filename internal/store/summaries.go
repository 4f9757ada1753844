package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// PutSummary stores the summary of a session, replacing the one it had. The
// session's summary keeps its uuid across replacements.
func (db *DB) PutSummary(ctx context.Context, s memory.Summary) (memory.Summary, error) {
	var out memory.Summary
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		sess, err := getSession(ctx, tx, s.SessionID)
		if err != nil {
			return err
		}
		s.Project = sess.Project
		out, err = putSummary(ctx, tx, s, true)
		return err
	})
	if err != nil {
		return memory.Summary{}, fmt.Errorf("storing summary of session %s: %w", s.SessionID, err)
	}
	return out, nil
}

// putSummary writes s. With replace, an existing summary of the session is
// overwritten; without, it is kept and returned (import).
func putSummary(ctx context.Context, tx *sqlx.Tx, s memory.Summary, replace bool) (memory.Summary, error) {
	if s.UUID == "" {
		s.UUID = uuid.NewString()
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = time.Now()
	}
	if s.Generator == "" {
		s.Generator = "extractive"
	}
	if s.TokenCount == 0 {
		s.TokenCount = s.EstimateTokens()
	}
	s.Concepts = memory.CleanList(s.Concepts)
	s.Files = memory.CleanList(s.Files)
	var id any
	if s.ID > 0 {
		id = s.ID
	}
	conflict := `DO NOTHING`
	if replace {
		conflict = `DO UPDATE SET request = excluded.request, investigated = excluded.investigated,
			learned = excluded.learned, completed = excluded.completed, next_steps = excluded.next_steps,
			decisions = excluded.decisions, concepts = excluded.concepts, files = excluded.files,
			text = excluded.text, generator = excluded.generator, token_count = excluded.token_count,
			created_at = excluded.created_at, covers_until = excluded.covers_until, ` + provenanceUpdate
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO summaries (id, uuid, session_id, project, request, investigated,
		learned, completed, next_steps, decisions, concepts, files, text, generator, token_count, created_at, covers_until,
		`+provenanceCols+`)
		VALUES (CASE WHEN ? IS NOT NULL AND NOT EXISTS (SELECT 1 FROM summaries WHERE id = ?) THEN ? END,
		?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) `+conflict,
		append([]any{id, id, id, s.UUID, s.SessionID, s.Project, s.Request, s.Investigated, s.Learned, s.Completed,
			s.NextSteps, s.Decisions, encodeList(s.Concepts), encodeList(s.Files), s.Text, s.Generator,
			s.TokenCount, toMillis(s.CreatedAt), toMillis(s.CoversUntil)}, provenanceArgs(s.Provenance, s.Review)...)...)
	if err != nil && !isUniqueViolation(err) {
		return memory.Summary{}, err
	}
	return summaryWhere(ctx, tx, `session_id = ?`, s.SessionID)
}

func summaryWhere(ctx context.Context, q sqlx.QueryerContext, where string, arg any) (memory.Summary, error) {
	var r summaryRow
	err := sqlx.GetContext(ctx, q, &r, `SELECT `+summaryCols+` FROM summaries WHERE `+where, arg)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Summary{}, memory.ErrNotFound
	}
	if err != nil {
		return memory.Summary{}, err
	}
	return r.summary(), nil
}

// Summary returns a summary by its id.
func (db *DB) Summary(ctx context.Context, id int64) (memory.Summary, error) {
	s, err := summaryWhere(ctx, db.q(), `id = ?`, id)
	if errors.Is(err, memory.ErrNotFound) {
		return s, fmt.Errorf("summary S%d: %w", id, err)
	}
	return s, mapErr(err)
}

// SessionSummary returns the summary of a session.
func (db *DB) SessionSummary(ctx context.Context, sessionID string) (memory.Summary, error) {
	s, err := summaryWhere(ctx, db.q(), `session_id = ?`, sessionID)
	if errors.Is(err, memory.ErrNotFound) {
		return s, fmt.Errorf("summary of session %s: %w", sessionID, err)
	}
	return s, mapErr(err)
}

// SummaryFilter selects summaries for ListSummaries.
type SummaryFilter struct {
	Project        string
	ExcludeSession string
	Limit          int
	Offset         int
}

// ListSummaries returns a project's summaries, newest session first.
func (db *DB) ListSummaries(ctx context.Context, f SummaryFilter) ([]memory.Summary, error) {
	var rows []summaryRow
	err := db.q().SelectContext(ctx, &rows, `SELECT `+prefixCols("m", summaryCols)+`
		FROM summaries m JOIN sessions s ON s.id = m.session_id
		WHERE m.project = ? AND m.session_id <> ?
		ORDER BY s.last_activity_at DESC, m.id DESC LIMIT ? OFFSET ?`,
		f.Project, f.ExcludeSession, limitOr(f.Limit, 10), f.Offset)
	if err != nil {
		return nil, fmt.Errorf("listing summaries: %w", mapErr(err))
	}
	return toRecords(rows, summaryRow.summary), nil
}
