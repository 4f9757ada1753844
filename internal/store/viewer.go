package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// UpdateObservation rewrites what a person may edit in a stored observation
// (type, title, subtitle, narrative, facts, concepts), with the provenance
// and review the caller gives (the person's), and recomputes what the
// store derives from it: the dedup hash, the token estimate and the index
// terms; the search index follows through the update trigger. The caller
// passes the text through the privacy filter first, as for a new one. The
// same content as another observation of the session is refused.
func (db *DB) UpdateObservation(ctx context.Context, o memory.Observation) (memory.Observation, error) {
	o.Normalize()
	if err := o.Validate(); err != nil {
		return memory.Observation{}, err
	}
	d := derive(&o)
	o.ContentHash, o.TokenCount = d.hash, d.tokens
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		var other int64
		if err := tx.GetContext(ctx, &other, `SELECT id FROM observations WHERE id = ? AND session_id = ?`, o.ID, o.SessionID); err != nil {
			if isNoRows(err) {
				return fmt.Errorf("observation #%d: %w", o.ID, memory.ErrNotFound)
			}
			return err
		}
		err := tx.GetContext(ctx, &other, `SELECT id FROM observations WHERE session_id = ? AND content_hash = ? AND id <> ?`,
			o.SessionID, o.ContentHash, o.ID)
		switch {
		case err == nil:
			return memory.Invalid("observation", "content that no other observation of the session has", fmt.Sprintf("the same as #%d", other))
		case !isNoRows(err):
			return err
		}
		// The row is there (above, in this transaction).
		_, err = tx.ExecContext(ctx, `UPDATE observations SET type = ?, title = ?, subtitle = ?, narrative = ?,
			facts = ?, concepts = ?, content_hash = ?, token_count = ?, search_terms = ?,
			(`+provenanceCols+`) = (?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ? AND session_id = ?`,
			append(append([]any{string(o.Type), o.Title, o.Subtitle, o.Narrative, encodeList(o.Facts), encodeList(o.Concepts),
				o.ContentHash, o.TokenCount, d.terms}, provenanceArgs(o.Provenance, o.Review)...), o.ID, o.SessionID)...)
		return err
	})
	if err != nil {
		return memory.Observation{}, fmt.Errorf("editing observation #%d: %w", o.ID, err)
	}
	return o, nil
}

// ProjectActivity is one project's memory at a glance.
type ProjectActivity struct {
	Project      string    `json:"project"`
	Sessions     int       `json:"sessions"`
	Observations int       `json:"observations"`
	Summaries    int       `json:"summaries"`
	Prompts      int       `json:"prompts"`
	LastActivity time.Time `json:"last_activity"`
}

// Projects lists every project with its counts, most recently active first.
// Counting reads observation_days, not every observation.
func (db *DB) Projects(ctx context.Context) ([]ProjectActivity, error) {
	type row struct {
		Project string `db:"project"`
		N       int    `db:"n"`
		Last    int64  `db:"last"`
	}
	var out []ProjectActivity
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		var sessions []row
		if err := tx.SelectContext(ctx, &sessions, `SELECT project, count(*) AS n, max(last_activity_at) AS last
			FROM sessions GROUP BY project ORDER BY last DESC, project`); err != nil {
			return err
		}
		at := make(map[string]int, len(sessions))
		for _, s := range sessions {
			at[s.Project] = len(out)
			out = append(out, ProjectActivity{Project: s.Project, Sessions: s.N, LastActivity: fromMillis(s.Last)})
		}
		for _, c := range []struct {
			query string
			set   func(*ProjectActivity, int)
		}{
			// observation_days keeps observations counted (by triggers), in
			// far fewer rows than observations.
			{"SELECT project, sum(n) AS n, 0 AS last FROM observation_days GROUP BY project",
				func(p *ProjectActivity, n int) { p.Observations = n }},
			{"SELECT project, count(*) AS n, 0 AS last FROM summaries GROUP BY project",
				func(p *ProjectActivity, n int) { p.Summaries = n }},
			{"SELECT project, count(*) AS n, 0 AS last FROM prompts GROUP BY project",
				func(p *ProjectActivity, n int) { p.Prompts = n }},
		} {
			var counts []row
			if err := tx.SelectContext(ctx, &counts, c.query); err != nil {
				return err
			}
			for _, r := range counts {
				if i, ok := at[r.Project]; ok {
					c.set(&out[i], r.N)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing projects: %w", err)
	}
	return out, nil
}

// DayCount is how many observations of one type were made on one day (UTC).
type DayCount struct {
	Day   time.Time   `json:"day"`
	Type  memory.Type `json:"type"`
	Count int         `json:"count"`
}

// ObservationsPerDay counts observations by UTC day and type from since on,
// for one project or, when project is empty, for all of them.
func (db *DB) ObservationsPerDay(ctx context.Context, project string, since time.Time) ([]DayCount, error) {
	type row struct {
		Day   int64  `db:"day"`
		Type  string `db:"type"`
		Count int    `db:"n"`
	}
	// observation_days holds the counts (kept by triggers); each project's
	// rows from since on are one range of its primary key.
	q := `SELECT d.day AS day, d.type AS type, sum(d.n) AS n
		FROM (SELECT DISTINCT project FROM sessions WHERE ? = '' OR project = ?) p
		CROSS JOIN observation_days d ON d.project = p.project AND d.day >= ?
		GROUP BY d.day, d.type ORDER BY d.day, d.type`
	var rows []row
	if err := db.q().SelectContext(ctx, &rows, q, project, project, toMillis(since)/dayMillis); err != nil {
		return nil, fmt.Errorf("counting observations per day: %w", mapErr(err))
	}
	out := make([]DayCount, len(rows))
	for i, r := range rows {
		out[i] = DayCount{Day: time.UnixMilli(r.Day * dayMillis).UTC(), Type: memory.Type(r.Type), Count: r.Count}
	}
	return out, nil
}

const dayMillis = 86400000

// Watcher tells whether the database changed, through any connection or
// process, at the cost of one pragma: it keeps a connection of its own,
// because SQLite's data_version counts the commits other connections made.
type Watcher struct {
	conn *sql.Conn
}

// Watch opens a Watcher; close it when done.
func (db *DB) Watch(ctx context.Context) (*Watcher, error) {
	c, err := db.x.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("watching the database: %w", mapErr(err))
	}
	return &Watcher{conn: c}, nil
}

// Version returns a number that changes whenever another connection has
// committed since the last call.
func (w *Watcher) Version(ctx context.Context) (int64, error) {
	var v int64
	if err := w.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the database's change counter: %w", mapErr(err))
	}
	return v, nil
}

// Close gives the connection back.
func (w *Watcher) Close() error { return w.conn.Close() }

// RecentSessions returns the most recently active sessions of every project,
// newest first. It walks each project's (project, last activity) index for
// its newest few rather than sorting every session.
func (db *DB) RecentSessions(ctx context.Context, limit int) ([]memory.Session, error) {
	limit = limitOr(limit, 15)
	var rows []sessionRow
	err := db.q().SelectContext(ctx, &rows, `SELECT `+prefixCols("s", sessionCols)+`
		FROM (SELECT DISTINCT project FROM sessions) p
		CROSS JOIN sessions s ON s.id IN (SELECT id FROM sessions WHERE project = p.project ORDER BY last_activity_at DESC LIMIT ?)
		ORDER BY s.last_activity_at DESC, s.id LIMIT ?`, limit, limit)
	if err != nil {
		return nil, fmt.Errorf("listing recent sessions: %w", mapErr(err))
	}
	return toRecords(rows, sessionRow.session), nil
}

// AgentActivity is what the sessions say of one agent's hooks.
type AgentActivity struct {
	Agent     string    `json:"agent"`
	Sessions  int       `json:"sessions"`
	LastEvent time.Time `json:"last_event"`
}

// Agents lists each agent that recorded sessions, with the time of its
// newest event, most recent first.
func (db *DB) Agents(ctx context.Context) ([]AgentActivity, error) {
	type row struct {
		Agent string `db:"agent"`
		N     int    `db:"n"`
		Last  int64  `db:"last"`
	}
	var rows []row
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &rows, `SELECT agent, count(*) AS n, max(last_activity_at) AS last
			FROM sessions WHERE agent != '' GROUP BY agent ORDER BY last DESC, agent`)
	})
	if err != nil {
		return nil, fmt.Errorf("listing agents: %w", err)
	}
	out := make([]AgentActivity, len(rows))
	for i, r := range rows {
		out[i] = AgentActivity{Agent: r.Agent, Sessions: r.N, LastEvent: fromMillis(r.Last)}
	}
	return out, nil
}
