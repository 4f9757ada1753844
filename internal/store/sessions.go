package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// StartSession creates the session, or resumes it when it exists: it becomes
// active again and its activity time moves on. Empty fields of an existing
// session are filled from s; its project never changes. created says which.
func (db *DB) StartSession(ctx context.Context, s memory.Session) (memory.Session, bool, error) {
	var out memory.Session
	var created bool
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, created, err = startSession(ctx, tx, s, true)
		return err
	})
	if err != nil {
		return memory.Session{}, false, fmt.Errorf("starting session %s: %w", s.ID, err)
	}
	return out, created, nil
}

// EnsureSession returns the session, creating it from s if it does not exist;
// an existing session is left as it is apart from its activity time.
func (db *DB) EnsureSession(ctx context.Context, s memory.Session) (memory.Session, error) {
	var out memory.Session
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, _, err = startSession(ctx, tx, s, false)
		return err
	})
	if err != nil {
		return memory.Session{}, fmt.Errorf("opening session %s: %w", s.ID, err)
	}
	return out, nil
}

func startSession(ctx context.Context, tx *sqlx.Tx, s memory.Session, resume bool) (memory.Session, bool, error) {
	at := s.StartedAt
	if at.IsZero() {
		at = time.Now()
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, project, agent, agent_type, cwd, parent_id,
		started_at, last_activity_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')
		ON CONFLICT (id) DO NOTHING`,
		s.ID, s.Project, s.Agent, s.AgentType, s.Cwd, s.ParentID, toMillis(at), toMillis(at))
	if err != nil {
		return memory.Session{}, false, err
	}
	n, _ := res.RowsAffected()
	created := n == 1
	if !created {
		q := `UPDATE sessions SET last_activity_at = max(last_activity_at, ?),
			agent = CASE agent WHEN '' THEN ? ELSE agent END,
			agent_type = CASE WHEN ? <> '' THEN ? ELSE agent_type END,
			cwd = CASE cwd WHEN '' THEN ? ELSE cwd END,
			parent_id = CASE parent_id WHEN '' THEN ? ELSE parent_id END`
		if resume {
			q += `, status = 'active', ended_at = NULL`
		}
		if _, err := tx.ExecContext(ctx, q+` WHERE id = ?`, toMillis(at), s.Agent, s.AgentType, s.AgentType,
			s.Cwd, s.ParentID, s.ID); err != nil {
			return memory.Session{}, false, err
		}
	}
	out, err := getSession(ctx, tx, s.ID)
	return out, created, err
}

func getSession(ctx context.Context, q sqlx.QueryerContext, id string) (memory.Session, error) {
	var r sessionRow
	err := sqlx.GetContext(ctx, q, &r, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Session{}, fmt.Errorf("session %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return memory.Session{}, err
	}
	return r.session(), nil
}

// Session returns one session.
func (db *DB) Session(ctx context.Context, id string) (memory.Session, error) {
	s, err := getSession(ctx, db.q(), id)
	return s, mapErr(err)
}

// EndSession marks a session ended and drops its pending context.
func (db *DB) EndSession(ctx context.Context, id string, at time.Time) (memory.Session, error) {
	if at.IsZero() {
		at = time.Now()
	}
	var out memory.Session
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET status = 'ended', ended_at = ?,
			last_activity_at = max(last_activity_at, ?) WHERE id = ?`, toMillis(at), toMillis(at), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %s: %w", id, memory.ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM pending_context WHERE session_id = ?`, id); err != nil {
			return err
		}
		out, err = getSession(ctx, tx, id)
		return err
	})
	if err != nil {
		return memory.Session{}, fmt.Errorf("ending session %s: %w", id, err)
	}
	return out, nil
}

// SessionFilter selects sessions for ListSessions.
type SessionFilter struct {
	Project string // empty for every project
	Status  string // empty for any
	Limit   int
	Offset  int
}

// ListSessions returns sessions, most recently active first.
func (db *DB) ListSessions(ctx context.Context, f SessionFilter) ([]memory.Session, error) {
	q := `SELECT ` + sessionCols + ` FROM sessions WHERE 1=1`
	var args []any
	if f.Project != "" {
		q += ` AND project = ?`
		args = append(args, f.Project)
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, f.Status)
	}
	q += ` ORDER BY last_activity_at DESC, id LIMIT ? OFFSET ?`
	args = append(args, limitOr(f.Limit, 50), f.Offset)
	var rows []sessionRow
	if err := db.q().SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, fmt.Errorf("listing sessions: %w", mapErr(err))
	}
	return toRecords(rows, sessionRow.session), nil
}

// TouchSession moves a session's activity time on.
func (db *DB) TouchSession(ctx context.Context, id string, at time.Time) error {
	_, err := db.change(ctx, `UPDATE sessions SET last_activity_at = max(last_activity_at, ?) WHERE id = ?`,
		toMillis(at), id)
	if err != nil {
		return fmt.Errorf("touching session %s: %w", id, err)
	}
	return nil
}

// MaxFilesRead bounds the files a session remembers having read; past it the
// oldest are dropped, so a long session's row does not grow without end.
const MaxFilesRead = 500

// AddFilesRead adds paths to the files a session has read, once each.
func (db *DB) AddFilesRead(ctx context.Context, id string, paths []string, at time.Time) error {
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		s, err := getSession(ctx, tx, id)
		if err != nil {
			return err
		}
		files := memory.CleanList(append(s.FilesRead, paths...))
		if len(files) == len(s.FilesRead) {
			// Nothing new: only the activity time moves.
			_, err = tx.ExecContext(ctx, `UPDATE sessions SET last_activity_at = max(last_activity_at, ?) WHERE id = ?`,
				toMillis(at), id)
			return err
		}
		if len(files) > MaxFilesRead {
			files = files[len(files)-MaxFilesRead:]
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET files_read = ?, last_activity_at = max(last_activity_at, ?) WHERE id = ?`,
			encodeList(files), toMillis(at), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording files read in session %s: %w", id, err)
	}
	return nil
}

// SetLastMessage keeps the agent's last message of a session for its summary.
func (db *DB) SetLastMessage(ctx context.Context, id, msg string, at time.Time) error {
	n, err := db.change(ctx, `UPDATE sessions SET last_message = ?, last_activity_at = max(last_activity_at, ?) WHERE id = ?`,
		msg, toMillis(at), id)
	if err != nil {
		return fmt.Errorf("keeping the last message of session %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("session %s: %w", id, memory.ErrNotFound)
	}
	return nil
}

func limitOr(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}
