package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// AddPrompt records the next prompt of a session and counts it. The text
// must already have passed the privacy filter.
func (db *DB) AddPrompt(ctx context.Context, sessionID, text string, at time.Time) (memory.Prompt, error) {
	if at.IsZero() {
		at = time.Now()
	}
	var out memory.Prompt
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		s, err := getSession(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		out = memory.Prompt{UUID: uuid.NewString(), SessionID: sessionID, Project: s.Project,
			PromptNumber: s.PromptCount + 1, Text: text, CreatedAt: at}
		if _, err := insertPrompt(ctx, tx, &out); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET prompt_count = ?, last_activity_at = max(last_activity_at, ?)
			WHERE id = ?`, out.PromptNumber, toMillis(at), sessionID)
		return err
	})
	if err != nil {
		return memory.Prompt{}, fmt.Errorf("recording prompt of session %s: %w", sessionID, err)
	}
	return out, nil
}

// insertPrompt inserts p and returns the id of the row it
// inserted, 0 when the prompt was already there.
func insertPrompt(ctx context.Context, tx querier, p *memory.Prompt) (int64, error) {
	var id any
	if p.ID > 0 {
		id = p.ID
	}
	var newID int64
	err := tx.GetContext(ctx, &newID, `INSERT INTO prompts (id, uuid, session_id, project, prompt_number, text, created_at)
		VALUES (CASE WHEN ? IS NOT NULL AND NOT EXISTS (SELECT 1 FROM prompts WHERE id = ?) THEN ? END, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING RETURNING id`,
		id, id, id, p.UUID, p.SessionID, p.Project, p.PromptNumber, p.Text, toMillis(p.CreatedAt))
	if isNoRows(err) {
		return 0, nil // already there (import of the same prompt)
	}
	if err != nil {
		return 0, err
	}
	p.ID = newID
	return newID, nil
}

// LatestPrompt returns a session's newest prompt, and false when it has
// none.
func (db *DB) LatestPrompt(ctx context.Context, sessionID string) (memory.Prompt, bool, error) {
	var rows []promptRow
	if err := db.q().SelectContext(ctx, &rows, `SELECT `+promptCols+` FROM prompts WHERE session_id = ?
		ORDER BY prompt_number DESC LIMIT 1`, sessionID); err != nil {
		return memory.Prompt{}, false, fmt.Errorf("reading the latest prompt of session %s: %w", sessionID, mapErr(err))
	}
	if len(rows) == 0 {
		return memory.Prompt{}, false, nil
	}
	return rows[0].prompt(), true, nil
}

// Prompts returns a session's prompts in order.
func (db *DB) Prompts(ctx context.Context, sessionID string) ([]memory.Prompt, error) {
	var rows []promptRow
	if err := db.q().SelectContext(ctx, &rows, `SELECT `+promptCols+` FROM prompts WHERE session_id = ?
		ORDER BY prompt_number`, sessionID); err != nil {
		return nil, fmt.Errorf("reading prompts of session %s: %w", sessionID, mapErr(err))
	}
	return toRecords(rows, promptRow.prompt), nil
}
