package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Added is the outcome of storing an observation.
type Added struct {
	ID int64 `json:"id"`
	// Duplicate is true when the same content already existed in the session;
	// ID is then the id of that earlier observation.
	Duplicate bool `json:"duplicate"`
}

// AddObservation validates and stores an observation in its session, which
// must exist. The same content in the same session is stored once.
func (db *DB) AddObservation(ctx context.Context, o memory.Observation) (Added, error) {
	o.Normalize()
	if err := o.Validate(); err != nil {
		return Added{}, err
	}
	var out Added
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		s, err := getSession(ctx, tx, o.SessionID)
		if err != nil {
			return err
		}
		o.Project = s.Project
		if o.AgentType == "" {
			o.AgentType = s.AgentType
		}
		out, err = insertObservation(ctx, tx, &o)
		if err != nil {
			return err
		}
		if err := insertCitations(ctx, tx, out.ID, o.Citations); err != nil {
			return err
		}
		if o.Supersedes > 0 {
			if err := supersede(ctx, tx, o.Supersedes, out.ID, o.Project); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET last_activity_at = max(last_activity_at, ?) WHERE id = ?`,
			toMillis(o.CreatedAt), o.SessionID)
		return err
	})
	if err != nil {
		return Added{}, fmt.Errorf("adding observation: %w", err)
	}
	return out, nil
}

// derived is what storing an observation computes from its text: the
// dedup hash, the token estimate and the extra index terms. Import computes
// it for a whole batch in parallel before its transaction.
type derived struct {
	hash   string
	tokens int
	terms  string
}

func derive(o *memory.Observation) derived {
	return derived{
		hash:   o.Hash(),
		tokens: o.EstimateTokens(),
		terms:  o.IndexTerms(),
	}
}

// insertObservation writes a normalised, validated observation. It keeps the
// given UUID and ID where they are set (import), else makes them. A row with
// the same uuid, or the same content in the session, is reported as duplicate.
func insertObservation(ctx context.Context, tx querier, o *memory.Observation) (Added, error) {
	return insertDerived(ctx, tx, o, derive(o))
}

// insertDerived is insertObservation with derive(o) already done.
func insertDerived(ctx context.Context, tx querier, o *memory.Observation, d derived) (Added, error) {
	if o.UUID == "" {
		o.UUID = uuid.NewString()
	}
	if o.CreatedAt.IsZero() {
		o.CreatedAt = time.Now()
	}
	o.ContentHash = d.hash
	if o.TokenCount == 0 {
		o.TokenCount = d.tokens
	}
	terms := d.terms
	var id any
	if o.ID > 0 {
		id = o.ID
	}
	var newID int64
	err := tx.GetContext(ctx, &newID, `INSERT INTO observations (id, uuid, session_id, project, type, title,
		subtitle, narrative, facts, concepts, files_read, files_modified, agent_type, tool_name, prompt_number,
		content_hash, token_count, search_terms, created_at, supersedes_uuid, `+provenanceCols+`)
		VALUES (CASE WHEN ? IS NOT NULL AND NOT EXISTS (SELECT 1 FROM observations WHERE id = ?) THEN ? END,
		?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING RETURNING id`,
		append([]any{id, id, id, o.UUID, o.SessionID, o.Project, string(o.Type), o.Title, o.Subtitle, o.Narrative,
			encodeList(o.Facts), encodeList(o.Concepts), encodeList(o.FilesRead), encodeList(o.FilesModified),
			o.AgentType, o.ToolName, o.PromptNumber, o.ContentHash, o.TokenCount, terms, toMillis(o.CreatedAt),
			o.SupersedesUUID},
			provenanceArgs(o.Provenance, o.Review)...)...)
	if err == nil {
		o.ID = newID
		return Added{ID: newID}, nil
	}
	if !isNoRows(err) {
		return Added{}, err
	}
	// Nothing inserted: find what it collided with.
	var existing int64
	err = tx.GetContext(ctx, &existing, `SELECT id FROM observations WHERE uuid = ?
		UNION ALL SELECT id FROM observations WHERE session_id = ? AND content_hash = ? LIMIT 1`,
		o.UUID, o.SessionID, o.ContentHash)
	if err != nil {
		return Added{}, fmt.Errorf("finding duplicate observation: %w", err)
	}
	o.ID = existing
	return Added{ID: existing, Duplicate: true}, nil
}

// Observations returns the observations with the given ids, in that order.
// A missing id is an error that names it.
func (db *DB) Observations(ctx context.Context, ids []int64) ([]memory.Observation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// One JSON parameter rather than one per id: SQLite caps bound variables.
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	var rows []observationRow
	if err := db.q().SelectContext(ctx, &rows, `SELECT `+observationCols+` FROM observations
		WHERE id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
		return nil, fmt.Errorf("reading observations: %w", mapErr(err))
	}
	byID := make(map[int64]memory.Observation, len(rows))
	for _, r := range rows {
		byID[r.ID] = r.observation()
	}
	out := make([]memory.Observation, 0, len(ids))
	for _, id := range ids {
		o, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("observation #%d: %w", id, memory.ErrNotFound)
		}
		out = append(out, o)
	}
	return out, nil
}

// ObservationFilter selects observations for ListObservations.
type ObservationFilter struct {
	Project   string // required unless SessionID is set
	SessionID string
	Types     []memory.Type
	Since     time.Time
	Until     time.Time
	Limit     int
	Offset    int
	Ascending bool // oldest first (default newest first)
}

// ListObservations returns observations by time.
func (db *DB) ListObservations(ctx context.Context, f ObservationFilter) ([]memory.Observation, error) {
	q := `SELECT ` + observationCols + ` FROM observations WHERE 1=1`
	var args []any
	if f.Project != "" {
		q += ` AND project = ?`
		args = append(args, f.Project)
	}
	if f.SessionID != "" {
		q += ` AND session_id = ?`
		args = append(args, f.SessionID)
	}
	if len(f.Types) > 0 {
		q += ` AND type IN (?` + strings.Repeat(`, ?`, len(f.Types)-1) + `)`
		for _, t := range f.Types {
			args = append(args, string(t))
		}
	}
	if !f.Since.IsZero() {
		q += ` AND created_at >= ?`
		args = append(args, toMillis(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND created_at < ?`
		args = append(args, toMillis(f.Until))
	}
	if f.Ascending {
		q += ` ORDER BY created_at, id`
	} else {
		q += ` ORDER BY created_at DESC, id DESC`
	}
	q += limit(limitOr(f.Limit, 100)) + ` OFFSET ?`
	args = append(args, f.Offset)
	var rows []observationRow
	if err := db.q().SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, fmt.Errorf("listing observations: %w", mapErr(err))
	}
	return toRecords(rows, observationRow.observation), nil
}

// CountObservations counts a project's observations (all projects when empty).
func (db *DB) CountObservations(ctx context.Context, project string) (int, error) {
	var n int
	var err error
	if project == "" {
		err = db.q().GetContext(ctx, &n, `SELECT count(*) FROM observations`)
	} else {
		err = db.q().GetContext(ctx, &n, `SELECT count(*) FROM observations WHERE project = ?`, project)
	}
	return n, mapErr(err)
}

// ObservationsForFile returns the newest observations that read or modified
// path, newest (highest id) first.
func (db *DB) ObservationsForFile(ctx context.Context, project, path string, n int) ([]memory.Observation, error) {
	var rows []observationRow
	// Walking the file's rows of observation_files backwards stops after n
	// observations. Left to itself, SQLite walked every observation of the
	// project by date and probed the file for each: 85 ms on 100k observations
	// against 0.05 ms, and it is on the path of every prompt hook.
	err := db.q().SelectContext(ctx, &rows, `SELECT `+prefixCols("o", observationCols)+`
		FROM observation_files f CROSS JOIN observations o ON o.id = f.observation_id
		WHERE f.path = ? AND o.project = ? AND o.superseded_by IS NULL
		GROUP BY f.observation_id ORDER BY f.observation_id DESC`+limit(limitOr(n, 20)), path, project)
	if err != nil {
		return nil, fmt.Errorf("reading observations of %s: %w", path, mapErr(err))
	}
	return toRecords(rows, observationRow.observation), nil
}

// FileWords returns the searchable text (title, subtitle, narrative, facts,
// concepts and files) with the ID and SessionID of the observations ids and
// of the newest n of each of paths (as ObservationsForFile gives them),
// those of sessions only, in no set order: the words of a file's sessions
// in one statement rather than their whole records.
func (db *DB) FileWords(ctx context.Context, project string, paths []string, n int, ids []int64, sessions []string) ([]memory.Observation, error) {
	idList, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	sessionList, err := json.Marshal(sessions)
	if err != nil {
		return nil, err
	}
	args := []any{project, string(idList), string(sessionList)}
	var b strings.Builder
	b.WriteString(`WITH f AS (SELECT value AS id FROM json_each(?2)`)
	for i, p := range paths {
		args = append(args, p)
		b.WriteString(` UNION SELECT id FROM (SELECT f.observation_id AS id
			FROM observation_files f CROSS JOIN observations o ON o.id = f.observation_id
			WHERE f.path = ?` + strconv.Itoa(i+4) + ` AND o.project = ?1 AND o.superseded_by IS NULL
			GROUP BY f.observation_id ORDER BY f.observation_id DESC` + limit(limitOr(n, 20)) + `)`)
	}
	b.WriteString(`) SELECT o.id, o.session_id, o.title, o.subtitle, o.narrative, o.facts, o.concepts, o.files_read, o.files_modified
		FROM f CROSS JOIN observations o ON o.id = f.id WHERE o.session_id IN (SELECT value FROM json_each(?3))`)
	var rows []observationRow
	if err := db.q().SelectContext(ctx, &rows, b.String(), args...); err != nil {
		return nil, fmt.Errorf("reading the words of %v: %w", paths, mapErr(err))
	}
	return toRecords(rows, observationRow.observation), nil
}

// prefixCols qualifies a column list with a table alias.
func prefixCols(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
